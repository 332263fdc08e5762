/* gen_corpus.c - writes the seed corpora of tests/fuzz/corpus/<target>/ with our own encoders,
 * or checks that the committed seeds are still exactly what the encoders produce.
 *
 *   fuzz_gen_corpus write DIR      (re)writes DIR/<target>/<seed> for every seed below
 *   fuzz_gen_corpus write-all DIR  the same plus seeds too large to commit (a 2 KiB C1 as
 *                                  JSON and in Curio's wrapper), for local libFuzzer runs
 *   fuzz_gen_corpus check DIR      fails if a seed below is missing from DIR or differs
 *
 * Seeds named ok-* must be accepted by their target and bad-* rejected (driver.c checks both);
 * others are just starting points. Everything is deterministic (fixed scalars, fixed setup
 * seed, fixed r and s), and each target's seeds stay well under 50 KB. Files in DIR that are
 * not generated here (inputs taken from other tools, reproducers of fixed bugs) are left alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/bytes.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp.h"
#include "field/fr.h"
#include "groth16/groth16.h"
#include "iden3.h"
#include "r1cs/r1cs.h"

#if FUZZ_GEN_PROOFS
#    include "proofs/proofs.h"
#endif
#if FUZZ_GEN_CONFIG
#    include "config/config.h"
#endif
#if FUZZ_GEN_SERVER
#    include "cuzk/v1/proving.pb-c.h"
#endif

typedef struct out {
    const char *root;
    bool check;
    bool large; /* also write the seeds too large to commit (write-all) */
    unsigned bad;
    unsigned count;
} out;

static void emit(out *o, const char *target, const char *name, const void *data, size_t n)
{
    char path[4096];
    FILE *f;

    o->count++;
    snprintf(path, sizeof(path), "%s/%s/%s", o->root, target, name);
    if (o->check) {
        uint8_t *old;
        long len;
        f = fopen(path, "rb");
        if (!f) {
            fprintf(stderr, "missing seed %s\n", path);
            o->bad++;
            return;
        }
        fseek(f, 0, SEEK_END);
        len = ftell(f);
        fseek(f, 0, SEEK_SET);
        old = malloc(len > 0 ? (size_t)len : 1);
        if (!old || len != (long)n || fread(old, 1, n, f) != n || memcmp(old, data, n) != 0) {
            fprintf(stderr, "seed %s differs from what the encoders produce now\n", path);
            o->bad++;
        }
        free(old);
        fclose(f);
        return;
    }
    snprintf(path, sizeof(path), "%s/%s", o->root, target);
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "mkdir %s: %s\n", path, strerror(errno));
        exit(2);
    }
    snprintf(path, sizeof(path), "%s/%s/%s", o->root, target, name);
    f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
}

static void emit_str(out *o, const char *target, const char *name, const char *text)
{
    emit(o, target, name, text, strlen(text));
}

/* Big-endian increment (p-1 -> p and the like). */
static void be_inc(uint8_t *b, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        if (++b[i] != 0) {
            return;
        }
    }
}

/* ---- common ----------------------------------------------------------------------------------- */

static void gen_base64(out *o)
{
    emit_str(o, "base64", "ok-foobar.txt", "Zm9vYmFy"); /* RFC 4648 section 10 */
    emit_str(o, "base64", "ok-padded.txt", "Zm9vYg==");
    emit_str(o, "base64", "ok-alphabet.txt", "+/+/");
    emit_str(o, "base64", "bad-non-canonical.txt", "Zh==");
    emit_str(o, "base64", "bad-padding.txt", "Z===");
    emit_str(o, "base64", "bad-length.txt", "Zm9vY");
}

/* ---- field ----------------------------------------------------------------------------------- */

