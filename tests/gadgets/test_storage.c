/* test_storage.c - storage-proofs-core helpers, the SHA-256 hasher in circuit form and
 * PoRep's create_label_circuit.
 *
 * References (filecoin-project/rust-fil-proofs 87348a749d80447d00c595af834a8ed73c09e4d9):
 * storage-proofs-core/src/gadgets/{constraint,encode,xor,uint64}.rs tests,
 * storage-proofs-core/src/util.rs hash_leaf_bits_circuit (45_387 constraints) and
 * test_reverse_bit_numbering, storage-proofs-porep/src/stacked/circuit/create_label.rs
 * test_create_label (532_025 constraints). Values against hash/sha256 (trimmed SHA-256) and
 * OpenSSL.
 */
#include "harness/test.h"

#include <openssl/sha.h>
#include <stdlib.h>

#include "gadgets/gadget_util.h"
#include "hash/sha256.h"

/* ---------------------------------------------------------------------------------------------
 * constraint.rs / encode.rs
 * ------------------------------------------------------------------------------------------- */

typedef struct arith_ctx {
    int which;
    fr_t a, b;
    gad_num_t out;
} arith_ctx;

static void arith_synth(cs_t *cs, void *p)
{
    arith_ctx *c = p;
    gad_num_t a, b;
    gad_num_alloc(cs, &a, &c->a);
    gad_num_alloc(cs, &b, &c->b);
    gu_inputs_done(cs);
    switch (c->which) {
    case 0:
        gad_add(cs, &c->out, &a, &b);
        break;
    case 1:
        gad_sub(cs, &c->out, &a, &b);
        break;
    case 2:
        gad_encode(cs, &c->out, &a, &b);
        break;
    default:
        gad_decode(cs, &c->out, &a, &b);
        break;
    }
}

static void record(cs_r1cs_t *r, gu_synth_fn fn, void *ctx)
{
    cs_t *cs = NULL;
    memset(r, 0, sizeof(*r));
    CHECK_OK(cs_new_recorder(&cs, NULL));
    fn(cs, ctx);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_r1cs(cs, r, NULL));
    cs_free(cs);
}

/* row 0 of m has exactly these (column, +1) entries */
static void check_unit_row(const cs_matrix_t *m, const uint64_t *cols, size_t n)
{
    CHECK_EQ_U64(m->row_ptr[1] - m->row_ptr[0], n);
    for (size_t i = 0; i < n; i++) {
        bool found = false;
        for (size_t k = m->row_ptr[0]; k < m->row_ptr[1]; k++) {
            found |= m->col[k] == cols[i] && fr_is_one(&m->val[k]);
        }
        CHECK(found);
    }
}

TEST(constraint_add_sub_encode)
{
    cz_prng *g = test_prng();
    for (int it = 0; it < 20; it++) {
        arith_ctx c;
        memset(&c, 0, sizeof(c));
        gu_rand_fr(&c.a, g);
        gu_rand_fr(&c.b, g);
        for (c.which = 0; c.which < 4; c.which++) {
            fr_t want;
            if (c.which == 0 || c.which == 2) {
                fr_add(&want, &c.a, &c.b);
            } else if (c.which == 1) {
                fr_sub(&want, &c.a, &c.b);
            } else {
                fr_sub(&want, &c.b, &c.a); /* decode(key, value) = value - key */
            }
            GU_CHECK_COUNTS(arith_synth, &c, 1, 3, 1);
            gu_check_sat(arith_synth, &c);
            CHECK(fr_eq(&c.out.value, &want));
            if (it == 0) {
                (void)gu_soundness(arith_synth, &c);
                /* columns: ONE = 0, a = 1, b = 2, r = 3 */
                cs_r1cs_t r;
                record(&r, arith_synth, &c);
                uint64_t one[1] = {0};
                check_unit_row(&r.B, one, 1);
                if (c.which == 0 || c.which == 2) { /* sum(a, b, r): a + b | ONE | r */
                    uint64_t a[2] = {1, 2}, cc[1] = {3};
                    check_unit_row(&r.A, a, 2);
                    check_unit_row(&r.C, cc, 1);
                } else if (c.which == 1) { /* difference(a, b, r): r + b | ONE | a */
                    uint64_t a[2] = {3, 2}, cc[1] = {1};
                    check_unit_row(&r.A, a, 2);
                    check_unit_row(&r.C, cc, 1);
                } else { /* difference(value, key, r): r + key | ONE | value */
                    uint64_t a[2] = {3, 1}, cc[1] = {2};
                    check_unit_row(&r.A, a, 2);
                    check_unit_row(&r.C, cc, 1);
                }
                cs_r1cs_clear(&r);
            }
        }
    }
}

