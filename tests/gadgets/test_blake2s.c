/* test_blake2s.c - the BLAKE2s gadget and Blake2sHasher<Fr> in circuit form.
 *
 * Counts from bellperson (filecoin-project/bellperson src/gadgets/blake2s.rs tests):
 * test_blank_hash (0 constraints), test_blake2s_constraints (21518 for 512 allocated bits),
 * test_blake2s_precomp_constraints (512 constant + 512 allocated bits: 21518),
 * test_blake2s_constant_constraints (0). Digests with personalization "12345678": the known
 * answers of test_blank_hash, test_blake2s_256_vars and test_blake2s_700_vars (computed there
 * by Python's hashlib / blake2s_simd). Unpersonalized digests: node's crypto blake2s256
 * (tests/vectors/gadgets/blake2s_vectors.h, tools/gen_vectors/gen_blake2s_gadget.mjs).
 * The hasher (hash2 / multi-leaf / leaf-bits) against OpenSSL's BLAKE2s-256 of the leaves'
 * little-endian bytes with the top two bits of the digest cleared (Blake2sDomain::trim_to_fr32).
 */
#include "harness/test.h"

#include <openssl/evp.h>
#include <stdlib.h>

#include "gadgets/gadget_util.h"
#include "vectors/gadgets/blake2s_vectors.h"

static const uint8_t PERS[8] = {'1', '2', '3', '4', '5', '6', '7', '8'};
static const uint8_t ZERO8[8] = {0};

typedef struct b2_ctx {
    const uint8_t *data;
    size_t len;
    size_t nconst; /* leading bytes given as constants */
    bool all_true; /* input bits: allocated Some(true) (test_blake2s_constraints) */
    const uint8_t *pers;
    gad_bool_t out[256];
} b2_ctx;

static void b2_synth(cs_t *cs, void *p)
{
    b2_ctx *c = p;
    gad_bool_t *in = malloc((8 * c->len + 1) * sizeof(gad_bool_t));
    CHECK(in);
    for (size_t i = 0; i < 8 * c->len; i++) {
        bool v = c->all_true ? true : ((c->data[i / 8] >> (i % 8)) & 1);
        in[i] = i < 8 * c->nconst ? gad_bool_const(v) : gad_alloc_bit(cs, v);
    }
    gu_inputs_done(cs);
    gad_blake2s(cs, c->out, in, 8 * c->len, c->pers);
    free(in);
}

static void check_digest(const gad_bool_t out[256], const uint8_t want[32])
{
    for (size_t i = 0; i < 256; i++) {
        CHECK_EQ_U64(out[i].value, (want[i / 8] >> (i % 8)) & 1);
    }
}

static void unhex(uint8_t *out, const char *hex, size_t n)
{
    CHECK_EQ_U64(strlen(hex), 2 * n);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        CHECK(sscanf(hex + 2 * i, "%2x", &v) == 1);
        out[i] = (uint8_t)v;
    }
}

TEST(blake2s_blank_hash)
{
    b2_ctx c = {NULL, 0, 0, false, PERS, {{{0}, 0, 0}}};
    uint8_t want[32];
    GU_CHECK_COUNTS(b2_synth, &c, 1, 0, 0);
    gu_check_sat(b2_synth, &c);
    unhex(want, "c59f682376d137f3f255e671e207d1f2374ebe504e9314208a52d9f88d69e8c8", 32);
    check_digest(c.out, want);
    for (size_t i = 0; i < 256; i++) {
        CHECK(gad_bool_is_const(c.out[i]));
    }
}