static void gen_field(out *o)
{
    uint8_t b[FP_NBYTES];
    fp_t a;
    fr_t s;

    fp_from_u64(&a, 0);
    fp_to_bytes(b, &a);
    emit(o, "field", "ok-fp-zero.bin", b, FP_NBYTES);
    fp_from_u64(&a, 1);
    fp_to_bytes(b, &a);
    emit(o, "field", "ok-fp-one.bin", b, FP_NBYTES);
    fp_neg(&a, &a);
    fp_to_bytes(b, &a);
    emit(o, "field", "ok-fp-p-minus-1.bin", b, FP_NBYTES);
    be_inc(b, FP_NBYTES);
    emit(o, "field", "bad-fp-p.bin", b, FP_NBYTES);
    fp_from_u64(&a, 0x0123456789abcdefull);
    fp_sqr(&a, &a);
    fp_sqr(&a, &a);
    fp_sqr(&a, &a);
    fp_to_bytes(b, &a);
    emit(o, "field", "ok-fp-power.bin", b, FP_NBYTES);
    memset(b, 0xff, sizeof(b));
    emit(o, "field", "bad-fp-all-ff.bin", b, FP_NBYTES);

    fr_from_u64(&s, 0);
    fr_to_bytes(b, &s);
    emit(o, "field", "ok-fr-zero.bin", b, FR_NBYTES);
    fr_from_u64(&s, 1);
    fr_to_bytes(b, &s);
    emit(o, "field", "ok-fr-one.bin", b, FR_NBYTES);
    fr_neg(&s, &s);
    fr_to_bytes(b, &s);
    emit(o, "field", "ok-fr-r-minus-1.bin", b, FR_NBYTES);
    b[0]++; /* r - 1 ends in ...00 (LE byte 0 = 0x00): + 1 gives r without carry */
    emit(o, "field", "bad-fr-r.bin", b, FR_NBYTES);
    memset(b, 0xff, sizeof(b));
    emit(o, "field", "bad-fr-all-ff.bin", b, FR_NBYTES);
}

/* ---- curve ----------------------------------------------------------------------------------- */

static void g1_scalar(g1_aff_t *res, uint64_t k)
{
    g1_t j, r;
    g1_from_aff(&j, &G1_GEN);
    g1_mul_limbs(&r, &j, &k, 1);
    g1_to_aff(res, &r);
}

static void g2_scalar(g2_aff_t *res, uint64_t k)
{
    g2_t j, r;
    g2_from_aff(&j, &G2_GEN);
    g2_mul_limbs(&r, &j, &k, 1);
    g2_to_aff(res, &r);
}

static void gen_g1(out *o)
{
    uint8_t c[G1_COMPRESSED_NBYTES], u[G1_UNCOMPRESSED_NBYTES];
    g1_aff_t p;

    g1_aff_to_compressed(c, &G1_GEN);
    g1_aff_to_uncompressed(u, &G1_GEN);
    emit(o, "g1", "ok-gen-compressed.bin", c, sizeof(c));
    emit(o, "g1", "ok-gen-uncompressed.bin", u, sizeof(u));
    g1_aff_neg(&p, &G1_GEN);
    g1_aff_to_compressed(c, &p);
    emit(o, "g1", "ok-neg-gen-compressed.bin", c, sizeof(c));
    g1_scalar(&p, 0x9e3779b97f4a7c15ull);
    g1_aff_to_compressed(c, &p);
    g1_aff_to_uncompressed(u, &p);
    emit(o, "g1", "ok-mul-compressed.bin", c, sizeof(c));
    emit(o, "g1", "ok-mul-uncompressed.bin", u, sizeof(u));
    g1_aff_set_identity(&p);
    g1_aff_to_compressed(c, &p);
    g1_aff_to_uncompressed(u, &p);
    emit(o, "g1", "ok-identity-compressed.bin", c, sizeof(c));
    emit(o, "g1", "ok-identity-uncompressed.bin", u, sizeof(u));

    /* A point on the curve outside G1: the first x = 1, 2, ... with x^3 + 4 a square. */
    for (uint64_t x = 1;; x++) {
        g1_aff_t q;
        fp_t fx;
        fp_from_u64(&fx, x);
        fp_to_bytes(c, &fx);
        c[0] |= 0x80;
        if (g1_aff_from_compressed(&q, c, false) == CUZK_OK && !g1_aff_is_in_group(&q)) {
            emit(o, "g1", "ok-outside-g1-compressed.bin", c, sizeof(c));
            g1_aff_to_uncompressed(u, &q);
            emit(o, "g1", "ok-outside-g1-uncompressed.bin", u, sizeof(u));
            break;
        }
    }

    /* Rejected encodings. */
    g1_aff_to_compressed(c, &G1_GEN);
    c[0] &= 0x7f;
    emit(o, "g1", "bad-no-compression-flag.bin", c, sizeof(c));
    g1_aff_to_uncompressed(u, &G1_GEN);
    u[G1_UNCOMPRESSED_NBYTES - 1] ^= 1;
    emit(o, "g1", "bad-off-curve-uncompressed.bin", u, sizeof(u));
    memset(c, 0, sizeof(c));
    c[0] = 0xc0;
    c[47] = 1;
    emit(o, "g1", "bad-identity-nonzero.bin", c, sizeof(c));
    memset(c, 0, sizeof(c));
    c[0] = 0x80;
    emit(o, "g1", "bad-x-zero.bin", c, sizeof(c));
}