static void equal_synth(cs_t *cs, void *p)
{
    const fr_t *v = p;
    gad_num_t a, b;
    gad_num_alloc(cs, &a, &v[0]);
    gad_num_alloc(cs, &b, &v[1]);
    gad_equal(cs, &a, &b, "enforce equal");
}

TEST(constraint_equal)
{
    fr_t v[2];
    fr_from_u64(&v[0], 42);
    v[1] = v[0];
    gu_check_sat(equal_synth, v);
    (void)gu_soundness(equal_synth, v);
    cs_r1cs_t r;
    record(&r, equal_synth, v);
    uint64_t a[1] = {1}, b[1] = {0}, c[1] = {2}; /* equal(a, b): a | ONE | b */
    check_unit_row(&r.A, a, 1);
    check_unit_row(&r.B, b, 1);
    check_unit_row(&r.C, c, 1);
    cs_r1cs_clear(&r);
    fr_from_u64(&v[1], 43);
    (void)gu_check_unsat(equal_synth, v);
}

/* ---------------------------------------------------------------------------------------------
 * xor.rs (test_xor_input_circuit), uint64.rs, util.rs reverse_bit_numbering
 * ------------------------------------------------------------------------------------------- */

typedef struct xor_ctx {
    uint8_t key[32];
    uint8_t data[320];
    size_t n;
    uint8_t out[320], back[320];
} xor_ctx;

/* bytes_into_boolean_vec: bits LSB first per byte, allocated */
static void alloc_bytes_le(cs_t *cs, gad_bool_t *out, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < 8 * n; i++) {
        out[i] = gad_alloc_bit(cs, (b[i / 8] >> (i % 8)) & 1);
    }
}

static void bytes_from_bits_le(uint8_t *out, const gad_bool_t *bits, size_t n)
{
    memset(out, 0, n);
    for (size_t i = 0; i < 8 * n; i++) {
        out[i / 8] |= (uint8_t)(bits[i].value << (i % 8));
    }
}

static void xor_synth(cs_t *cs, void *p)
{
    xor_ctx *c = p;
    gad_bool_t key[256], data[320 * 8], out[320 * 8], back[320 * 8];
    alloc_bytes_le(cs, key, c->key, 32);
    alloc_bytes_le(cs, data, c->data, c->n);
    gad_xor_key(cs, out, key, data, 8 * c->n);
    gad_xor_key(cs, back, key, out, 8 * c->n);
    bytes_from_bits_le(c->out, out, c->n);
    bytes_from_bits_le(c->back, back, c->n);
}

TEST(xor_input_circuit)
{
    cz_prng *g = test_prng();
    static xor_ctx c;
    for (size_t i = 0; i < 10; i++) {
        c.n = (i + 1) * 32;
        cz_prng_bytes(g, c.key, 32);
        cz_prng_bytes(g, c.data, c.n);
        /* 256 + 8n booleanity, 8n xors, 8n xors back */
        GU_CHECK_COUNTS(xor_synth, &c, 1, 256 + 24 * c.n, 256 + 24 * c.n);
        for (size_t k = 0; k < c.n; k++) {
            CHECK_EQ_U64(c.out[k], c.data[k] ^ c.key[k % 32]);
        }
        CHECK_MEM_EQ(c.back, c.data, c.n);
        if (i < 2) {
            gu_check_sat(xor_synth, &c);
            (void)gu_soundness(xor_synth, &c);
        }
    }
}

static void u64_synth(cs_t *cs, void *p)
{
    const uint64_t *v = p;
    gad_u64_t x;
    gad_u64_alloc(cs, &x, *v);
    gad_u64_pack_into_input(cs, &x);
}

