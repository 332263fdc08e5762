/* test_poseidon.c - neptune's legacy Poseidon circuit.
 *
 * Counts: neptune v11.0.0 (argumentcomputer/neptune ef8a821f8eba755ca8487c224f704fddbbc94e47)
 * src/circuit.rs test_poseidon_hash: Standard 2:311 4:377 8:505 16:761 24:1009 36:1385,
 * Strengthened 2:367 4:433 8:565 16:821 24:1069 36:1445, and its formula
 * 3 (t R_F + R_P - 1) + t R_F + R_P - arity for arity 11; rust-fil-proofs
 * (filecoin-project/rust-fil-proofs 87348a749d80447d00c595af834a8ed73c09e4d9)
 * storage-proofs-porep/src/stacked/circuit/hash.rs test_hash2_circuit (311) and
 * test_hash_single_column_circuit (598), filecoin-hashers/src/poseidon.rs test_hash_md_circuit
 * (2770). Outputs against the known answers of tests/vectors/hash/poseidon_vectors.h (neptune
 * hash_values_aux for [0 .. arity-1], Filecoin's hash_md of 71 ones and its binary tree) and
 * against hash/poseidon's native hash on random inputs.
 */
#include "harness/test.h"

#include <stdlib.h>

#include "gadgets/gadget_util.h"
#include "gadgets/internal.h"
#include "hash/poseidon.h"
#include "vectors/hash/poseidon_vectors.h"

static const size_t ARITIES[] = {2, 4, 8, 11, 16, 24, 36};

typedef struct pos_ctx {
    size_t arity;
    const poseidon_params_t *p;
    fr_t in[POSEIDON_MAX_ARITY];
    const fr_t *tag; /* NULL: MerkleTree */
    gad_num_t out;
} pos_ctx;

static void pos_synth(cs_t *cs, void *p)
{
    pos_ctx *c = p;
    gad_num_t in[POSEIDON_MAX_ARITY];
    for (size_t i = 0; i < c->arity; i++) {
        gad_num_alloc(cs, &in[i], &c->in[i]);
    }
    gu_inputs_done(cs);
    if (c->tag) {
        gad_poseidon_hash_tagged(cs, &c->out, c->tag, in, c->arity, c->p);
    } else {
        gad_poseidon_hash(cs, &c->out, in, c->arity, c->p);
    }
}

static size_t neptune_formula(size_t arity, size_t r_p)
{
    size_t t = arity + 1, r_f = 8;
    return 3 * (t * r_f + r_p - 1) + t * r_f + r_p - arity;
}

static size_t expected_constraints(size_t arity, bool strengthened)
{
    switch (arity) {
    case 2:
        return strengthened ? 367 : 311;
    case 4:
        return strengthened ? 433 : 377;
    case 8:
        return strengthened ? 565 : 505;
    case 11:
        return strengthened ? 0 : 598;
    case 16:
        return strengthened ? 821 : 761;
    case 24:
        return strengthened ? 1069 : 1009;
    default:
        return strengthened ? 1445 : 1385;
    }
}

static const struct poseidon_kat *kat_for(size_t arity)
{
    for (size_t i = 0; i < ARRAY_LEN(poseidon_neptune_kats); i++) {
        if (poseidon_neptune_kats[i].arity == arity) {
            return &poseidon_neptune_kats[i];
        }
    }
    CHECK(0);
    return NULL;
}

TEST(poseidon_counts_and_neptune_kats)
{
    for (size_t k = 0; k < ARRAY_LEN(ARITIES); k++) {
        pos_ctx c;
        memset(&c, 0, sizeof(c));
        c.arity = ARITIES[k];
        c.p = poseidon_params(c.arity);
        for (size_t i = 0; i < c.arity; i++) {
            fr_from_u64(&c.in[i], i);
        }
        size_t want = expected_constraints(c.arity, false);
        CHECK_EQ_U64(want, neptune_formula(c.arity, c.p->partial_rounds));
        /* allocations equal constraints (plus the arity inputs allocated by the test) */
        GU_CHECK_COUNTS(pos_synth, &c, 1, want + c.arity, want);
        fr_t kat;
        gu_fr_from_limbs(&kat, kat_for(c.arity)->merkle);
        CHECK_MSG(fr_eq(&c.out.value, &kat), "arity %zu: circuit output differs from neptune",
                  c.arity);
        gu_check_sat(pos_synth, &c);
        (void)gu_soundness(pos_synth, &c);
    }
}