static void gen_g2(out *o)
{
    uint8_t c[G2_COMPRESSED_NBYTES], u[G2_UNCOMPRESSED_NBYTES];
    g2_aff_t p;

    g2_aff_to_compressed(c, &G2_GEN);
    g2_aff_to_uncompressed(u, &G2_GEN);
    emit(o, "g2", "ok-gen-compressed.bin", c, sizeof(c));
    emit(o, "g2", "ok-gen-uncompressed.bin", u, sizeof(u));
    g2_aff_neg(&p, &G2_GEN);
    g2_aff_to_compressed(c, &p);
    emit(o, "g2", "ok-neg-gen-compressed.bin", c, sizeof(c));
    g2_scalar(&p, 0x9e3779b97f4a7c15ull);
    g2_aff_to_compressed(c, &p);
    g2_aff_to_uncompressed(u, &p);
    emit(o, "g2", "ok-mul-compressed.bin", c, sizeof(c));
    emit(o, "g2", "ok-mul-uncompressed.bin", u, sizeof(u));
    g2_aff_set_identity(&p);
    g2_aff_to_compressed(c, &p);
    g2_aff_to_uncompressed(u, &p);
    emit(o, "g2", "ok-identity-compressed.bin", c, sizeof(c));
    emit(o, "g2", "ok-identity-uncompressed.bin", u, sizeof(u));

    /* A point on E' outside G2: the first x = 1, 2, ... (as x.c0) with a square x^3 + b'. */
    for (uint64_t x = 1;; x++) {
        g2_aff_t q;
        fp_t fx;
        memset(c, 0, sizeof(c));
        fp_from_u64(&fx, x);
        fp_to_bytes(c + FP_NBYTES, &fx);
        c[0] |= 0x80;
        if (g2_aff_from_compressed(&q, c, false) == CUZK_OK && !g2_aff_is_in_group(&q)) {
            emit(o, "g2", "ok-outside-g2-compressed.bin", c, sizeof(c));
            g2_aff_to_uncompressed(u, &q);
            emit(o, "g2", "ok-outside-g2-uncompressed.bin", u, sizeof(u));
            break;
        }
    }

    g2_aff_to_compressed(c, &G2_GEN);
    c[0] &= 0x7f;
    emit(o, "g2", "bad-no-compression-flag.bin", c, sizeof(c));
    g2_aff_to_uncompressed(u, &G2_GEN);
    u[G2_UNCOMPRESSED_NBYTES - 1] ^= 1;
    emit(o, "g2", "bad-off-curve-uncompressed.bin", u, sizeof(u));
    memset(u, 0, sizeof(u));
    u[0] = 0x60;
    emit(o, "g2", "bad-identity-sign.bin", u, sizeof(u));
}

/* ---- groth16 ---------------------------------------------------------------------------------- */

/* A small circuit with one public input y and aux x, x2, x3: x * x = x2, x2 * x = x3,
 * (x3 + x + 5) * 1 = y (y = 35 for x = 3). */
static void cube_synth(cs_t *cs, uint64_t xv)
{
    fr_t v[4], five;
    cs_var_t y, x, x2, x3;
    bool vals = cs_has_values(cs);
    cs_lc_t a, b, c;

    fr_from_u64(&v[1], xv);
    fr_mul(&v[2], &v[1], &v[1]);
    fr_mul(&v[3], &v[2], &v[1]);
    fr_from_u64(&five, 5);
    fr_add(&v[0], &v[3], &v[1]);
    fr_add(&v[0], &v[0], &five);
    (void)cs_alloc_input(cs, &y, vals ? &v[0] : NULL);
    (void)cs_alloc(cs, &x, vals ? &v[1] : NULL);
    (void)cs_alloc(cs, &x2, vals ? &v[2] : NULL);
    (void)cs_alloc(cs, &x3, vals ? &v[3] : NULL);
    a = cs_lc_of(cs, x);
    b = cs_lc_of(cs, x);
    c = cs_lc_of(cs, x2);
    (void)cs_enforce(cs, &a, &b, &c, "x2");
    a = cs_lc_of(cs, x2);
    b = cs_lc_of(cs, x);
    c = cs_lc_of(cs, x3);
    (void)cs_enforce(cs, &a, &b, &c, "x3");
    a = cs_lc_of(cs, x3);
    cs_lc_add_var(cs, &a, x);
    cs_lc_add(cs, &a, &five, CS_ONE);
    b = cs_lc_of(cs, CS_ONE);
    c = cs_lc_of(cs, y);
    (void)cs_enforce(cs, &a, &b, &c, "y");
}

