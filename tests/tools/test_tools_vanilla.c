/* test_tools_vanilla.c - cuzk-bench gen-vanilla and check-vanilla end to end, as a user runs
 * them: every kind at 2 KiB is generated (dense and synthetic sectors) and must pass
 * check-vanilla; the written files are checked against the byte layouts of spec
 * vanilla-proofs.md 2.2 and 3.2 (sizes computed here from the spec, fields read at their spec
 * offsets, base64 decoded by this file's own decoder); a byte changed in a proof must make
 * check-vanilla fail with exit 1 and a precise message (the constraint's path, the field of a
 * parse error, or the public input that differs); usage errors exit 2.
 */
#include <stdlib.h>

#include "harness/test.h"
#include "tools_util.h"

/* ---- independent helpers ---------------------------------------------------------------- */

static int b64v(char c)
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Decodes the base64 text [s, s + n) (padding allowed); returns malloc'ed bytes. */
static uint8_t *b64dec(const char *s, size_t n, size_t *len)
{
    uint8_t *out = malloc(n / 4 * 3 + 3);
    uint32_t acc = 0;
    int bits = 0;
    size_t o = 0;

    CHECK(out);
    for (size_t i = 0; i < n && s[i] != '='; i++) {
        int v = b64v(s[i]);
        CHECK_MSG(v >= 0, "bad base64 char 0x%02x", (unsigned)(unsigned char)s[i]);
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (uint8_t)(acc >> bits);
        }
    }
    *len = o;
    return out;
}