TEST(poseidon_strengthened)
{
    for (size_t k = 0; k < ARRAY_LEN(ARITIES); k++) {
        size_t arity = ARITIES[k];
        size_t want = expected_constraints(arity, true);
        if (!want) {
            continue; /* neptune's test has no strengthened arity 11 */
        }
        poseidon_params_t params;
        size_t len = poseidon_params_storage_len(arity, POSEIDON_STRENGTHENED);
        fr_t *storage = malloc(len * sizeof(fr_t));
        CHECK(storage);
        poseidon_params_init(&params, arity, POSEIDON_STRENGTHENED, storage, len);
        pos_ctx c;
        memset(&c, 0, sizeof(c));
        c.arity = arity;
        c.p = &params;
        for (size_t i = 0; i < arity; i++) {
            fr_from_u64(&c.in[i], i);
        }
        GU_CHECK_COUNTS(pos_synth, &c, 1, want + arity, want);
        fr_t kat;
        gu_fr_from_limbs(&kat, kat_for(arity)->merkle_strengthened);
        CHECK(fr_eq(&c.out.value, &kat));
        gu_check_sat(pos_synth, &c);
        free(storage);
    }
}

TEST(poseidon_random_vs_native)
{
    cz_prng *g = test_prng();
    for (size_t k = 0; k < ARRAY_LEN(ARITIES); k++) {
        for (int it = 0; it < 3; it++) {
            pos_ctx c;
            fr_t want;
            memset(&c, 0, sizeof(c));
            c.arity = ARITIES[k];
            c.p = poseidon_params(c.arity);
            for (size_t i = 0; i < c.arity; i++) {
                gu_rand_fr(&c.in[i], g);
            }
            poseidon_hash(&want, c.in, c.arity, c.p);
            /* the witness backend (no LCs) and the checker (LCs) agree with the native hash */
            cs_t *cs = NULL;
            CHECK_OK(cs_new_witness(&cs, NULL, NULL));
            pos_synth(cs, &c);
            CHECK_OK(cs_finish(cs, NULL));
            cs_free(cs);
            CHECK(fr_eq(&c.out.value, &want));
            memset(&c.out, 0, sizeof(c.out));
            gu_check_sat(pos_synth, &c);
            CHECK(fr_eq(&c.out.value, &want));
        }
    }
}

TEST(poseidon_custom_tags)
{
    /* ConstantLength(4) over [0, 1, 2, 3] with arity 4 (neptune's constant-length KAT), and
     * SnapDeals' Custom(1) = 2^40 tag with arity 2 against the native tagged hash. */
    pos_ctx c;
    fr_t tag, kat, want;
    memset(&c, 0, sizeof(c));
    c.arity = 4;
    c.p = poseidon_params(4);
    for (size_t i = 0; i < 4; i++) {
        fr_from_u64(&c.in[i], i);
    }
    poseidon_tag_constant_length(&tag, 4);
    c.tag = &tag;
    GU_CHECK_COUNTS(pos_synth, &c, 1, 377 + 4, 377);
    gu_fr_from_limbs(&kat, kat_for(4)->constant_length);
    CHECK(fr_eq(&c.out.value, &kat));
    gu_check_sat(pos_synth, &c);

    cz_prng *g = test_prng();
    c.arity = 2;
    c.p = poseidon_params(2);
    gu_rand_fr(&c.in[0], g);
    gu_rand_fr(&c.in[1], g);
    poseidon_tag_custom(&tag, 1);
    poseidon_hash_tagged(&want, &tag, c.in, 2, c.p);
    gu_check_sat(pos_synth, &c);
    CHECK(fr_eq(&c.out.value, &want));
    (void)gu_soundness(pos_synth, &c);
}

TEST(poseidon_filecoin_tree_kat)
{
    /* node = H(1, 0), root = H(H(1, 0), H(0, 1)) with arity-2 Poseidon */
    pos_ctx c;
    fr_t kat, n0, n1;
    memset(&c, 0, sizeof(c));
    c.arity = 2;
    c.p = poseidon_params(2);
    c.in[0] = FR_ONE;
    gu_check_sat(pos_synth, &c);
    n0 = c.out.value;
    gu_fr_from_limbs(&kat, poseidon_fil_tree_node0);
    CHECK(fr_eq(&n0, &kat));
    c.in[0] = FR_ZERO;
    c.in[1] = FR_ONE;
    gu_check_sat(pos_synth, &c);
    n1 = c.out.value;
    c.in[0] = n0;
    c.in[1] = n1;
    gu_check_sat(pos_synth, &c);
    gu_fr_from_limbs(&kat, poseidon_fil_tree_root);
    CHECK(fr_eq(&c.out.value, &kat));
}