TEST(uint64_alloc_pack)
{
    uint64_t v = UINT64_C(0xfedcba9876543210);
    GU_CHECK_COUNTS(u64_synth, &v, 2, 64, 65);
    gu_check_sat(u64_synth, &v);
    (void)gu_soundness(u64_synth, &v);
    cs_t *cs = NULL;
    cs_assignment_t asg;
    memset(&asg, 0, sizeof(asg));
    CHECK_OK(cs_new_witness(&cs, NULL, NULL));
    u64_synth(cs, &v);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_assignment(cs, &asg, NULL));
    cs_free(cs);
    fr_t want;
    fr_from_u64(&want, v);
    CHECK(fr_eq(&asg.inputs[1], &want));
    cs_assignment_clear(&asg);

    gad_u64_t k, back;
    gad_bool_t be[64];
    gad_u64_const(&k, v);
    gad_u64_to_bits_be(be, &k);
    for (unsigned i = 0; i < 64; i++) {
        CHECK_EQ_U64(be[i].value, (v >> (63 - i)) & 1);
        CHECK(be[i].kind == GAD_CONST);
    }
    gad_u64_from_bits_be(&back, be);
    CHECK_EQ_U64(back.value, v);
}

TEST(reverse_bit_numbering)
{
    gad_bool_t in[255], out[256];
    for (unsigned i = 0; i < 255; i++) {
        in[i] = gad_bool_const(i % 3 == 0);
    }
    CHECK_EQ_U64(gad_reverse_bit_numbering(out, in, 255), 256);
    for (unsigned i = 0; i < 256; i++) {
        unsigned src = (i / 8) * 8 + 7 - i % 8;
        CHECK_EQ_U64(out[i].value, src < 255 ? src % 3 == 0 : 0);
    }
    /* the padding bit (integer bit 255) lands at position 248, Constant(false) */
    CHECK(out[248].kind == GAD_CONST && out[248].value == 0);
    CHECK_EQ_U64(gad_reverse_bit_numbering(out, in, 13), 16);
}

/* ---------------------------------------------------------------------------------------------
 * Sha256Function in circuit form
 * ------------------------------------------------------------------------------------------- */

typedef struct hash2_ctx {
    fr_t a, b;
    gad_num_t out;
} hash2_ctx;

static void hash2_synth(cs_t *cs, void *p)
{
    hash2_ctx *c = p;
    gad_num_t in[2];
    gad_num_alloc(cs, &in[0], &c->a);
    gad_num_alloc(cs, &in[1], &c->b);
    gad_hash_multi_leaf(cs, GAD_HASHER_SHA256, &c->out, in, 2);
}

TEST(sha256_hash2_circuit)
{
    cz_prng *g = test_prng();
    hash2_ctx c;
    memset(&c, 0, sizeof(c));
    for (int it = 0; it < 3; it++) {
        gu_rand_fr(&c.a, g);
        gu_rand_fr(&c.b, g);
        uint8_t la[32], lb[32], d[32];
        fr_to_bytes(la, &c.a);
        fr_to_bytes(lb, &c.b);
        sha256_fr32_node(d, la, lb);
        fr_t want;
        CHECK_OK(fr_from_bytes(&want, d));
        /* 2 x (255 bits + unpacking) + SHA-256 of 512 bits (2 blocks) + packing */
        cs_counts_t n;
        gu_counts(&n, hash2_synth, &c);
        CHECK(fr_eq(&c.out.value, &want));
        gu_check_sat(hash2_synth, &c);
        CHECK(fr_eq(&c.out.value, &want));
        if (it == 0) {
            (void)gu_soundness(hash2_synth, &c);
        }
    }
}

typedef struct leafbits_ctx {
    uint8_t left[32], right[32];
    gad_num_t out;
} leafbits_ctx;

static void leafbits_synth(cs_t *cs, void *p)
{
    leafbits_ctx *c = p;
    gad_bool_t l[256], r[256];
    alloc_bytes_le(cs, l, c->left, 32);
    alloc_bytes_le(cs, r, c->right, 32);
    gad_sha256_hash_leaf_bits(cs, &c->out, l, 256, r, 256);
}

