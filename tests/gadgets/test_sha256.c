/* test_sha256.c - UInt32, MultiEq and the SHA-256 gadget.
 *
 * Counts from bellperson 0.27 (filecoin-project/bellperson
 * d1fa22cbed33ca5281a3c52ed8c91af5af64f3e3, src/gadgets/sha256.rs): test_blank_hash (0
 * constraints, digest of the empty message), test_full_block (num_constraints - 512 == 25840),
 * test_full_hash (num_constraints - 512 == 44874), test_against_vectors (input lengths 0..31
 * and 32..255 step 8 bytes); src/gadgets/uint32.rs tests. Digests are compared with OpenSSL's
 * SHA-256 (an independent implementation) and with hash/sha256.
 */
#include "harness/test.h"

#include <openssl/sha.h>

#include "gadgets/gadget_util.h"
#include "hash/sha256.h"

/* ---------------------------------------------------------------------------------------------
 * UInt32
 * ------------------------------------------------------------------------------------------- */

static void check_u32_bits(const gad_u32_t *x, uint32_t want)
{
    CHECK_EQ_U64(x->value, want);
    for (unsigned i = 0; i < 32; i++) {
        CHECK_EQ_U64(x->bits[i].value, (want >> i) & 1);
    }
}

TEST(uint32_from_bits_rotr_shr)
{
    cz_prng *g = test_prng();
    for (int it = 0; it < 1000; it++) {
        uint32_t v = (uint32_t)cz_prng_u64(g);
        gad_bool_t be[32], back[32];
        for (unsigned i = 0; i < 32; i++) {
            be[i] = gad_bool_const((v >> (31 - i)) & 1);
        }
        gad_u32_t x, r;
        gad_u32_from_bits_be(&x, be);
        check_u32_bits(&x, v);
        gad_u32_into_bits_be(back, &x);
        CHECK_MEM_EQ(back, be, sizeof(be));
        gad_u32_from_bits(&r, x.bits);
        check_u32_bits(&r, v);
        for (unsigned by = 0; by < 60; by++) {
            gad_u32_rotr(&r, &x, by);
            uint32_t s = by % 32;
            check_u32_bits(&r, s ? (v >> s) | (v << (32 - s)) : v);
            gad_u32_shr(&r, &x, by);
            check_u32_bits(&r, v >> s);
        }
    }
}

typedef struct u32_ctx {
    int which;
    uint32_t a, b, c, d;
    gad_u32_t out;
} u32_ctx;

static void u32_synth(cs_t *cs, void *p)
{
    u32_ctx *c = p;
    gad_u32_t a, b, x, d, t;
    gad_multieq_t me;

    gad_u32_alloc(cs, &a, c->a);
    gad_u32_const(&b, c->b);
    gad_u32_alloc(cs, &x, c->c);
    gu_inputs_done(cs);
    switch (c->which) {
    case 0: /* a ^ b ^ c */
        gad_u32_xor(cs, &t, &a, &b);
        gad_u32_xor(cs, &c->out, &t, &x);
        break;
    case 1: /* (a ^ b) + c_const + d (test_uint32_addmany; here c is allocated, d constant) */
        gad_u32_const(&d, c->d);
        gad_u32_xor(cs, &t, &a, &b);
        gad_multieq_init(&me, cs);
        {
            const gad_u32_t *ops[3] = {&t, &x, &d};
            gad_u32_addmany(&me, &c->out, ops, 3);
        }
        gad_multieq_finish(&me);
        break;
    case 2:
        gad_u32_sha256_maj(cs, &c->out, &a, &b, &x);
        break;
    case 3:
        gad_u32_sha256_ch(cs, &c->out, &a, &b, &x);
        break;
    default: /* all-constant addmany: constants only */
        gad_u32_const(&a, c->a);
        gad_u32_const(&x, c->c);
        gad_multieq_init(&me, cs);
        {
            const gad_u32_t *ops[3] = {&a, &b, &x};
            gad_u32_addmany(&me, &c->out, ops, 3);
        }
        gad_multieq_finish(&me);
        break;
    }
}