typedef struct md_ctx {
    size_t n;
    gad_num_t out;
} md_ctx;

static void md_synth(cs_t *cs, void *p)
{
    md_ctx *c = p;
    gad_num_t in[80];
    for (size_t i = 0; i < c->n; i++) {
        gad_num_alloc(cs, &in[i], &FR_ONE);
    }
    gu_inputs_done(cs);
    gad_poseidon_hash_md(cs, &c->out, in, c->n);
}

TEST(poseidon_hash_md)
{
    md_ctx c = {71, {{0}, {{0}}}};
    fr_t kat;
    cs_counts_t n;
    gu_counts(&n, md_synth, &c);
    CHECK_EQ_U64(n.num_constraints, 2770);
    gu_fr_from_limbs(&kat, poseidon_fil_hash_md_71_ones);
    CHECK(fr_eq(&c.out.value, &kat));
    gu_check_sat(md_synth, &c);
    /* a short last chunk allocates zero padding: 40 elements = 35 + 4 + 31 padding */
    c.n = 40;
    GU_CHECK_COUNTS(md_synth, &c, 1, 40 + 31 + 2 * 1385, 2 * 1385);
    gu_check_sat(md_synth, &c);
}

/* ---------------------------------------------------------------------------------------------
 * Exact A/B/C of the S-box constraints and the materialisations (spec 3.7; neptune circuit.rs
 * square_sum, mul_sum, AllocatedNum::square, Elt::ensure_allocated). Arity 2: inputs Aux0,
 * Aux1; round 0 allocates Aux2..Aux7 (rows 0..5).
 * ------------------------------------------------------------------------------------------- */