TEST(hash_leaf_bits_circuit)
{
    cz_prng *g = test_prng();
    leafbits_ctx c;
    fr_t a, b, want;
    uint8_t d[32];
    memset(&c, 0, sizeof(c));
    gu_rand_fr(&a, g);
    gu_rand_fr(&b, g);
    fr_to_bytes(c.left, &a);
    fr_to_bytes(c.right, &b);
    cs_counts_t n;
    gu_counts(&n, leafbits_synth, &c);
    CHECK_EQ_U64(n.num_constraints, 45387);
    gu_check_sat(leafbits_synth, &c);
    /* Sha256Function::node(left, right) = trim(SHA-256(left || right)) */
    uint8_t msg[64];
    memcpy(msg, c.left, 32);
    memcpy(msg + 32, c.right, 32);
    SHA256(msg, 64, d);
    d[31] &= 0x3f;
    CHECK_OK(fr_from_bytes(&want, d));
    CHECK(fr_eq(&c.out.value, &want));
}

/* ---------------------------------------------------------------------------------------------
 * create_label_circuit (test_create_label): id and 37 parents as allocated bits (MSB first
 * per byte, bytes_into_boolean_vec_be), layer 3 and node 22 as constants.
 * ------------------------------------------------------------------------------------------- */

typedef struct label_ctx {
    uint8_t id[32];
    uint8_t parents[GAD_LABEL_PARENTS][32];
    uint32_t layer;
    uint64_t node;
    bool node_alloc;
    gad_num_t out;
} label_ctx;

static void alloc_bytes_be(cs_t *cs, gad_bool_t *out, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < 8 * n; i++) {
        out[i] = gad_alloc_bit(cs, (b[i / 8] >> (7 - i % 8)) & 1);
    }
}

static void label_synth(cs_t *cs, void *p)
{
    label_ctx *c = p;
    static gad_bool_t pbits[GAD_LABEL_PARENTS][256];
    gad_bool_t id[256];
    const gad_bool_t *parents[GAD_LABEL_PARENTS];
    gad_u64_t node;
    for (size_t i = 0; i < GAD_LABEL_PARENTS; i++) {
        alloc_bytes_be(cs, pbits[i], c->parents[i], 32);
        parents[i] = pbits[i];
    }
    alloc_bytes_be(cs, id, c->id, 32);
    if (c->node_alloc) {
        gad_u64_alloc(cs, &node, c->node);
    } else {
        gad_u64_const(&node, c->node);
    }
    gad_create_label(cs, &c->out, id, 256, parents, c->layer, &node);
}

static void native_label(fr_t *out, const label_ctx *c)
{
    uint8_t msg[64 + 32 * GAD_LABEL_PARENTS], d[32];
    memset(msg, 0, sizeof(msg));
    memcpy(msg, c->id, 32);
    for (int i = 0; i < 4; i++) {
        msg[32 + i] = (uint8_t)(c->layer >> (24 - 8 * i));
    }
    for (int i = 0; i < 8; i++) {
        msg[36 + i] = (uint8_t)(c->node >> (56 - 8 * i));
    }
    for (size_t i = 0; i < GAD_LABEL_PARENTS; i++) {
        memcpy(msg + 64 + 32 * i, c->parents[i], 32);
    }
    SHA256(msg, sizeof(msg), d);
    d[31] &= 0x3f;
    CHECK_OK(fr_from_bytes(out, d));
}

TEST(create_label_circuit)
{
    static label_ctx c;
    cz_prng *g = test_prng();
    fr_t want, x;
    memset(&c, 0, sizeof(c));
    gu_rand_fr(&x, g);
    fr_to_bytes(c.id, &x);
    /* 14 distinct parents, expanded 14 + 14 + 9 as in the reference test */
    for (size_t i = 0; i < 14; i++) {
        gu_rand_fr(&x, g);
        fr_to_bytes(c.parents[i], &x);
    }
    for (size_t i = 14; i < GAD_LABEL_PARENTS; i++) {
        memcpy(c.parents[i], c.parents[i % 14], 32);
    }
    c.layer = 3;
    c.node = 22;
    cs_counts_t n;
    gu_counts(&n, label_synth, &c);
    CHECK_EQ_U64(n.num_constraints, 532025);
    gu_check_sat(label_synth, &c);
    native_label(&want, &c);
    CHECK(fr_eq(&c.out.value, &want));

    /* the circuit's layout: the challenge as allocated bits (as StackedCircuit passes it) */
    c.node_alloc = true;
    c.node = UINT64_C(0x123456789);
    c.layer = 11;
    gu_check_sat(label_synth, &c);
    native_label(&want, &c);
    CHECK(fr_eq(&c.out.value, &want));
}