static void must(cuzk_err err, const char *what)
{
    if (err != CUZK_OK) {
        fprintf(stderr, "%s failed: %s\n", what, cuzk_strerror(err));
        exit(2);
    }
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;

    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void prove_cube(g16_proof_t *proof, const g16_params_t *p, uint64_t x, uint64_t rs)
{
    cs_t *cs = NULL;
    cs_assignment_t asg;
    fr_t r, s;

    must(cs_new_prover(&cs, NULL, NULL), "cs_new_prover");
    cube_synth(cs, x);
    must(cs_finish(cs, NULL), "cs_finish");
    must(cs_take_assignment(cs, &asg, NULL), "cs_take_assignment");
    cs_free(cs);
    fr_from_u64(&r, rs);
    fr_from_u64(&s, rs + 1);
    must(g16_prove(p, proof, &asg, &r, &s, NULL, NULL), "g16_prove");
    cs_assignment_clear(&asg);
}

static void gen_groth16(out *o, const char *tmpdir)
{
    const uint64_t seed = 20240601;
    char path[4096];
    cs_t *cs = NULL;
    cs_r1cs_t r1cs;
    g16_params_t *p = NULL;
    g16_proof_t proofs[2];
    uint8_t pb[2 * G16_PROOF_NBYTES], *vk, *params;
    size_t vk_len, params_len;

    must(cs_new_recorder(&cs, NULL), "cs_new_recorder");
    cube_synth(cs, 0);
    must(cs_finish(cs, NULL), "cs_finish");
    must(cs_take_r1cs(cs, &r1cs, NULL), "cs_take_r1cs");
    cs_free(cs);
    must(g16_setup(&p, &r1cs, &seed, NULL, NULL), "g16_setup");
    cs_r1cs_clear(&r1cs);

    snprintf(path, sizeof(path), "%s/fuzz-seed-%ld.params", tmpdir, (long)getpid());
    must(g16_params_write(p, path, NULL, NULL), "g16_params_write");
    params = slurp(path, &params_len);
    remove(path);
    emit(o, "g16_params", "ok-cube.params", params, params_len);
    emit(o, "g16_params", "bad-cube-truncated.params", params, params_len - 1);
    params[params_len - 1] ^= 0x01; /* last coordinate of the last b_g2 point: off the curve */
    emit(o, "g16_params", "bad-cube-off-curve.params", params, params_len);
    free(params);

    vk_len = g16_vk_nbytes(&p->vk);
    vk = malloc(vk_len + 1);
    if (!vk) {
        exit(2);
    }
    g16_vk_to_bytes(vk, &p->vk);
    emit(o, "g16_vk", "ok-cube.vk", vk, vk_len);
    emit(o, "g16_vk", "bad-cube-truncated.vk", vk, vk_len - 1);
    vk[vk_len] = 0;
    emit(o, "g16_vk", "bad-cube-trailing.vk", vk, vk_len + 1);
    free(vk);

    prove_cube(&proofs[0], p, 3, 11);
    prove_cube(&proofs[1], p, 4, 13);
    g16_proofs_to_bytes(pb, proofs, 2);
    emit(o, "g16_proof", "ok-cube.proof", pb, G16_PROOF_NBYTES);
    emit(o, "g16_proof", "ok-cube-two.proof", pb, 2 * G16_PROOF_NBYTES);
    memset(pb, 0, G1_COMPRESSED_NBYTES);
    pb[0] = 0xc0; /* A = identity */
    emit(o, "g16_proof", "bad-identity-a.proof", pb, G16_PROOF_NBYTES);
    g16_params_free(p);
}

/* ---- circom ---------------------------------------------------------------------------------- */

/* One term of an r1cs LC: wire and a small coefficient (negative = r - |c|). */
static void r1cs_term(iden3_buf *b, uint32_t wire, int64_t coeff)
{
    uint8_t c[FR_NBYTES];
    fr_t v;

    fr_from_u64(&v, (uint64_t)(coeff < 0 ? -coeff : coeff));
    if (coeff < 0) {
        fr_neg(&v, &v);
    }
    fr_to_bytes(c, &v);
    iden3_u32(b, wire);
    iden3_put(b, c, FR_NBYTES);
}

/* An LC of one term. */
static void r1cs_lc1(iden3_buf *b, uint32_t wire, int64_t coeff)
{
    iden3_u32(b, 1);
    r1cs_term(b, wire, coeff);
}

/* The cube circuit of gen_groth16 as circom would number it: wire 0 ONE, 1 y (public output),
 * 2 x (private input), 3 x2, 4 x3; constraints x * x = x2, x2 * x = x3, 1 * (x3 + x + 5) = y
 * (written as A = ONE, B = x3 + x + 5 ONE, C = y). */
static size_t cube_r1cs(uint8_t *buf, size_t cap)
{
    iden3_buf b = {buf, 0, cap};
    const uint64_t cons = 9 * 4 + 11 * (4 + FR_NBYTES);

    iden3_header(&b, "r1cs", 1, 3);
    iden3_section(&b, 1, 64);
    iden3_field(&b);
    iden3_u32(&b, 5); /* wires */
    iden3_u32(&b, 1); /* public outputs */
    iden3_u32(&b, 0); /* public inputs */
    iden3_u32(&b, 1); /* private inputs */
    iden3_u64(&b, 5); /* labels */
    iden3_u32(&b, 3); /* constraints */
    iden3_section(&b, 2, cons);
    r1cs_lc1(&b, 2, 1); /* x * x = x2 */
    r1cs_lc1(&b, 2, 1);
    r1cs_lc1(&b, 3, 1);
    r1cs_lc1(&b, 3, 1); /* x2 * x = x3 */
    r1cs_lc1(&b, 2, 1);
    r1cs_lc1(&b, 4, 1);
    r1cs_lc1(&b, 0, 1); /* 1 * (x3 + x + 5) = y */
    iden3_u32(&b, 3);
    r1cs_term(&b, 4, 1);
    r1cs_term(&b, 2, 1);
    r1cs_term(&b, 0, 5);
    r1cs_lc1(&b, 1, 1);
    iden3_section(&b, 3, 5 * 8); /* wire-to-label map: wire i has label i */
    for (uint64_t i = 0; i < 5; i++) {
        iden3_u64(&b, i);
    }
    return b.len;
}

static size_t cube_wtns(uint8_t *buf, size_t cap, uint32_t version, uint64_t x)
{
    iden3_buf b = {buf, 0, cap};
    fr_t v[5];

    fr_from_u64(&v[0], 1);
    fr_from_u64(&v[2], x);
    fr_mul(&v[3], &v[2], &v[2]);
    fr_mul(&v[4], &v[3], &v[2]);
    fr_from_u64(&v[1], 5);
    fr_add(&v[1], &v[1], &v[4]);
    fr_add(&v[1], &v[1], &v[2]);
    iden3_header(&b, "wtns", version, 2);
    iden3_section(&b, 1, 40);
    iden3_field(&b);
    iden3_u32(&b, 5);
    iden3_section(&b, 2, 5 * FR_NBYTES);
    for (int i = 0; i < 5; i++) {
        uint8_t c[FR_NBYTES];
        fr_to_bytes(c, &v[i]);
        iden3_put(&b, c, FR_NBYTES);
    }
    return b.len;
}

static void gen_circom(out *o)
{
    uint8_t buf[1024];
    size_t n;

    n = cube_r1cs(buf, sizeof(buf));
    emit(o, "circom_r1cs", "ok-cube.r1cs", buf, n);
    emit(o, "circom_r1cs", "bad-cube-truncated.r1cs", buf, n - 1);
    buf[4] = 2; /* version 2 does not exist */
    emit(o, "circom_r1cs", "bad-cube-version.r1cs", buf, n);
    n = cube_wtns(buf, sizeof(buf), 2, 3);
    emit(o, "circom_wtns", "ok-cube-v2.wtns", buf, n);
    n = cube_wtns(buf, sizeof(buf), 1, 4);
    emit(o, "circom_wtns", "ok-cube-v1.wtns", buf, n);
    memset(buf + n - FR_NBYTES, 0xff, FR_NBYTES); /* last value >= r */
    emit(o, "circom_wtns", "bad-cube-noncanonical.wtns", buf, n);
}

/* ---- vanilla proofs -------------------------------------------------------------------------- */

#if FUZZ_GEN_PROOFS
/* Deterministic 2 KiB sector: prover id, sector id, ticket and data from fixed patterns (each
 * node below 2^254). */
static seal_sector *seal_2k(void)
{
    seal_porep_config cfg;
    seal_ids ids;
    seal_node data[64];
    seal_sector *s = NULL;

    if (!seal_porep_config_for_id(&cfg, 5)) {
        exit(2);
    }
    memset(&ids, 0, sizeof(ids));
    for (int i = 0; i < 32; i++) {
        ids.prover_id[i] = (uint8_t)(i * 7 + 1);
        ids.ticket[i] = (uint8_t)(i * 13 + 5);
    }
    ids.prover_id[31] &= 0x3f;
    ids.ticket[31] &= 0x3f;
    ids.sector_id = 4242;
    for (int v = 0; v < 64; v++) {
        for (int i = 0; i < 32; i++) {
            data[v].b[i] = (uint8_t)(v * 31 + i * 3);
        }
        data[v].b[31] &= 0x3f;
    }
    must(seal_sector_seal(&s, &cfg, &ids, data, NULL, NULL), "seal_sector_seal");
    return s;
}

/* Seeds of fuzz_proofs_files: a list of two proofs, one raw proof, a sidecar. */
static void gen_proof_files(out *o, const vp_snap_proof *sp)
{
    vp_blobs b = {0};
    vp_sidecar sc;
    uint8_t *bin, *bytes;
    size_t len;
    const char *enc;
    char *json;

    for (int i = 0; i < 2; i++) {
        must(vp_snap_to_bincode(sp, &bin, &len, NULL), "vp_snap_to_bincode");
        must(vp_blobs_push(&b, bin, len < 96 ? len : 96, NULL), "vp_blobs_push");
    }
    must(vp_proof_file_encode(&b, &bytes, &len, &enc, NULL), "vp_proof_file_encode");
    emit(o, "proofs_files", "ok-list.json", bytes, len);
    cz_free(bytes);
    emit(o, "proofs_files", "ok-raw.bincode", b.data[0], b.len[0]);
    vp_blobs_clear(&b);
    memset(&sc, 0, sizeof(sc));
    strcpy(sc.kind, "snap");
    sc.vanilla = "snap-vproof.json";
    sc.sector_size = 2048;
    sc.miner_id = 1000;
    sc.has_sector_size = sc.has_miner_id = sc.has_comm_r_old = true;
    sc.comm_r_old[0] = 0xab;
    must(vp_sidecar_to_json(&sc, &json, &len, NULL), "vp_sidecar_to_json");
    emit(o, "proofs_files", "ok-sidecar.json", json, len);
    cz_free(json);
}

static void gen_proofs(out *o)
{
    static const uint8_t seed[32] = {9, 8, 7, 6, 5, 4, 3, 2, 1};
    static const uint8_t rnd[32] = {0x11, 0x22, 0x33};
    seal_sector *s = seal_2k();
    seal_post_config pc;
    seal_update_config uc;
    seal_update *u = NULL;
    vp_c1 c1;
    vp_post_proof pp;
    vp_snap_proof sp;
    char *json = NULL;
    uint8_t *bin = NULL;
    size_t len = 0;

    must(vp_gen_porep_c1(&c1, s, seed, NULL, NULL), "vp_gen_porep_c1");
    /* The JSON forms of a 2 KiB C1 are ~100 KB and ~133 KB: committed are the bincode form
     * (28 KB; fuzz_proofs_c1 derives both JSON forms from it) and the start of the JSON. */
    must(vp_c1_to_json(&c1, &json, &len, NULL), "vp_c1_to_json");
    if (o->large) {
        emit(o, "proofs_c1", "ok-2k.json", json, len);
    }
    emit(o, "proofs_c1", "start-2k-head.json", json, len < 3000 ? len : 3000);
    cz_free(json);
    if (o->large) {
        must(vp_c1_to_curio_json(&c1, 17, &json, &len, NULL), "vp_c1_to_curio_json");
        emit(o, "proofs_c1", "ok-2k-curio.json", json, len);
        cz_free(json);
    }
    emit_str(o, "proofs_c1", "start-curio-wrapper.json",
             "{\"SectorNum\":1,\"Phase1Out\":\"e30=\",\"SectorSize\":2048}");
    must(vp_c1_to_bincode(&c1, &bin, &len, NULL), "vp_c1_to_bincode");
    emit(o, "proofs_c1", "ok-2k.bincode", bin, len);
    cz_free(bin);
    vp_c1_clear(&c1);

    if (!seal_post_config_for_id(&pc, 10)) {
        exit(2);
    }
    must(vp_gen_post(&pp, s, &pc, rnd, 0, NULL), "vp_gen_post");
    must(vp_post_to_bincode(&pp, &bin, &len, NULL), "vp_post_to_bincode");
    emit(o, "proofs_post", "ok-2k-window.bincode", bin, len);
    emit(o, "proofs_post", "bad-2k-window-truncated.bincode", bin, len - 1);
    cz_free(bin);
    vp_post_clear(&pp);

    if (!seal_update_config_for_size(&uc, 2048)) {
        exit(2);
    }
    must(seal_update_encode(&u, s, &uc, NULL, NULL, NULL), "seal_update_encode");
    must(vp_gen_snap(&sp, u, 0, NULL), "vp_gen_snap");
    must(vp_snap_to_bincode(&sp, &bin, &len, NULL), "vp_snap_to_bincode");
    emit(o, "proofs_snap", "ok-2k.bincode", bin, len);
    cz_free(bin);
    must(vp_snap_list_to_json(&sp, 1, &json, &len, NULL), "vp_snap_list_to_json");
    emit(o, "proofs_snap", "ok-2k-list.json", json, len);
    cz_free(json);
    gen_proof_files(o, &sp);
    vp_snap_clear(&sp);
    seal_update_free(u);
    seal_sector_free(s);
}
#endif

/* ---- config ---------------------------------------------------------------------------------- */

#if FUZZ_GEN_CONFIG
static void gen_config(out *o)
{
    srv_config cfg;
    char *text = NULL;
    size_t len = 0;
    FILE *f;

    unsetenv("FIL_PROOFS_PARAMETER_CACHE");
    must(srv_config_init(&cfg, NULL), "srv_config_init");
    f = open_memstream(&text, &len);
    if (!f) {
        exit(2);
    }
    srv_config_print(f, &cfg);
    fclose(f);
    emit(o, "config", "ok-defaults.toml", text, len);
    free(text);
    srv_config_clear(&cfg);
    emit_str(o, "config", "ok-rust-style.toml",
             "# cuzk daemon configuration\n"
             "[daemon]\n"
             "  listen = [\n"
             "      \"unix:///run/curio/cuzk.sock\",   # local clients\n"
             "      '0.0.0.0:9820',\n"
             "  ]\n"
             "  status_listen = \"0.0.0.0:9821\"\n"
             "  socket_mode = \"0600\"\n"
             "[srs]\n"
             "param_cache = \"/data/zk/\\u0070arams\"\n"
             "[memory]\n"
             "total_budget = \"256GiB\"\n"
             "safety_margin = 5_368_709_120\n"
             "eviction_min_idle = \"10m\"\n"
             "[gpus]\n"
             "devices = [0, 1]\n"
             "[scheduler]\n"
             "max_batch_size = 0x3\n"
             "max_batch_wait_ms = 30_000\n"
             "sort_by_type = false\n"
             "[pipeline]\n"
             "max_parallel_synthesis = 0o14\n"
             "max_active_jobs = 0b101\n"
             "[jobs]\n"
             "retention = 120\n"
             "[logging]\n"
             "level = \"debug\"\n");
    emit_str(o, "config", "ok-flags.txt",
             "--listen\n127.0.0.1:9999\n--listen=unix:///tmp/cuzk.sock\n"
             "--scheduler-max-batch-size=4\n--jobs-retention\n90s\n--memory-total-budget\n"
             "64GiB\n--log-level=warn");
    /* Reproducer of a fixed bug: --print-config wrote lines over inih's 200-character limit
     * and strings holding " ;" (inih's inline comment), which --config then refused. */
    emit_str(o, "config", "ok-flags-long-lines.txt",
             "--listen=unix:///run/curio/cuzk-0 ;.sock\n--listen=unix:///run/curio/cuzk-1.sock\n"
             "--listen=unix:///run/curio/cuzk-2.sock\n--listen=unix:///run/curio/cuzk-3.sock\n"
             "--listen=unix:///run/curio/cuzk-4.sock\n--listen=unix:///run/curio/cuzk-5.sock\n"
             "--param-cache\n/data/zk/params ;with a comment-like # part and = : [ ] '\"\n"
             "--log-level=info");
    emit_str(o, "config", "size-512MiB.txt", "512MiB");
    emit_str(o, "config", "bad-unknown-key.toml", "[daemon]\nno_such_key = 1\n");
    emit_str(o, "config", "bad-wrong-type.toml", "[scheduler]\nmax_batch_size = \"four\"\n");
}
#endif

/* ---- server ---------------------------------------------------------------------------------- */

#if FUZZ_GEN_SERVER

/* Appends one call record [method][u16 LE length][packed request] to buf. */
static size_t rpc_record(uint8_t *buf, size_t pos, size_t cap, unsigned method,
                         const ProtobufCMessage *m)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    if (pos + 3 + n > cap || n > 0xffff) {
        fprintf(stderr, "rpc seed too large\n");
        exit(2);
    }
    buf[pos] = (uint8_t)method;
    buf[pos + 1] = (uint8_t)n;
    buf[pos + 2] = (uint8_t)(n >> 8);
    protobuf_c_message_pack(m, buf + pos + 3);
    return pos + 3 + n;
}