TEST(blake2s_constraint_counts)
{
    static uint8_t data[128];
    cz_prng *g = test_prng();
    cz_prng_bytes(g, data, sizeof(data));
    cs_counts_t n;
    /* test_blake2s_constraints: 512 allocated bits */
    b2_ctx c = {data, 64, 0, true, PERS, {{{0}, 0, 0}}};
    gu_counts(&n, b2_synth, &c);
    CHECK_EQ_U64(n.num_constraints, 21518);
    gu_check_sat(b2_synth, &c);
    /* test_blake2s_precomp_constraints: a constant first block costs nothing */
    b2_ctx p = {data, 128, 64, false, PERS, {{{0}, 0, 0}}};
    gu_counts(&n, b2_synth, &p);
    CHECK_EQ_U64(n.num_constraints, 21518);
    gu_check_sat(b2_synth, &p);
    /* test_blake2s_constant_constraints */
    b2_ctx k = {data, 64, 64, false, PERS, {{{0}, 0, 0}}};
    gu_counts(&n, b2_synth, &k);
    CHECK_EQ_U64(n.num_constraints, 0);
    CHECK_EQ_U64(n.num_aux, 0);
}

TEST(blake2s_reference_vectors_personalized)
{
    static const char *const d256 =
        "be9f9c485e670acce8b1516a378176161b20583637b6f1c536fbc1158a0a3296831df2920e57a442d5738f4b"
        "e4dd6be89dd7913fc8b4d1c0a815646a4d674b77f7caf313bd880bf759fcac27037c48c2b2a20acd2fd5248e"
        "3be426c84a341c0a3c63eaf36e0d537d10b8db5c6e4c801832c41eb1a3ed602177acded8b4b803bd34339d99"
        "a18b71df399641cc8dfae2ad193fcd74b5913e704551777160d14c78f2e8d5c32716a8599c1080cb89a40ccd"
        "6ba596694a8b4a065d9f2d0667ef423ed2e418093caff884540858b4f4b62acd47edcea880523e1b1cda8eb2"
        "25c128c2e9e83f14f6e7448c5733a195cac7d79a53dde5083172462c45b2f799e42af1c9";
    static const char *const d700 =
        "5dcfe8bab4c758d2eb1ddb7ef337583e0df3e2c358e1755b7cd303a658de9a1227eed1d1114179a5c3c38d69"
        "2ff2cf2d4e5c92a9516de750106774bbf9f7d063f707f4c9b6a02c0a77e4feb99e036c3ccaee7d1a31cb1440"
        "93aa074bc9da608f8ff30b39c3c60e4a243cc0bbd406d1262a7d6607b31c60275c6bcc8b0ac49a06a4b629a9"
        "8693c5f7640f3bca45e4977cfabc5b17f52838af3433b1fd407dbbdc131e8e4bd58bcee85bbab4b57b656c6a"
        "2ec6cf852525bc8423675e2bf29159139cd5df99db94719f3f7167230e0d5bd76f6d7891b656732cef9c3c0d"
        "48a5fa3d7a879988157b39015a85451b25af0301ca5e759ac35fea79dca38c673ec6db9f3885d9103e2dcb33"
        "04bd3d59b0b1d01babc97ef8a74d91b6ab6bf50f29eb5adf7250a28fd85db37bff0133193635da69caeefc72"
        "979cf3bef1d2896d847eea7e8a81e0927893dbd010feb6fb845d0399007d9a148a0596d86cd8f4192631f975"
        "c560f4de8da5f712c161342063af3c11029d93d6df7ff46db48343499de9ec4786cac059c4025ef418c9fe40"
        "132428ff8b91259d71d1709ff066add84ae944b45a817f60b4c1bf719e39ae23e9b413469db2310793e9137c"
        "f38741e5dd2a3c138a566dbde1950c00071b20ac457b46ba9b0a7ebdddcc212bd228d2a4c4146a970e541584"
        "77247c27871af1564b176576e9fd43bf63740bf77434bc4ea3b1a4b430e1a11714bf43160145578a575c3f78"
        "ddeaa48de97f73460f26f8df2b5d63e31800100d16bc27160fea5ced5a977ef541cfe8dadc7b3991ed1c0d4f"
        "16a3076bbfed96ba3e155113e794987af8abb133f06feefabc2ac32eb4d4d4ba1541ca08b9e518d2e74b7f94"
        "6b0cbd2663d58c689359b9a565821acc619011233d1011963fa302cde34fc9c5ba2e03eeb2512f547391e940"
        "d56218e22ae325f2dfa38d4bae35744ee707aa5dc9c17674025d15390a08f5c452343546ef6da0f7";
    static uint8_t data[700];
    uint8_t want[32];

    unhex(data, d256, 256);
    b2_ctx c = {data, 256, 0, false, PERS, {{{0}, 0, 0}}};
    gu_check_sat(b2_synth, &c);
    unhex(want, "0af5695115ced92c8a0341e43869209636e9aa6472e4576f0f2b996cf812b30e", 32);
    check_digest(c.out, want);

    unhex(data, d700, 700);
    b2_ctx d = {data, 700, 0, false, PERS, {{{0}, 0, 0}}};
    gu_check_sat(b2_synth, &d);
    unhex(want, "2ab8f0683167ba220eef19dccf4f9b1a8193cc09b35e0235842323950530f18a", 32);
    check_digest(d.out, want);
    /* a wrong personalization gives another digest */
    d.pers = ZERO8;
    gu_check_sat(b2_synth, &d);
    bool differs = false;
    for (size_t i = 0; i < 256; i++) {
        differs |= d.out[i].value != ((want[i / 8] >> (i % 8)) & 1);
    }
    CHECK(differs);
}