/* ---------------------------------------------------------------------------------------------
 * create_label sampled tamper: the full single-value sweep of gu_soundness over ~532k aux is
 * replaced by TAMPER_SAMPLES aux values chosen with test_prng(); each is changed alone (a bit
 * flip where it is 0 or 1, a random nonzero amount otherwise) and some constraint must fail.
 * Only the rows that reference the changed column are re-evaluated (the others are unchanged
 * and satisfied: gu_check_sat runs on the same circuit in create_label_circuit).
 * ------------------------------------------------------------------------------------------- */

#define TAMPER_SAMPLES 200

static void row_eval_w(fr_t *out, const cs_matrix_t *m, size_t row, const fr_t *w)
{
    fr_t t;
    *out = FR_ZERO;
    for (size_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
        fr_mul(&t, &m->val[k], &w[m->col[k]]);
        fr_add(out, out, &t);
    }
}

/* false when all rows in rows[0..n) are satisfied by w */
static bool some_row_fails(const cs_r1cs_t *r, const size_t *rows, size_t n, const fr_t *w)
{
    for (size_t i = 0; i < n; i++) {
        fr_t a, b, c, ab;
        row_eval_w(&a, &r->A, rows[i], w);
        row_eval_w(&b, &r->B, rows[i], w);
        row_eval_w(&c, &r->C, rows[i], w);
        fr_mul(&ab, &a, &b);
        if (!fr_eq(&ab, &c)) {
            return true;
        }
    }
    return false;
}

typedef struct row_list {
    size_t *rows;
    size_t n, cap;
} row_list;

static void row_list_add(row_list *l, size_t row)
{
    if (l->n && l->rows[l->n - 1] == row) {
        return;
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->rows = realloc(l->rows, l->cap * sizeof(size_t));
        CHECK(l->rows);
    }
    l->rows[l->n++] = row;
}