TEST(uint32_ops)
{
    cz_prng *g = test_prng();
    for (int it = 0; it < 40; it++) {
        u32_ctx c;
        memset(&c, 0, sizeof(c));
        c.a = (uint32_t)cz_prng_u64(g);
        c.b = (uint32_t)cz_prng_u64(g);
        c.c = (uint32_t)cz_prng_u64(g);
        c.d = (uint32_t)cz_prng_u64(g);
        for (c.which = 0; c.which <= 4; c.which++) {
            uint32_t want;
            switch (c.which) {
            case 0:
                want = c.a ^ c.b ^ c.c;
                break;
            case 1:
                want = (c.a ^ c.b) + c.c + c.d;
                break;
            case 2:
                want = (c.a & c.b) ^ (c.a & c.c) ^ (c.b & c.c);
                break;
            case 3:
                want = (c.a & c.b) ^ (~c.a & c.c);
                break;
            default:
                want = c.a + c.b + c.c;
                break;
            }
            cs_counts_t n;
            gu_counts(&n, u32_synth, &c);
            check_u32_bits(&c.out, want);
            if (c.which == 4) {
                CHECK_EQ_U64(n.num_constraints, 64); /* the two allocations only */
                for (unsigned i = 0; i < 32; i++) {
                    CHECK(c.out.bits[i].kind == GAD_CONST);
                }
                continue;
            }
            if (c.which == 1) {
                /* 32 xors with a constant fold away; 34 result bits + 1 packed equality */
                CHECK_EQ_U64(n.num_constraints, 64 + 34 + 1);
                CHECK_EQ_U64(n.num_aux, 64 + 34);
            }
            gu_check_sat(u32_synth, &c);
            if (it < 4) {
                (void)gu_soundness(u32_synth, &c);
            }
        }
    }
}

/* MultiEq: k additions of n operands share one constraint until 254 bits would be reached. */
typedef struct me_ctx {
    size_t k, nops;
} me_ctx;

static void me_synth(cs_t *cs, void *p)
{
    me_ctx *c = p;
    gad_u32_t x[10];
    const gad_u32_t *ops[10];
    gad_multieq_t me;
    for (size_t i = 0; i < c->nops; i++) {
        gad_u32_alloc(cs, &x[i], (uint32_t)(0x9e3779b9u * (i + 1)));
        ops[i] = &x[i];
    }
    gu_inputs_done(cs);
    gad_multieq_init(&me, cs);
    for (size_t j = 0; j < c->k; j++) {
        gad_u32_t r;
        gad_u32_addmany(&me, &r, ops, c->nops);
    }
    gad_multieq_finish(&me);
}