TEST(blake2s_node_vectors)
{
    static uint8_t data[256];
    uint8_t want[32];
    for (size_t v = 0; v < ARRAY_LEN(B2S_VECTORS); v++) {
        size_t n = B2S_VECTORS[v].len;
        for (size_t i = 0; i < n; i++) {
            data[i] = B2S_VEC_BYTE(n, i);
        }
        unhex(want, B2S_VECTORS[v].digest_hex, 32);
        b2_ctx c = {data, n, 0, false, ZERO8, {{{0}, 0, 0}}};
        cs_counts_t cnt;
        gu_counts(&cnt, b2_synth, &c);
        check_digest(c.out, want);
        if (n == 0) {
            CHECK_EQ_U64(cnt.num_constraints, 0);
        } else if (n == 64) {
            /* test_blake2s_constraints' layout (its 21518 includes the 512 input booleans) */
            CHECK_EQ_U64(cnt.num_constraints, 21518);
        }
        if (v < 6) {
            gu_check_sat(b2_synth, &c);
        }
        /* partially constant input: same digest */
        c.nconst = n / 2;
        gu_counts(&cnt, b2_synth, &c);
        check_digest(c.out, want);
    }
}

TEST(blake2s_soundness)
{
    uint8_t data[5] = {1, 2, 3, 0xfe, 0x80};
    b2_ctx c = {data, 5, 0, false, PERS, {{{0}, 0, 0}}};
    size_t tried = gu_soundness(b2_synth, &c);
    CHECK(tried > 20000);
}

/* ---------------------------------------------------------------------------------------------
 * Blake2sHasher<Fr> in circuit form
 * ------------------------------------------------------------------------------------------- */