TEST(poseidon_layout)
{
    pos_ctx c;
    cs_r1cs_t r;
    memset(&c, 0, sizeof(c));
    c.arity = 2;
    c.p = poseidon_params(2);
    fr_from_u64(&c.in[0], 7);
    fr_from_u64(&c.in[1], 9);
    gu_record(&r, pos_synth, &c);
    const size_t t = 3;
    const fr_t *crc = c.p->crc, *m = c.p->mds;
    fr_t npost;

    /* element 1: (x + pre) * (x + pre) = l2;  l2 * l2 = l4;  (x + pre) * l4 = l5 - post */
    gu_term a0[] = {gu_aux(0, 1), gu_in_fr(0, &crc[1])}, c0[] = {gu_aux(2, 1)};
    gu_check_row(&r, &r.A, 0, a0, 2, "square_sum A");
    gu_check_row(&r, &r.B, 0, a0, 2, "square_sum B");
    gu_check_row(&r, &r.C, 0, c0, 1, "square_sum C");
    gu_term a1[] = {gu_aux(2, 1)}, c1[] = {gu_aux(3, 1)};
    gu_check_row(&r, &r.A, 1, a1, 1, "l^4 A");
    gu_check_row(&r, &r.B, 1, a1, 1, "l^4 B");
    gu_check_row(&r, &r.C, 1, c1, 1, "l^4 C");
    fr_neg(&npost, &crc[t + 1]);
    gu_term b2[] = {gu_aux(3, 1)}, c2[] = {gu_aux(4, 1), gu_in_fr(0, &npost)};
    gu_check_row(&r, &r.A, 2, a0, 2, "mul_sum pre-post A");
    gu_check_row(&r, &r.B, 2, b2, 1, "mul_sum pre-post B");
    gu_check_row(&r, &r.C, 2, c2, 2, "mul_sum pre-post C");

    /* round 1, element 0: ensure_allocated of new[0] = sum_i M[i][0] old[i], where old[0] is
     * the constant (tag + pre0)^5 + post0, old[1] = Aux4, old[2] = Aux7: Aux8 (row 6) */
    fr_t c0v, sq, k0;
    fr_add(&c0v, &c.p->merkle_tag, &crc[0]);
    fr_sqr(&sq, &c0v);
    fr_sqr(&sq, &sq);
    fr_mul(&c0v, &sq, &c0v);
    fr_add(&c0v, &c0v, &crc[t]);
    fr_mul(&k0, &m[0 * t + 0], &c0v);
    gu_term a6[] = {gu_in_fr(0, &k0), gu_aux_fr(4, &m[1 * t + 0]), gu_aux_fr(7, &m[2 * t + 0])};
    gu_term one[] = {gu_in(0, 1)}, c6[] = {gu_aux(8, 1)};
    gu_check_row(&r, &r.A, 6, a6, 3, "ensure_allocated A");
    gu_check_row(&r, &r.B, 6, one, 1, "ensure_allocated B");
    gu_check_row(&r, &r.C, 6, c6, 1, "ensure_allocated C");
    /* l = Aux8: l^2 = Aux9 (row 7), l^4 = Aux10 (row 8), l * l4 = l5 - post = Aux11 (row 9) */
    gu_term a7[] = {gu_aux(8, 1)}, c7[] = {gu_aux(9, 1)};
    gu_check_row(&r, &r.A, 7, a7, 1, "l^2 A");
    gu_check_row(&r, &r.B, 7, a7, 1, "l^2 B");
    gu_check_row(&r, &r.C, 7, c7, 1, "l^2 C");
    fr_neg(&npost, &crc[2 * t + 0]);
    gu_term b9[] = {gu_aux(10, 1)}, c9[] = {gu_aux(11, 1), gu_in_fr(0, &npost)};
    gu_check_row(&r, &r.A, 9, a7, 1, "mul_sum post A");
    gu_check_row(&r, &r.B, 9, b9, 1, "mul_sum post B");
    gu_check_row(&r, &r.C, 9, c9, 2, "mul_sum post C");

    /* the terminal S-boxes have no post constant, and the result is materialised last:
     * enforce(sum_i M[i][1] l5_i | ONE | out) */
    size_t last = r.num_constraints - 1;
    uint64_t out = r.num_aux - 1;
    gu_term cl[] = {gu_aux(out, 1)};
    gu_check_row(&r, &r.B, last, one, 1, "hash result B");
    gu_check_row(&r, &r.C, last, cl, 1, "hash result C");
    gu_term al[3];
    for (size_t i = 0; i < t; i++) {
        /* terminal S-box of element i: its l5 is the 4th allocation of its S-box */
        uint64_t l5 = out - 4 * (t - i) + 3;
        al[i] = gu_aux_fr(l5, &m[i * t + 1]);
        gu_term tb[] = {gu_aux(l5 - 1, 1)}, tc[] = {gu_aux(l5, 1)};
        gu_check_row(&r, &r.B, last - 4 * (t - i) + 3, tb, 1, "terminal mul_sum B");
        gu_check_row(&r, &r.C, last - 4 * (t - i) + 3, tc, 1, "terminal mul_sum C");
    }
    gu_check_row(&r, &r.A, last, al, 3, "hash result A");
    cs_r1cs_clear(&r);
}

/* The partial-round coefficient tables (LC mode, standard parameters) give exactly the
 * constraints of the generic LC arithmetic: same shape digest, for every arity. */
typedef struct tab_ctx {
    size_t arity;
    bool use_table;
    fr_t in[POSEIDON_MAX_ARITY];
} tab_ctx;

static void tab_synth(cs_t *cs, void *p)
{
    tab_ctx *c = p;
    const poseidon_params_t *params = poseidon_params(c->arity);
    gad_num_t in[POSEIDON_MAX_ARITY], out;
    for (size_t i = 0; i < c->arity; i++) {
        gad_num_alloc(cs, &in[i], &c->in[i]);
    }
    gad_poseidon_circuit(cs, &out, &params->merkle_tag, in, c->arity, params, c->use_table);
}

TEST(poseidon_table_path_equals_generic)
{
    cz_prng *g = test_prng();
    for (size_t k = 0; k < ARRAY_LEN(ARITIES); k++) {
        tab_ctx c;
        char d1[65], d2[65];
        memset(&c, 0, sizeof(c));
        c.arity = ARITIES[k];
        for (size_t i = 0; i < c.arity; i++) {
            gu_rand_fr(&c.in[i], g);
        }
        c.use_table = true;
        gu_digest_hex(d1, tab_synth, &c);
        gu_check_sat(tab_synth, &c);
        c.use_table = false;
        gu_digest_hex(d2, tab_synth, &c);
        CHECK_STR_EQ(d1, d2);
    }
}