static void sampled_tamper(gu_synth_fn fn, void *ctx, size_t samples)
{
    cs_r1cs_t r;
    cs_assignment_t asg;
    cs_t *wit = NULL;
    memset(&r, 0, sizeof(r));
    memset(&asg, 0, sizeof(asg));
    gu_record(&r, fn, ctx);
    CHECK_OK(cs_new_witness(&wit, NULL, NULL));
    fn(wit, ctx);
    CHECK_OK(cs_finish(wit, NULL));
    CHECK_OK(cs_take_assignment(wit, &asg, NULL));
    cs_free(wit);
    CHECK_EQ_U64(asg.num_aux, r.num_aux);
    CHECK_EQ_U64(asg.num_inputs, r.num_inputs);
    CHECK(r.num_aux > samples);

    const size_t ni = r.num_inputs, ncols = ni + r.num_aux;
    fr_t *w = malloc(ncols * sizeof(fr_t));
    uint32_t *slot = calloc(ncols, sizeof(uint32_t)); /* sample index + 1, 0 = not sampled */
    size_t *cols = malloc(samples * sizeof(size_t));
    row_list *lists = calloc(samples, sizeof(row_list));
    CHECK(w && slot && cols && lists);
    memcpy(w, asg.inputs, ni * sizeof(fr_t));
    memcpy(w + ni, asg.aux, r.num_aux * sizeof(fr_t));

    cz_prng *g = test_prng();
    for (size_t s = 0; s < samples; s++) {
        size_t c;
        do {
            c = ni + cz_prng_below(g, r.num_aux);
        } while (slot[c]);
        slot[c] = (uint32_t)(s + 1);
        cols[s] = c;
    }
    const cs_matrix_t *mats[3] = {&r.A, &r.B, &r.C};
    for (size_t row = 0; row < r.A.rows; row++) {
        for (int m = 0; m < 3; m++) {
            for (size_t k = mats[m]->row_ptr[row]; k < mats[m]->row_ptr[row + 1]; k++) {
                uint32_t sl = slot[mats[m]->col[k]];
                if (sl) {
                    row_list_add(&lists[sl - 1], row);
                }
            }
        }
    }
    for (size_t s = 0; s < samples; s++) {
        const size_t c = cols[s];
        CHECK_MSG(lists[s].n > 0, "aux %zu appears in no constraint", c - ni);
        CHECK_MSG(!some_row_fails(&r, lists[s].rows, lists[s].n, w),
                  "honest witness fails a row of aux %zu", c - ni);
        const fr_t keep = w[c];
        fr_t delta;
        if (fr_is_zero(&w[c]) || fr_is_one(&w[c])) {
            fr_t two_w;
            fr_dbl(&two_w, &w[c]);
            fr_sub(&delta, &FR_ONE, &two_w);
        } else {
            do {
                gu_rand_fr(&delta, g);
            } while (fr_is_zero(&delta));
        }
        fr_add(&w[c], &w[c], &delta);
        CHECK_MSG(some_row_fails(&r, lists[s].rows, lists[s].n, w),
                  "aux %zu of %zu can be changed freely (unconstrained)", c - ni,
                  (size_t)r.num_aux);
        w[c] = keep;
        free(lists[s].rows);
    }
    free(lists);
    free(cols);
    free(slot);
    free(w);
    cs_assignment_clear(&asg);
    cs_r1cs_clear(&r);
}

TEST(create_label_sampled_tamper)
{
    static label_ctx c;
    cz_prng *g = test_prng();
    fr_t x;
    memset(&c, 0, sizeof(c));
    gu_rand_fr(&x, g);
    fr_to_bytes(c.id, &x);
    for (size_t i = 0; i < GAD_LABEL_PARENTS; i++) {
        gu_rand_fr(&x, g);
        fr_to_bytes(c.parents[i], &x);
    }
    c.layer = 5;
    c.node_alloc = true;
    c.node = UINT64_C(0x2a5f00d);
    sampled_tamper(label_synth, &c, TAMPER_SAMPLES);
}

/* hash_leaf_circuit: SHA-256 has the hash2 layout (to_bits_le of both, then the per-byte
 * reversal and hash_circuit); Poseidon is hash2 (arity 2). Same digests and values. */
typedef struct leaf_ctx {
    gad_hasher h;
    bool via_leaf;
    fr_t a, b;
    gad_num_t out;
} leaf_ctx;

static void leaf_synth(cs_t *cs, void *p)
{
    leaf_ctx *c = p;
    gad_num_t in[2];
    gad_num_alloc(cs, &in[0], &c->a);
    gad_num_alloc(cs, &in[1], &c->b);
    if (c->via_leaf) {
        gad_hash_leaf(cs, c->h, &c->out, &in[0], &in[1]);
    } else {
        gad_hash_multi_leaf(cs, c->h, &c->out, in, 2);
    }
}

TEST(hash_leaf_circuit)
{
    cz_prng *g = test_prng();
    for (int h = 0; h < 2; h++) {
        leaf_ctx c;
        char d1[65], d2[65];
        memset(&c, 0, sizeof(c));
        c.h = (gad_hasher)h;
        gu_rand_fr(&c.a, g);
        gu_rand_fr(&c.b, g);
        gu_digest_hex(d1, leaf_synth, &c);
        gu_check_sat(leaf_synth, &c);
        fr_t v1 = c.out.value;
        c.via_leaf = true;
        gu_digest_hex(d2, leaf_synth, &c);
        gu_check_sat(leaf_synth, &c);
        CHECK_STR_EQ(d1, d2);
        CHECK(fr_eq(&c.out.value, &v1));
        if (h == GAD_HASHER_POSEIDON) {
            GU_CHECK_COUNTS(leaf_synth, &c, 1, 2 + 311, 311);
        }
    }
}