static char *b64enc(const uint8_t *in, size_t n)
{
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc(4 * ((n + 2) / 3) + 1);
    size_t o = 0;

    CHECK(out);
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        out[o++] = A[v >> 18 & 63];
        out[o++] = A[v >> 12 & 63];
        out[o++] = i + 1 < n ? A[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? A[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

/* The strings of a JSON list of strings ["..","..",...]: up to cap entries. */
static size_t json_list(const char *s, const char **start, size_t *len, size_t cap)
{
    size_t n = 0;
    const char *p = strchr(s, '[');

    CHECK(p);
    while ((p = strchr(p, '"')) != NULL) {
        const char *e = strchr(p + 1, '"');
        CHECK(e && n < cap);
        start[n] = p + 1;
        len[n++] = (size_t)(e - p - 1);
        p = e + 1;
    }
    return n;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) {
        v = v << 8 | p[i];
    }
    return v;
}

static void hex(char *out, const uint8_t *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sprintf(out + 2 * i, "%02x", in[i]);
    }
}

static const char *seed_arg(void)
{
    static char buf[32];
    snprintf(buf, sizeof(buf), "%016" PRIx64, test_seed());
    return buf;
}

/* gen-vanilla KIND at 2 KiB into <tmp>/name (extra: one more flag or NULL), then
 * check-vanilla (with --native) must pass. Returns the sidecar text (owned). */
static char *gen_and_check(const char *kind, const char *name, const char *extra,
                           const char *extra_val)
{
    tu_result r;
    char sc[600], out[512];
    char *text;

    snprintf(out, sizeof(out), "%s", tu_path(name));
    snprintf(sc, sizeof(sc), "%s.json", out);
    if (extra && extra_val) {
        tu_bench(&r, "gen-vanilla", kind, "--sector-size", "2KiB", "--out", out, "--seed",
                 seed_arg(), extra, extra_val, NULL);
    } else if (extra) {
        tu_bench(&r, "gen-vanilla", kind, "--sector-size", "2KiB", "--out", out, "--seed",
                 seed_arg(), extra, NULL);
    } else {
        tu_bench(&r, "gen-vanilla", kind, "--sector-size", "2KiB", "--out", out, "--seed",
                 seed_arg(), NULL);
    }
    CHECK_EQ_U64(r.status, 0);
    CHECK(tu_has(r.out, "out=", "sidecar=", NULL));
    tu_result_clear(&r);
    CHECK(tu_exists(out) && tu_exists(sc));

    tu_bench(&r, "check-vanilla", "--type", kind, "--vanilla", out, "--native", NULL);
    CHECK_EQ_U64(r.status, 0);
    CHECK(tu_has(r.out, "satisfied inputs_match", "native=ok", NULL));
    CHECK(strstr(r.out, kind) != NULL);
    tu_result_clear(&r);

    text = (char *)tu_read(sc, NULL);
    CHECK(text);
    {
        char k[32];
        CHECK(tu_json_str(text, "kind", k, sizeof(k)));
        CHECK_STR_EQ(k, kind);
    }
    return text;
}

/* gen-vanilla KIND at 2 KiB into <tmp>/name, nothing else. */
static void gen_only(const char *kind, const char *name)
{
    tu_result r;
    tu_bench(&r, "gen-vanilla", kind, "--sector-size", "2KiB", "--out", tu_path(name), "--seed",
             seed_arg(), NULL);
    CHECK_EQ_U64(r.status, 0);
    tu_result_clear(&r);
}

/* check-vanilla on <tmp>/name must exit `want` with every needle on stderr. */
static void expect_check(const char *kind, const char *name, int want, const char *n1,
                         const char *n2)
{
    tu_result r;
    tu_bench(&r, "check-vanilla", "--type", kind, "--vanilla", tu_path(name), NULL);
    CHECK_EQ_U64(r.status, want);
    CHECK_MSG(strstr(r.err, "cuzk-bench check-vanilla: error:") != NULL, "stderr: %s", r.err);
    CHECK_MSG(!n1 || strstr(r.err, n1), "'%s' not in: %s", n1, r.err);
    CHECK_MSG(!n2 || strstr(r.err, n2), "'%s' not in: %s", n2, r.err);
    tu_result_clear(&r);
}

/* Copies <tmp>/from to <tmp>/to with byte `off` XORed with `x`, and the sidecar beside it. */
static void flip_copy(const char *from, const char *to, size_t off, uint8_t x)
{
    char a[512], b[512];
    size_t len;
    uint8_t *d;

    snprintf(a, sizeof(a), "%s", tu_path(from));
    d = tu_read(a, &len);
    CHECK(d && off < len);
    d[off] ^= x;
    tu_write(tu_path(to), d, len);
    free(d);
    snprintf(a, sizeof(a), "%s.json", tu_path(from));
    snprintf(b, sizeof(b), "%s.json", tu_path(to));
    tu_copy(a, b);
}

/* ---- PoSt (spec 2.2): 2 KiB TreeRLast is Single with 2 path elements of 7 hashes -------- */

/* Bytes of one Single inclusion proof: u32 variant, root, leaf, u64 path length, per element
 * u64 hash count, 7 hashes, u64 index. */
#define POST_INCL_2K      (4 + 32 + 32 + 8 + 2 * (8 + 7 * 32 + 8))
/* One FallbackPoStSectorProof with n inclusion proofs. */
#define POST_SECTOR_2K(n) (8 + 32 + 8 + 8 + (n)*POST_INCL_2K + 32 + 32)

static void check_post_bytes(const uint8_t *d, size_t len, uint64_t sector_id, uint64_t nincl,
                             const char *comm_r_hex)
{
    char h[65];

    CHECK_EQ_U64(len, POST_SECTOR_2K(nincl));
    CHECK_EQ_U64(le64(d), sector_id);
    CHECK_EQ_U64(le64(d + 40), 1);     /* vanilla_proof.sectors: one */
    CHECK_EQ_U64(le64(d + 48), nincl); /* inclusion proofs */
    CHECK_EQ_U64(d[56] | d[57] << 8 | d[58] << 16 | (uint32_t)d[59] << 24, 0); /* Single */
    if (comm_r_hex) {
        hex(h, d + 8, 32);
        CHECK_STR_EQ(h, comm_r_hex);
    }
}

TEST(gen_check_winning_post)
{
    char *sc = gen_and_check("winning-post", "win.bin", NULL, NULL);
    char comm_r[80], rnd[80];
    uint64_t v;
    size_t len;
    uint8_t *d = tu_read(tu_path("win.bin"), &len);

    CHECK(d);
    CHECK(tu_json_str(sc, "comm_r", comm_r, sizeof(comm_r)));
    CHECK(tu_json_str(sc, "randomness", rnd, sizeof(rnd)));
    CHECK_EQ_U64(strlen(rnd), 64);
    CHECK(strchr("0123", rnd[62]) != NULL);                   /* top two bits of byte 31 clear */
    CHECK(tu_json_u64(sc, "registered_proof", &v) && v == 0); /* StackedDrgWinning2KiBV1 */
    CHECK(tu_json_u64(sc, "sector_number", &v) && v == 1);
    check_post_bytes(d, len, 1, 66, comm_r);
    free(d);
    free(sc);
}

/* --seed takes any count of hex digits: an odd count reads with a leading 0 ("1" is "01"). */
TEST(gen_seed_odd_digits)
{
    tu_result r;
    size_t la = 0, lb = 0;
    char a[512], b[512];

    snprintf(a, sizeof(a), "%s", tu_path("seed1.vp"));
    snprintf(b, sizeof(b), "%s", tu_path("seed01.vp"));
    tu_bench(&r, "gen-vanilla", "winning-post", "--sector-size", "2KiB", "--out", a, "--seed", "1",
             NULL);
    CHECK_EQ_U64(r.status, 0);
    tu_result_clear(&r);
    tu_bench(&r, "gen-vanilla", "winning-post", "--sector-size", "2KiB", "--out", b, "--seed", "01",
             NULL);
    CHECK_EQ_U64(r.status, 0);
    tu_result_clear(&r);
    uint8_t *fa = tu_read(a, &la), *fb = tu_read(b, &lb);
    CHECK(fa && fb && la == lb && la > 0 && memcmp(fa, fb, la) == 0);
    free(fa);
    free(fb);
    tu_bench(&r, "gen-vanilla", "winning-post", "--sector-size", "2KiB", "--out", a, "--seed", "1x",
             NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(tu_has(r.err, "expected 1 to 128 hex digits", NULL));
    tu_result_clear(&r);
}

TEST(gen_check_window_post)
{
    char *sc = gen_and_check("window-post", "wdp.bin", NULL, NULL);
    uint64_t v;
    size_t len;
    uint8_t *d = tu_read(tu_path("wdp.bin"), &len);

    CHECK(d);
    CHECK(tu_json_u64(sc, "registered_proof", &v) && v == 10); /* Window2KiBV1_1 */
    check_post_bytes(d, len, 1, 10, NULL);
    free(d);
    free(sc);
}

TEST(gen_check_window_post_two_sectors)
{
    char *sc = gen_and_check("window-post", "wdp2.bin", "--sectors", "2");
    char *txt = (char *)tu_read(tu_path("wdp2.bin"), NULL);
    const char *s[4];
    size_t l[4];

    CHECK(txt);
    CHECK_EQ_U64(json_list(txt, s, l, 4), 2);
    for (size_t i = 0; i < 2; i++) {
        size_t len;
        uint8_t *d = b64dec(s[i], l[i], &len);
        check_post_bytes(d, len, 1 + i, 10, NULL); /* sector numbers 1 and 2 */
        free(d);
    }
    free(txt);
    free(sc);
}

TEST(gen_check_post_synthetic)
{
    free(gen_and_check("winning-post", "win_syn.bin", "--synthetic", NULL));
}

/* ---- PoRep ------------------------------------------------------------------------------- */

TEST(gen_check_porep)
{
    char *sc = gen_and_check("porep", "c1.json", NULL, NULL);
    char *c1 = (char *)tu_read(tu_path("c1.json"), NULL);
    char comm_r[80], want[80] = "";
    const char *p;
    uint64_t v;

    CHECK(c1);
    /* filecoin-ffi's JSON (spec 1.2, 1.5): compact, Rust field order */
    p = "{\"registered_proof\":\"StackedDrg2KiBV1_1\",\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[[";
    CHECK(strncmp(c1, p, strlen(p)) == 0);
    /* the sidecar's comm_r is the C1's "comm_r" array */
    CHECK(tu_json_str(sc, "comm_r", comm_r, sizeof(comm_r)));
    p = strstr(c1, ",\"comm_r\":[");
    CHECK(p);
    p += strlen(",\"comm_r\":[");
    for (int i = 0; i < 32; i++) {
        char *end;
        unsigned long b = strtoul(p, &end, 10);
        CHECK(b < 256 && (*end == ',' || *end == ']'));
        sprintf(want + 2 * i, "%02lx", b);
        p = end + 1;
    }
    CHECK_STR_EQ(comm_r, want);
    CHECK(tu_json_u64(sc, "registered_proof", &v) && v == 5);
    free(c1);
    free(sc);
}

TEST(gen_check_porep_curio_wrapper_synthetic)
{
    char *sc = gen_and_check("porep", "c1w.json", "--curio-wrapper", NULL);
    char *c1 = (char *)tu_read(tu_path("c1w.json"), NULL);

    CHECK(c1);
    CHECK(tu_has(c1, "\"SectorNum\":1", "\"Phase1Out\":\"", "\"SectorSize\":2048", NULL));
    free(c1);
    free(sc);
    free(gen_and_check("porep", "c1s.json", "--synthetic", NULL));
}

/* synth --scalar-stats: one line per MSM query (l, a, b) whose zeros, ones and others add up
 * to its scalars; l has one per aux (the table's aux column). */
TEST(synth_scalar_stats)
{
    tu_result r;
    char *sc = gen_and_check("porep", "c1st.json", NULL, NULL);
    size_t aux = 0;

    tu_bench(&r, "synth", "--type", "porep", "--c1", tu_path("c1st.json"), "--repeat", "1",
             "--partition", "0", "--scalar-stats", "--quiet", NULL);
    CHECK_EQ_U64(r.status, 0);
    const char *row = strstr(r.out, "\n0 ");
    size_t cons = 0;
    CHECK(row && sscanf(row, "\n0 %zu %zu", &cons, &aux) == 2 && cons > 0 && aux > 0);
    for (int q = 0; q < 3; q++) {
        char key[64];
        size_t n, z, o, x;
        snprintf(key, sizeof(key), "scalars partition=0 query=%s ",
                 q == 0   ? "l"
                 : q == 1 ? "a"
                          : "b");
        const char *line = strstr(r.out, key);
        CHECK_MSG(line != NULL, "no '%s' in:\n%s", key, r.out);
        CHECK(sscanf(line + strlen(key), "n=%zu zero=%zu one=%zu other=%zu", &n, &z, &o, &x) == 4);
        CHECK_EQ_U64(z + o + x, n);
        CHECK(n > 0 && z > 0 && o > 0);
        if (q == 0) {
            CHECK_EQ_U64(n, aux);
        }
    }
    tu_result_clear(&r);
    free(sc);
}

/* synth --backend witness (the shape's densities, no a, b, c: what cuzkd holds per partition
 * when a device proves) counts the same circuit as the prover backend, with fewer bytes. */
TEST(synth_witness_backend)
{
    tu_result r;
    char *sc = gen_and_check("porep", "c1wb.json", NULL, NULL);
    size_t cons[2] = {0, 0}, aux[2] = {0, 0};
    double mib[2] = {0, 0};

    for (int b = 0; b < 2; b++) {
        tu_bench(&r, "synth", "--type", "porep", "--c1", tu_path("c1wb.json"), "--repeat", "1",
                 "--partition", "0", "--backend", b ? "witness" : "prover", "--quiet", NULL);
        CHECK_EQ_U64(r.status, 0);
        const char *row = strstr(r.out, "\n0 ");
        double x[5]; /* min, median, max, spread, constraints per second; then the peak */
        CHECK_MSG(row &&
                      sscanf(row, "\n0 %zu %zu %lf %lf %lf %lf %lf %lf", &cons[b], &aux[b], &x[0],
                             &x[1], &x[2], &x[3], &x[4], &mib[b]) == 8 &&
                      strstr(row, " MiB") != NULL,
                  "%s", r.out);
        tu_result_clear(&r);
    }
    CHECK(cons[0] > 0 && cons[1] == cons[0] && aux[1] == aux[0]);
    CHECK_MSG(mib[1] < mib[0], "witness %.1f MiB, prover %.1f MiB", mib[1], mib[0]);
    tu_bench(&r, "synth", "--type", "porep", "--c1", tu_path("c1wb.json"), "--backend", "bogus",
             NULL);
    CHECK(r.status != 0 && strstr(r.err, "pce or witness") != NULL);
    tu_result_clear(&r);
    free(sc);
}

/* ---- SnapDeals (spec 3.2) -------------------------------------------------------------------- */

/* 2 KiB: 8 apex leafs, 10 challenges, TreeD Single with 6 binary elements. */
#define SNAP_SHA_2K  (4 + 32 + 32 + 8 + 6 * (8 + 32 + 8))
#define SNAP_PART_2K (32 + 8 + 8 * 32 + 8 + 10 * (2 * POST_INCL_2K + SNAP_SHA_2K))

TEST(gen_check_snap)
{
    char *sc = gen_and_check("snap", "snap.json", NULL, NULL);
    char *txt = (char *)tu_read(tu_path("snap.json"), NULL);
    char h[80];
    const char *s[2];
    size_t l[2], len;
    uint8_t *d;

    CHECK(txt);
    CHECK_EQ_U64(json_list(txt, s, l, 2), 1); /* one partition at 2 KiB */
    d = b64dec(s[0], l[0], &len);
    CHECK_EQ_U64(len, SNAP_PART_2K);
    CHECK_EQ_U64(le64(d + 32), 8);            /* apex leafs */
    CHECK_EQ_U64(le64(d + 32 + 8 + 256), 10); /* challenges */
    CHECK(tu_json_str(sc, "comm_r_old", h, sizeof(h)) && strlen(h) == 64);
    CHECK(tu_json_str(sc, "comm_r_new", h, sizeof(h)) && strlen(h) == 64);
    CHECK(tu_json_str(sc, "comm_d_new", h, sizeof(h)) && strlen(h) == 64);
    free(d);
    free(txt);
    free(sc);
}

/* ---- the same sector through --workdir ----------------------------------------------------- */

TEST(gen_workdir_reuses_the_sector)
{
    tu_result r;
    char wd[512], *a, *b, ra[80], rb[80];

    snprintf(wd, sizeof(wd), "%s", tu_path("sector-cache"));
    tu_bench(&r, "gen-vanilla", "porep", "--sector-size", "2KiB", "--out", tu_path("wd_c1.json"),
             "--seed", "c0ffee", "--workdir", wd, NULL);
    CHECK_EQ_U64(r.status, 0);
    tu_result_clear(&r);
    CHECK(tu_exists(tu_path("sector-cache/sector.meta")));
    /* same seed and ids: window-post loads the sector sealed for porep */
    tu_bench(&r, "gen-vanilla", "window-post", "--sector-size", "2KiB", "--out",
             tu_path("wd_post.bin"), "--seed", "c0ffee", "--workdir", wd, NULL);
    CHECK_EQ_U64(r.status, 0);
    CHECK(strstr(r.err, "using the sector in") != NULL);
    tu_result_clear(&r);
    a = (char *)tu_read(tu_path("wd_c1.json.json"), NULL);
    b = (char *)tu_read(tu_path("wd_post.bin.json"), NULL);
    CHECK(a && b);
    CHECK(tu_json_str(a, "comm_r", ra, sizeof(ra)) && tu_json_str(b, "comm_r", rb, sizeof(rb)));
    CHECK_STR_EQ(ra, rb);
    free(a);
    free(b);
    /* another miner does not own that sector */
    tu_bench(&r, "gen-vanilla", "window-post", "--sector-size", "2KiB", "--out",
             tu_path("wd_post2.bin"), "--seed", "c0ffee", "--workdir", wd, "--miner-id", "7", NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(strstr(r.err, "holds a sector of another") != NULL);
    tu_result_clear(&r);
}

/* --cc: one committed-capacity sector serves all four kinds (snap upgrades it); the kinds
 * that want data refuse it without --cc, and --cc refuses a sector with data. */
TEST(gen_cc_sector_shared_by_every_kind)
{
    static const char *const kinds[] = {"porep", "winning-post", "window-post", "snap"};
    tu_result r;
    char wd[512], out[512], sc[600], comm[4][80];

    snprintf(wd, sizeof(wd), "%s", tu_path("cc-cache"));
    for (size_t i = 0; i < ARRAY_LEN(kinds); i++) {
        char *text;
        snprintf(out, sizeof(out), "%s", tu_path(kinds[i]));
        snprintf(out + strlen(out), sizeof(out) - strlen(out), "-cc.vp");
        tu_bench(&r, "gen-vanilla", kinds[i], "--sector-size", "2KiB", "--cc", "--out", out,
                 "--seed", "c0ffee", "--workdir", wd, NULL);
        CHECK_MSG(r.status == 0, "%s: %s", kinds[i], r.err);
        /* the first kind seals, the others load */
        CHECK_MSG((strstr(r.err, "using the sector in") != NULL) == (i > 0), "%s: %s", kinds[i],
                  r.err);
        tu_result_clear(&r);
        tu_bench(&r, "check-vanilla", "--type", kinds[i], "--vanilla", out, "--native", NULL);
        CHECK_MSG(r.status == 0, "%s: %s%s", kinds[i], r.out, r.err);
        tu_result_clear(&r);
        snprintf(sc, sizeof(sc), "%s.json", out);
        text = (char *)tu_read(sc, NULL);
        CHECK(text);
        /* the sealed sector's comm_r (snap: the sector key's, comm_r_old) */
        CHECK(tu_json_str(text, i == 3 ? "comm_r_old" : "comm_r", comm[i], sizeof(comm[i])));
        free(text);
        if (i > 0) {
            CHECK_STR_EQ(comm[i], comm[0]);
        }
    }
    /* porep without --cc wants data: the cached CC sector is refused */
    tu_bench(&r, "gen-vanilla", "porep", "--sector-size", "2KiB", "--out", tu_path("cc-x.json"),
             "--seed", "c0ffee", "--workdir", wd, NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(strstr(r.err, "committed-capacity (all-zero) sector: give --cc") != NULL);
    tu_result_clear(&r);
    /* --cc on a sector with data is refused */
    snprintf(wd, sizeof(wd), "%s", tu_path("data-cache"));
    tu_bench(&r, "gen-vanilla", "window-post", "--sector-size", "2KiB", "--out",
             tu_path("data-post.bin"), "--seed", "c0ffee", "--workdir", wd, NULL);
    CHECK_EQ_U64(r.status, 0);
    tu_result_clear(&r);
    tu_bench(&r, "gen-vanilla", "snap", "--sector-size", "2KiB", "--cc", "--out",
             tu_path("data-snap.vp"), "--seed", "c0ffee", "--workdir", wd, NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(strstr(r.err, "--cc needs another --workdir") != NULL);
    tu_result_clear(&r);
    /* --cc excludes --synthetic */
    tu_bench(&r, "gen-vanilla", "porep", "--sector-size", "2KiB", "--cc", "--synthetic", "--out",
             tu_path("cc-y.json"), NULL);
    CHECK_EQ_U64(r.status, 2);
    tu_result_clear(&r);
}

/* ---- a changed byte is found, precisely ------------------------------------------------------ */

TEST(flipped_post_bytes_fail_precisely)
{
    gen_only("winning-post", "wf.bin");
    /* the low bit of the first sibling hash of the first inclusion proof (offset from spec 2.2:
     * sector_id, comm_r, two counts, variant, root, leaf, path length, hash count) */
    flip_copy("wf.bin", "wf_sib.bin", 8 + 32 + 8 + 8 + 4 + 32 + 32 + 8 + 8, 0x01);
    expect_check("winning-post", "wf_sib.bin", 1, "constraint", "is not satisfied: sector_0/");
    /* the ProofData variant tag of that inclusion proof: 0 -> 9 */
    flip_copy("wf.bin", "wf_tag.bin", 56, 0x09);
    expect_check("winning-post", "wf_tag.bin", 1, "inclusion_proofs[0]", "variant 9");
    /* the sector id: the leaf challenges the verifier derives change */
    flip_copy("wf.bin", "wf_sid.bin", 0, 0x01);
    expect_check("winning-post", "wf_sid.bin", 1, "public input", "differs from the verifier's");
    /* comm_r: the circuit's comm_r = Poseidon(comm_c, comm_r_last) fails */
    flip_copy("wf.bin", "wf_commr.bin", 8, 0x01);
    expect_check("winning-post", "wf_commr.bin", 1, "is not satisfied", NULL);
}

TEST(flipped_porep_byte_fails_precisely)
{
    char *c1, *p, *end, num[8];
    unsigned long v;

    gen_only("porep", "pf.json");
    c1 = (char *)tu_read(tu_path("pf.json"), NULL);
    CHECK(c1);
    /* the first challenge's data leaf, low bit flipped: v ^ 1 keeps the digit count */
    p = strstr(strstr(c1, "\"comm_d_proofs\""), "\"leaf\":[");
    CHECK(p);
    p += strlen("\"leaf\":[");
    v = strtoul(p, &end, 10);
    snprintf(num, sizeof(num), "%lu", v ^ 1);
    CHECK_EQ_U64(strlen(num), (size_t)(end - p));
    memcpy(p, num, strlen(num));
    tu_write(tu_path("pf_leaf.json"), c1, strlen(c1));
    expect_check("porep", "pf_leaf.json", 1, "is not satisfied: challenge_0/", "comm_d_inclusion");
    /* a broken document: the parse error names where */
    p = strstr(c1, "\"seed\":[");
    CHECK(p);
    p[7] = '{';
    tu_write(tu_path("pf_json.json"), c1, strlen(c1));
    expect_check("porep", "pf_json.json", 1, "pf_json.json", "seed");
    free(c1);
}

TEST(flipped_snap_byte_fails_precisely)
{
    char *txt, *enc, *doc;
    const char *s[2];
    size_t l[2], len;
    uint8_t *d;

    gen_only("snap", "sf.json");
    txt = (char *)tu_read(tu_path("sf.json"), NULL);
    CHECK(txt && json_list(txt, s, l, 2) == 1);
    d = b64dec(s[0], l[0], &len);
    /* the first sibling of the first challenge's proof_r_old (spec 3.2): comm_c, apex count,
     * 8 apex leafs, challenge count, variant, root, leaf, path length, hash count */
    d[32 + 8 + 8 * 32 + 8 + 4 + 32 + 32 + 8 + 8] ^= 0x01;
    enc = b64enc(d, len);
    doc = malloc(strlen(enc) + 8);
    CHECK(doc);
    sprintf(doc, "[\"%s\"]", enc);
    tu_write(tu_path("sf_sib.json"), doc, strlen(doc));
    tu_copy(tu_path("sf.json.json"), tu_path("sf_sib.json.json"));
    expect_check("snap", "sf_sib.json", 1, "is not satisfied", "tree_r_old");
    free(doc);
    free(enc);
    free(d);
    free(txt);
}

TEST(flipped_window_post_truncated)
{
    size_t len;
    uint8_t *d;

    gen_only("window-post", "wt.bin");
    d = tu_read(tu_path("wt.bin"), &len);
    CHECK(d);
    tu_write(tu_path("wt_short.bin"), d, len - 1);
    tu_copy(tu_path("wt.bin.json"), tu_path("wt_short.bin.json"));
    expect_check("window-post", "wt_short.bin", 1, "wt_short.bin", NULL);
    free(d);
}

/* ---- usage errors: exit 2 ----------------------------------------------------------------- */

TEST(usage_errors)
{
    tu_result r;

    tu_bench(&r, "gen-vanilla", "porep", "--sector-size", "4KiB", "--out", tu_path("x"), NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(strstr(r.err, "registered proofs exist only for") != NULL);
    tu_result_clear(&r);
    tu_bench(&r, "gen-vanilla", "nope", "--sector-size", "2KiB", "--out", tu_path("x"), NULL);
    CHECK_EQ_U64(r.status, 2);
    tu_result_clear(&r);
    tu_bench(&r, "gen-vanilla", "snap", "--sector-size", "2KiB", "--out", tu_path("x"), "--sectors",
             "2", NULL);
    CHECK_EQ_U64(r.status, 2);
    tu_result_clear(&r);
    tu_bench(&r, "check-vanilla", "--type", "window-post", "--vanilla", tu_path("missing.bin"),
             NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(strstr(r.err, "missing.bin") != NULL);
    tu_result_clear(&r);
    tu_bench(&r, "gen-vanilla", "--help", NULL);
    CHECK_EQ_U64(r.status, 0);
    CHECK(strstr(r.out, "--sector-size") != NULL);
    tu_result_clear(&r);
    tu_bench(&r, "check-vanilla", "--help", NULL);
    CHECK_EQ_U64(r.status, 0);
    CHECK(tu_has(r.out, "--vanilla FILE...", "--native", NULL));
    tu_result_clear(&r);

    /* a sidecar of another kind */
    gen_only("window-post", "ue.bin");
    tu_bench(&r, "check-vanilla", "--type", "winning-post", "--vanilla", tu_path("ue.bin"), NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(strstr(r.err, "describes a window-post proof") != NULL);
    tu_result_clear(&r);
    /* without the sidecar, randomness is missing */
    tu_bench(&r, "check-vanilla", "--type", "window-post", "--vanilla", tu_path("ue.bin"),
             "--no-sidecar", "--sector-size", "2KiB", NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(strstr(r.err, "needs --randomness") != NULL);
    tu_result_clear(&r);
    /* a JSON list that is not one */
    tu_write(tu_path("bad_list.json"), "[\"AAA*\"]", 8);
    tu_bench(&r, "check-vanilla", "--type", "snap", "--vanilla", tu_path("bad_list.json"),
             "--sector-size", "2KiB", NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(strstr(r.err, "not a JSON list of base64 proofs") != NULL);
    tu_result_clear(&r);
}