static void gen_rpc(out *o)
{
    enum { SUBMIT, AWAIT, PROVE, CANCEL, STATUS, METRICS, PRELOAD, EVICT, UNKNOWN };
    static uint8_t rnd[32] = {1, 2, 3};
    static uint8_t vp[64] = {0x7b, 0x7d};
    uint8_t buf[4096];
    size_t n = 0;

    Cuzk__V1__SubmitProofRequest s = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
    s.request_id = "job-1";
    s.proof_kind = CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT;
    s.sector_size = 2048;
    s.registered_proof = 5;
    s.priority = CUZK__V1__PRIORITY__HIGH;
    s.vanilla_proof.data = vp;
    s.vanilla_proof.len = 2;
    s.sector_number = 7;
    s.miner_id = 1000;
    n = rpc_record(buf, n, sizeof(buf), SUBMIT, &s.base);
    Cuzk__V1__AwaitProofRequest a = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
    a.job_id = "job-1";
    a.timeout_ms = 1000;
    n = rpc_record(buf, n, sizeof(buf), AWAIT, &a.base);
    Cuzk__V1__GetStatusRequest st = CUZK__V1__GET_STATUS_REQUEST__INIT;
    n = rpc_record(buf, n, sizeof(buf), STATUS, &st.base);
    Cuzk__V1__GetMetricsRequest me = CUZK__V1__GET_METRICS_REQUEST__INIT;
    n = rpc_record(buf, n, sizeof(buf), METRICS, &me.base);
    emit(o, "rpc", "ok-submit-await-status.bin", buf, n);

    ProtobufCBinaryData vps[2] = {{sizeof(vp), vp}, {sizeof(vp), vp}};
    Cuzk__V1__SubmitProofRequest w = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
    w.proof_kind = CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION;
    w.sector_size = 34359738368ull;
    w.registered_proof = 13;
    w.n_vanilla_proofs = 2;
    w.vanilla_proofs = vps;
    w.randomness.data = rnd;
    w.randomness.len = sizeof(rnd);
    w.partition_index = 1;
    Cuzk__V1__ProveRequest pr = CUZK__V1__PROVE_REQUEST__INIT;
    pr.submit = &w;
    n = rpc_record(buf, 0, sizeof(buf), PROVE, &pr.base);
    Cuzk__V1__SubmitProofRequest u = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
    u.request_id = "snap-1";
    u.proof_kind = CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE;
    u.n_vanilla_proofs = 1;
    u.vanilla_proofs = vps;
    u.comm_r_old.data = rnd;
    u.comm_r_old.len = 32;
    u.comm_r_new.data = rnd;
    u.comm_r_new.len = 32;
    u.comm_d_new.data = rnd;
    u.comm_d_new.len = 32;
    n = rpc_record(buf, n, sizeof(buf), SUBMIT, &u.base);
    Cuzk__V1__CancelProofRequest c = CUZK__V1__CANCEL_PROOF_REQUEST__INIT;
    c.job_id = "snap-1";
    n = rpc_record(buf, n, sizeof(buf), CANCEL, &c.base);
    emit(o, "rpc", "ok-prove-submit-cancel.bin", buf, n);

    Cuzk__V1__PreloadSrsRequest pl = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
    pl.circuit_id = "porep-32g";
    n = rpc_record(buf, 0, sizeof(buf), PRELOAD, &pl.base);
    Cuzk__V1__EvictSrsRequest ev = CUZK__V1__EVICT_SRS_REQUEST__INIT;
    ev.circuit_id = "porep-32g";
    n = rpc_record(buf, n, sizeof(buf), EVICT, &ev.base);
    n = rpc_record(buf, n, sizeof(buf), STATUS, &st.base);
    emit(o, "rpc", "ok-preload-evict-status.bin", buf, n);

    /* Rejected: a submit with a request_id holding a control character, an await of an unknown
     * job, a request that is not protobuf, an unknown method. */
    Cuzk__V1__SubmitProofRequest b = s;
    b.request_id = "has\nnewline";
    n = rpc_record(buf, 0, sizeof(buf), SUBMIT, &b.base);
    a.job_id = "nobody";
    n = rpc_record(buf, n, sizeof(buf), AWAIT, &a.base);
    memcpy(buf + n, "\x00\x03\x00\xff\xff\xff", 6);
    n += 6;
    n = rpc_record(buf, n, sizeof(buf), UNKNOWN, &st.base);
    emit(o, "rpc", "bad-rejected-calls.bin", buf, n);
}
#endif

int main(int argc, char **argv)
{
    out o = {0};

    if (argc != 3 || (strcmp(argv[1], "write") != 0 && strcmp(argv[1], "write-all") != 0 &&
                      strcmp(argv[1], "check") != 0)) {
        fprintf(stderr, "usage: %s write|write-all|check DIR\n", argv[0]);
        return 2;
    }
    o.root = argv[2];
    o.check = strcmp(argv[1], "check") == 0;
    o.large = strcmp(argv[1], "write-all") == 0;
    gen_base64(&o);
    gen_field(&o);
    gen_g1(&o);
    gen_g2(&o);
    gen_groth16(&o, getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    gen_circom(&o);
#if FUZZ_GEN_PROOFS
    gen_proofs(&o);
#endif
#if FUZZ_GEN_CONFIG
    gen_config(&o);
#endif
#if FUZZ_GEN_SERVER
    gen_rpc(&o);
#endif
    printf("%s: %u seeds, %u problems\n", o.check ? "check" : "write", o.count, o.bad);
    return o.bad ? 1 : 0;
}
