#!/usr/bin/env python3
"""gen_seal.py - extract known-answer vectors for src/seal/ and src/proofs/ from upstream sources.

Reads pinned commits of two public repositories with `git show <commit>:<path>` from local
clones (no network access; nothing is computed here beyond parsing, base32/base64 decoding of
CIDs and file bytes):

  rust-fil-proofs  filecoin-project/rust-fil-proofs
    storage-proofs-porep/parent_cache.json   the official parent-cache files: name and SHA-256
                     digest of the file content for every published sector size (V1 and V1_1
                     graphs)
    storage-proofs-porep/tests/stacked_vanilla.rs  test_stacked_porep_generate_labels: the last
                     label of layer 11 for 2 KiB and 4 KiB graphs, replica_id = [9; 32],
                     porep_id = [0; 32] (V1_0) and [123; 32] (V1_1, V1_2)
    storage-proofs-porep/src/stacked/vanilla/challenges.rs  test_synth_challenges_against_
                     hardcoded: 21 synthetic and 10 selected PoRep challenges for 2^10 nodes,
                     replica_id = Fr(55), comm_r = Fr(101), randomness [1; 32]
  curio            filecoin-project/curio
    lib/proof/treed_build_test.go   Test2K / Test8MiB: CommP CIDs of a 2 KiB and an 8 MiB piece
                     whose first byte is 1 (the rest zero)
    lib/proof/testgolden/post.vproof + postpub.json: a real 32 GiB WindowPoSt vanilla proof
                     (bincode FallbackPoStSectorProof, sector 1, randomness 0, SealedCID)

Writes tests/vectors/seal/seal_vectors.h and tests/vectors/proofs/post_golden_vectors.h.

Usage: gen_seal.py RUST_FIL_PROOFS_GIT CURIO_GIT OUT_DIR   (OUT_DIR = tests/vectors)
"""
import base64
import hashlib
import json
import re
import subprocess
import sys

FIL_PROOFS_COMMIT = "87348a749d80447d00c595af834a8ed73c09e4d9"
CURIO_COMMIT = "e0294b0f948132d41e8f42f59fa949495d5fd3af"


def git_show(repo, commit, path, binary=False):
    out = subprocess.run(["git", "-C", repo, "show", f"{commit}:{path}"], check=True,
                         capture_output=True).stdout
    return out if binary else out.decode()


def cid_digest(cid):
    """The 32-byte digest at the end of a base32 ('b' multibase) CIDv1."""
    if not cid.startswith("b"):
        raise SystemExit(f"unexpected multibase in {cid}")
    body = cid[1:].upper()
    body += "=" * (-len(body) % 8)
    raw = base64.b32decode(body)
    if raw[0] != 1 or raw[-33] != 0x20:
        raise SystemExit(f"unexpected CID layout {cid}")
    return raw[-32:]


def c_hex(b):
    return '"' + b.hex() + '"'


def label_kats(src):
    consts = {
        "num_layers": r"let num_layers = (\d+);",
        "nodes_2k": r"let nodes_2k = 1 << (\d+);",
        "nodes_4k": r"let nodes_4k = 1 << (\d+);",
        "replica_id": r"let replica_id = \[(\d+)u8; 32\];",
        "legacy_porep_id": r"let legacy_porep_id = \[(\d+); 32\];",
        "porep_id": r"let porep_id = \[(\d+); 32\];",
    }
    start = src.index("fn test_stacked_porep_generate_labels")
    end = src.index("fn test_generate_labels_aux")
    body = src[start:end]
    val = {}
    for k, pat in consts.items():
        m = re.search(pat, body)
        if not m:
            raise SystemExit(f"constant {k} not found")
        val[k] = int(m.group(1))
    call = re.compile(
        r"test_generate_labels_aux\(\s*(nodes_2k|nodes_4k),\s*num_layers,\s*replica_id,\s*"
        r"(legacy_porep_id|porep_id),\s*ApiVersion::V1_(\d)_0,\s*Fr::from_u64s_le\(&\[\s*"
        r"(0x[0-9a-f]+),\s*(0x[0-9a-f]+),\s*(0x[0-9a-f]+),\s*(0x[0-9a-f]+),?\s*\]\)")
    res = []
    for m in call.finditer(body):
        size = 1 << val[m.group(1)]
        limbs = [int(m.group(i), 16) for i in range(4, 8)]
        label = b"".join(l.to_bytes(8, "little") for l in limbs)
        res.append((size, val[m.group(2)], int(m.group(3)), label))
    if len(res) != 6:
        raise SystemExit(f"expected 6 label vectors, found {len(res)}")
    return val, res