static void native_b2s_fr(fr_t *out, const fr_t *in, size_t n)
{
    uint8_t buf[16 * 32], d[32];
    unsigned dl = 0;
    for (size_t i = 0; i < n; i++) {
        fr_to_bytes(buf + 32 * i, &in[i]);
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    CHECK(ctx);
    CHECK(EVP_DigestInit_ex(ctx, EVP_blake2s256(), NULL) == 1);
    CHECK(EVP_DigestUpdate(ctx, buf, 32 * n) == 1);
    CHECK(EVP_DigestFinal_ex(ctx, d, &dl) == 1);
    EVP_MD_CTX_free(ctx);
    CHECK_EQ_U64(dl, 32);
    d[31] &= 0x3f;
    CHECK_OK(fr_from_bytes(out, d));
}

typedef struct hh_ctx {
    int mode; /* 0 multi-leaf, 1 hash_leaf, 2 hash_leaf_bits of short bit strings */
    size_t n;
    fr_t in[8];
    gad_num_t out;
} hh_ctx;

static void hh_synth(cs_t *cs, void *p)
{
    hh_ctx *c = p;
    gad_num_t in[8];
    for (size_t i = 0; i < c->n; i++) {
        gad_num_alloc(cs, &in[i], &c->in[i]);
    }
    gu_inputs_done(cs);
    if (c->mode == 0) {
        gad_hash_multi_leaf(cs, GAD_HASHER_BLAKE2S, &c->out, in, c->n);
    } else {
        gad_hash_leaf(cs, GAD_HASHER_BLAKE2S, &c->out, &in[0], &in[1]);
    }
}

TEST(blake2s_hasher_circuit)
{
    cz_prng *g = test_prng();
    static const size_t ns[] = {2, 4, 8};
    for (size_t k = 0; k < ARRAY_LEN(ns); k++) {
        hh_ctx c;
        memset(&c, 0, sizeof(c));
        c.n = ns[k];
        for (size_t i = 0; i < c.n; i++) {
            gu_rand_fr(&c.in[i], g);
        }
        fr_t want;
        native_b2s_fr(&want, c.in, c.n);
        cs_counts_t cnt;
        gu_counts(&cnt, hh_synth, &c);
        CHECK(fr_eq(&c.out.value, &want));
        if (c.n == 2) {
            /* 2 x (255 booleans + 1 unpacking) + one block (21518 - 512 input booleans) + one
             * pack; PoR blake2s base_2 (129_135, test_merkle.c) = 6 levels of this + 3 */
            CHECK_EQ_U64(cnt.num_constraints, 2 * 256 + (21518 - 512) + 1);
        }
        gu_check_sat(hh_synth, &c);
        if (c.n == 2) {
            /* hash_leaf_circuit has the same layout and value as hash2_circuit */
            char d0[65], d1[65];
            gu_digest_hex(d0, hh_synth, &c);
            c.mode = 1;
            gu_check_sat(hh_synth, &c);
            CHECK(fr_eq(&c.out.value, &want));
            gu_digest_hex(d1, hh_synth, &c);
            CHECK_STR_EQ(d0, d1);
            (void)gu_soundness(hh_synth, &c);
        }
    }
}

typedef struct lb_ctx {
    uint8_t l[32], r[32];
    size_t nl, nr; /* bits */
    gad_num_t out;
} lb_ctx;

static void lb_synth(cs_t *cs, void *p)
{
    lb_ctx *c = p;
    gad_bool_t l[256], r[256];
    for (size_t i = 0; i < c->nl; i++) {
        l[i] = gad_alloc_bit(cs, (c->l[i / 8] >> (i % 8)) & 1);
    }
    for (size_t i = 0; i < c->nr; i++) {
        r[i] = gad_alloc_bit(cs, (c->r[i / 8] >> (i % 8)) & 1);
    }
    gu_inputs_done(cs);
    gad_blake2s_hash_leaf_bits(cs, &c->out, l, c->nl, r, c->nr);
}

TEST(blake2s_hash_leaf_bits)
{
    /* odd lengths: each side is padded with zero bits to whole bytes */
    lb_ctx c;
    memset(&c, 0, sizeof(c));
    cz_prng *g = test_prng();
    cz_prng_bytes(g, c.l, 32);
    cz_prng_bytes(g, c.r, 32);
    c.nl = 13;
    c.nr = 250;
    c.l[1] &= 0x1f;
    c.r[31] &= 0x03;
    gu_check_sat(lb_synth, &c);
    uint8_t buf[34], d[32];
    unsigned dl = 0;
    memcpy(buf, c.l, 2);
    memcpy(buf + 2, c.r, 32);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    CHECK(ctx);
    CHECK(EVP_DigestInit_ex(ctx, EVP_blake2s256(), NULL) == 1);
    CHECK(EVP_DigestUpdate(ctx, buf, sizeof(buf)) == 1);
    CHECK(EVP_DigestFinal_ex(ctx, d, &dl) == 1);
    EVP_MD_CTX_free(ctx);
    d[31] &= 0x3f;
    fr_t want;
    CHECK_OK(fr_from_bytes(&want, d));
    CHECK(fr_eq(&c.out.value, &want));
}