TEST(multieq_packing)
{
    for (size_t nops = 2; nops <= 10; nops++) {
        size_t m = nops == 2 ? 33 : nops <= 4 ? 34 : nops <= 8 ? 35 : 36;
        for (size_t k = 1; k <= 20; k++) {
            me_ctx c = {k, nops};
            /* flushes: greedy packing while bits_used + m < 254 */
            size_t flushes = 0, used = 0;
            for (size_t j = 0; j < k; j++) {
                if (used + m >= 254) {
                    flushes++;
                    used = 0;
                }
                used += m;
            }
            flushes += used > 0;
            GU_CHECK_COUNTS(me_synth, &c, 1, 32 * nops + k * m, 32 * nops + k * m + flushes);
            if (k == 9 && (nops == 2 || nops == 10)) {
                gu_check_sat(me_synth, &c);
                (void)gu_soundness(me_synth, &c);
            }
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * SHA-256
 * ------------------------------------------------------------------------------------------- */

static void bits_from_bytes_alloc(cs_t *cs, gad_bool_t *out, const uint8_t *bytes, size_t n)
{
    for (size_t i = 0; i < 8 * n; i++) {
        out[i] = gad_alloc_bit(cs, (bytes[i / 8] >> (7 - i % 8)) & 1);
    }
}

static void digest_from_bits(uint8_t out[32], const gad_bool_t bits[256])
{
    memset(out, 0, 32);
    for (unsigned i = 0; i < 256; i++) {
        out[i / 8] |= (uint8_t)(bits[i].value << (7 - i % 8));
    }
}

TEST(sha256_blank_hash)
{
    /* the padded empty message as constants: no constraint; digest of "" */
    gad_bool_t in[512], out[256];
    gad_u32_t cur[8];
    cs_t *cs = NULL;
    uint8_t got[32];
    static const uint8_t want[32] = {0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14,
                                     0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
                                     0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c,
                                     0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55};
    for (unsigned i = 0; i < 512; i++) {
        in[i] = gad_bool_const(i == 0);
    }
    CHECK_OK(cs_new_checker(&cs, NULL));
    gad_sha256_iv(cur);
    gad_sha256_compress(cs, cur, in, cur);
    for (unsigned k = 0; k < 8; k++) {
        gad_u32_into_bits_be(out + 32 * k, &cur[k]);
    }
    cs_counts_t n;
    cs_get_counts(cs, &n);
    CHECK_EQ_U64(n.num_constraints, 0);
    CHECK_EQ_U64(n.num_aux, 0);
    CHECK_OK(cs_finish(cs, NULL));
    cs_free(cs);
    digest_from_bits(got, out);
    CHECK_MEM_EQ(got, want, 32);
    for (unsigned i = 0; i < 256; i++) {
        CHECK(out[i].kind == GAD_CONST);
    }
}

typedef struct sha_ctx {
    int which; /* 0: one compression from the IV, 1: full sha256, 2: full sha256 via segments */
    size_t nbytes;
    uint8_t msg[300];
    uint8_t digest[32];
    size_t split;
} sha_ctx;

static void sha_synth(cs_t *cs, void *p)
{
    sha_ctx *c = p;
    gad_bool_t in[300 * 8], out[256];
    bits_from_bytes_alloc(cs, in, c->msg, c->nbytes);
    if (c->which == 0) {
        CHECK_EQ_U64(c->nbytes, 64);
        gad_sha256_block_no_padding(cs, out, in);
    } else if (c->which == 1) {
        gad_sha256(cs, out, in, 8 * c->nbytes);
    } else {
        const gad_bool_t *seg[3] = {in, in + 8 * c->split, GAD_FALSE_BITS};
        size_t len[3] = {8 * c->split, 8 * (c->nbytes - c->split), 0};
        gad_sha256_segs(cs, out, seg, len, 3);
    }
    digest_from_bits(c->digest, out);
}

TEST(sha256_full_block)
{
    sha_ctx c;
    uint32_t st[8];
    cz_prng_bytes(test_prng(), c.msg, 64);
    c.which = 0;
    c.nbytes = 64;
    cs_counts_t n;
    gu_counts(&n, sha_synth, &c);
    CHECK_EQ_U64(n.num_constraints - 512, 25840);
    CHECK_EQ_U64(n.num_inputs, 1);
    gu_check_sat(sha_synth, &c);
    /* the compression function without padding: compare with hash/sha256's compression */
    memcpy(st, SHA256_IV, sizeof(st));
    sha256_compress_portable(st, c.msg, 1);
    for (unsigned k = 0; k < 8; k++) {
        uint8_t be[4] = {(uint8_t)(st[k] >> 24), (uint8_t)(st[k] >> 16), (uint8_t)(st[k] >> 8),
                         (uint8_t)st[k]};
        CHECK_MEM_EQ(c.digest + 4 * k, be, 4);
    }
    size_t tried = gu_soundness(sha_synth, &c);
    CHECK(tried > 25840);
}

TEST(sha256_full_hash)
{
    sha_ctx c;
    uint8_t want[32];
    cz_prng_bytes(test_prng(), c.msg, 64);
    c.which = 1;
    c.nbytes = 64;
    cs_counts_t n;
    gu_counts(&n, sha_synth, &c);
    CHECK_EQ_U64(n.num_constraints - 512, 44874);
    CHECK_EQ_U64(n.num_inputs, 1);
    gu_check_sat(sha_synth, &c);
    SHA256(c.msg, 64, want);
    CHECK_MEM_EQ(c.digest, want, 32);
    (void)gu_soundness(sha_synth, &c);
}

/* test_against_vectors: byte lengths 0..31 and 32..255 step 8, witness values against
 * OpenSSL; the checker on a few; segments must give the same digest and shape. */
TEST(sha256_against_vectors)
{
    static sha_ctx c;
    cz_prng *g = test_prng();
    for (size_t len = 0; len < 256; len += len < 32 ? 1 : 8) {
        uint8_t want[32];
        char h1[65], h2[65];
        c.which = 1;
        c.nbytes = len;
        cz_prng_bytes(g, c.msg, len);
        SHA256(c.msg, len, want);
        cs_counts_t n;
        gu_counts(&n, sha_synth, &c);
        CHECK_MEM_EQ(c.digest, want, 32);
        /* witness backend (the fast no-LC path) gives the same values */
        memset(c.digest, 0, 32);
        {
            cs_t *cs = NULL;
            CHECK_OK(cs_new_witness(&cs, NULL, NULL));
            sha_synth(cs, &c);
            CHECK_OK(cs_finish(cs, NULL));
            cs_free(cs);
        }
        CHECK_MEM_EQ(c.digest, want, 32);
        if (len % 37 == 3 || len == 55 || len == 56 || len == 64 || len == 0) {
            gu_check_sat(sha_synth, &c);
            gu_digest_hex(h1, sha_synth, &c);
            c.which = 2;
            c.split = len / 3;
            gu_digest_hex(h2, sha_synth, &c);
            CHECK_STR_EQ(h1, h2);
            CHECK_MEM_EQ(c.digest, want, 32);
        }
    }
}

/* Constant bits in the message fold: a message of constants costs nothing at all, and the
 * digest still matches. */
static void const_msg_synth(cs_t *cs, void *p)
{
    sha_ctx *c = p;
    gad_bool_t in[300 * 8], out[256];
    for (size_t i = 0; i < 8 * c->nbytes; i++) {
        in[i] = gad_bool_const((c->msg[i / 8] >> (7 - i % 8)) & 1);
    }
    gad_sha256(cs, out, in, 8 * c->nbytes);
    digest_from_bits(c->digest, out);
}

TEST(sha256_constant_message)
{
    sha_ctx c;
    uint8_t want[32];
    c.nbytes = 100;
    cz_prng_bytes(test_prng(), c.msg, c.nbytes);
    GU_CHECK_COUNTS(const_msg_synth, &c, 1, 0, 0);
    sha256(want, c.msg, c.nbytes);
    CHECK_MEM_EQ(c.digest, want, 32);
}

/* MultiEq's exact flush rule (multieq.rs): flush when CAPACITY <= bits_used + num_bits. */
typedef struct me2_ctx {
    size_t n;
    size_t bits[4];
} me2_ctx;

static void me2_synth(cs_t *cs, void *p)
{
    me2_ctx *c = p;
    gad_multieq_t me;
    cs_lc_t l, r;
    cs_var_t v;
    cs_lc_init(&l);
    cs_lc_init(&r);
    (void)cs_alloc(cs, &v, &FR_ONE);
    gad_multieq_init(&me, cs);
    for (size_t i = 0; i < c->n; i++) {
        cs_lc_reset(cs, &l);
        cs_lc_reset(cs, &r);
        if (cs_needs_lcs(cs)) {
            cs_lc_add_var(cs, &l, v);
            cs_lc_add_var(cs, &r, v);
        }
        gad_multieq_enforce_equal(&me, c->bits[i], &l, &r);
    }
    gad_multieq_finish(&me);
    cs_lc_clear(&l);
    cs_lc_clear(&r);
}

TEST(multieq_flush_boundary)
{
    me2_ctx c = {2, {127, 127, 0, 0}};
    GU_CHECK_COUNTS(me2_synth, &c, 1, 1, 2); /* 127 + 127 = 254 reaches CAPACITY: 2 rows */
    gu_check_sat(me2_synth, &c);
    c.bits[1] = 126;
    GU_CHECK_COUNTS(me2_synth, &c, 1, 1, 1); /* 253 fits */
    c.n = 3;
    c.bits[2] = 1;
    GU_CHECK_COUNTS(me2_synth, &c, 1, 1, 2);
    c.n = 0;
    GU_CHECK_COUNTS(me2_synth, &c, 1, 1, 0); /* nothing pending: no flush */
}