def synth_kat(src):
    start = src.index("fn test_synth_challenges_against_hardcoded")
    body = src[start:]

    def one(pat):
        m = re.search(pat, body)
        if not m:
            raise SystemExit(f"{pat} not found")
        return m.group(1)

    nodes = 1 << int(one(r"let sector_nodes = 1 << (\d+);"))
    rid = int(one(r"let replica_id = Fr::from\((\d+)\);"))
    commr = int(one(r"let comm_r = Fr::from\((\d+)\);"))
    nsynth = int(one(r"let num_synth_challenges = (\d+);"))
    nporep = int(one(r"let num_porep_challenges = (\d+);"))
    rand = int(one(r"let porep_challenge_randomness = \[(\d+)u8; 32\];"))
    synth = [int(x) for x in re.findall(r"\d+", one(
        r"let expected_synth_challenges: \[usize; \d+\] = \[([\d,\s]+)\];"))]
    porep = [int(x) for x in re.findall(r"\d+", one(
        r"let expected_porep_challenges: \[usize; \d+\] =\s*\[([\d,\s]+)\];"))]
    if len(synth) != nsynth or len(porep) != nporep:
        raise SystemExit("synthetic challenge counts do not match")
    return nodes, rid, commr, rand, synth, porep


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    fp, curio, out_dir = sys.argv[1:]

    caches = json.loads(git_show(fp, FIL_PROOFS_COMMIT, "storage-proofs-porep/parent_cache.json"))
    labels_src = git_show(fp, FIL_PROOFS_COMMIT, "storage-proofs-porep/tests/stacked_vanilla.rs")
    lconst, lkats = label_kats(labels_src)
    chal_src = git_show(fp, FIL_PROOFS_COMMIT,
                        "storage-proofs-porep/src/stacked/vanilla/challenges.rs")
    snodes, srid, scommr, srand, ssynth, sporep = synth_kat(chal_src)
    treed = git_show(curio, CURIO_COMMIT, "lib/proof/treed_build_test.go")
    commp = []
    for test, size_expr, size in (("Test2K", "2048", 2048), ("Test8MiB", "8<<20", 8 << 20)):
        body = treed[treed.index(f"func {test}(t"):]
        body = body[:body.index("\n}\n")]
        if f"make([]byte, {size_expr})" not in body or "data[0] = 0x01" not in body:
            raise SystemExit(f"{test}: unexpected input")
        cid = re.search(r'"(baga6ea4sea[a-z2-7]+)"', body).group(1)
        commp.append((size, cid, cid_digest(cid)))

    o = []
    o.append("/* Generated by tools/gen_vectors/gen_seal.py; do not edit.")
    o.append(" * seal_vectors.h: official known answers for src/seal/ from")
    o.append(f" *   filecoin-project/rust-fil-proofs {FIL_PROOFS_COMMIT}:")
    o.append(" *     storage-proofs-porep/parent_cache.json (parent-cache file names and digests),")
    o.append(" *     storage-proofs-porep/tests/stacked_vanilla.rs test_stacked_porep_generate_labels,")
    o.append(" *     storage-proofs-porep/src/stacked/vanilla/challenges.rs")
    o.append(" *       test_synth_challenges_against_hardcoded;")
    o.append(f" *   filecoin-project/curio {CURIO_COMMIT}:")
    o.append(" *     lib/proof/treed_build_test.go Test2K, Test8MiB (CommP of a piece whose first")
    o.append(" *     byte is 1, the rest zero; digest taken from the CID). */")
    o.append("#ifndef CUZK_VECTORS_SEAL_SEAL_VECTORS_H")
    o.append("#define CUZK_VECTORS_SEAL_SEAL_VECTORS_H")
    o.append("")
    o.append("#include <stdint.h>")
    o.append("")
    o.append("/* official parent caches: file name (without .cache), sector size, SHA-256 of the file */")
    o.append("static const struct seal_parent_cache_vector {")
    o.append("    const char *name;")
    o.append("    uint64_t sector_size;")
    o.append("    const char *digest;")
    o.append("} seal_parent_cache_vectors[] = {")
    for name in sorted(caches):
        e = caches[name]
        o.append(f'    {{"{name}", {e["sector_size"]}ULL, "{e["digest"]}"}},')
    o.append("};")
    o.append("")
    o.append(f"/* labels: {lconst['num_layers']} layers, replica_id = [{lconst['replica_id']}; 32], "
             "porep_id = [b; 32]; the label of the last")
    o.append(" * node in the last layer (32 bytes little-endian, the Fr repr) */")
    o.append(f"#define SEAL_LABEL_KAT_LAYERS {lconst['num_layers']}")
    o.append(f"#define SEAL_LABEL_KAT_REPLICA_BYTE {lconst['replica_id']}")
    o.append("static const struct seal_label_vector {")
    o.append("    uint64_t sector_size;")
    o.append("    uint8_t porep_id_byte;")
    o.append("    int api_minor; /* ApiVersion::V1_<api_minor>_0 */")
    o.append("    const char *last_label;")
    o.append("} seal_label_vectors[] = {")
    for size, pid, minor, label in lkats:
        o.append(f"    {{{size}, {pid}, {minor}, {c_hex(label)}}},")
    o.append("};")
    o.append("")
    o.append("/* synthetic PoRep challenges: nodes, replica_id = Fr(rid), comm_r = Fr(comm_r),")
    o.append(" * randomness [rand; 32], the first synthetic challenges and the selected ones */")
    o.append(f"#define SEAL_SYNTH_KAT_NODES {snodes}")
    o.append(f"#define SEAL_SYNTH_KAT_REPLICA_ID {srid}")
    o.append(f"#define SEAL_SYNTH_KAT_COMM_R {scommr}")
    o.append(f"#define SEAL_SYNTH_KAT_RAND_BYTE {srand}")
    o.append("static const uint64_t seal_synth_kat_synth[] = {" +
             ", ".join(str(x) for x in ssynth) + "};")
    o.append("static const uint64_t seal_synth_kat_porep[] = {" +
             ", ".join(str(x) for x in sporep) + "};")
    o.append("")
    o.append("/* CommP of a padded piece of `size` bytes with byte 0 = 1, all others 0 */")
    o.append("static const struct seal_commp_vector {")
    o.append("    uint64_t padded_size;")
    o.append("    const char *cid;")
    o.append("    const char *comm;")
    o.append("} seal_commp_vectors[] = {")
    for size, cid, dig in commp:
        o.append(f'    {{{size}, "{cid}", {c_hex(dig)}}},')
    o.append("};")
    o.append("")
    o.append("#endif /* CUZK_VECTORS_SEAL_SEAL_VECTORS_H */")
    with open(f"{out_dir}/seal/seal_vectors.h", "w") as f:
        f.write("\n".join(o) + "\n")

    # The golden WindowPoSt vanilla proof.
    vproof = git_show(curio, CURIO_COMMIT, "lib/proof/testgolden/post.vproof", binary=True)
    pub = json.loads(git_show(curio, CURIO_COMMIT, "lib/proof/testgolden/postpub.json"))
    rand = base64.b64decode(pub["Randomness"])
    sector = pub["ChallengedSectors"][0]
    o = []
    o.append("/* Generated by tools/gen_vectors/gen_seal.py; do not edit.")
    o.append(" * post_golden_vectors.h: the public side of a real 32 GiB WindowPoSt vanilla proof (bincode")
    o.append(" * FallbackPoStSectorProof) produced by rust-fil-proofs: filecoin-project/curio")
    o.append(f" * {CURIO_COMMIT} lib/proof/testgolden/postpub.json. The proof")
    o.append(f" * itself (lib/proof/testgolden/post.vproof, {len(vproof):,} bytes, SHA-256 {hashlib.sha256(vproof).hexdigest()[:8]}...) is read at")
    o.append(" * run time from the shared data directory (tests/harness/test.h test_shared_load), never")
    o.append(" * committed; tests that need it skip when it is absent. */")
    o.append("#ifndef CUZK_VECTORS_PROOFS_POST_GOLDEN_VECTORS_H")
    o.append("#define CUZK_VECTORS_PROOFS_POST_GOLDEN_VECTORS_H")
    o.append("")
    o.append("#include <stdint.h>")
    o.append("")
    o.append(f"#define POST_GOLDEN_POST_PROOF {pub['Proofs'][0]['PoStProof']} /* Go abi RegisteredPoStProof */")
    o.append(f"#define POST_GOLDEN_SEAL_PROOF {sector['SealProof']} /* Go abi RegisteredSealProof */")
    o.append(f"#define POST_GOLDEN_SECTOR {sector['SectorNumber']}")
    o.append(f"#define POST_GOLDEN_MINER {pub['Prover']}")
    o.append(f'static const char post_golden_randomness[] = "{rand.hex()}";')
    o.append(f'static const char post_golden_sealed_cid[] = "{sector["SealedCID"]["/"]}";')
    o.append(f'static const char post_golden_comm_r[] = "{cid_digest(sector["SealedCID"]["/"]).hex()}";')
    o.append('#define POST_GOLDEN_VPROOF_FILE "vectors/curio/post.vproof"')
    o.append(f"#define POST_GOLDEN_VPROOF_LEN {len(vproof)}")
    o.append("")
    o.append("#endif")
    with open(f"{out_dir}/proofs/post_golden_vectors.h", "w") as f:
        f.write("\n".join(o) + "\n")


if __name__ == "__main__":
    main()
