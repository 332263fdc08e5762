/* storage.c - storage-proofs-core helper gadgets (constraint.rs, encode.rs, xor.rs,
 * variables.rs, uint64.rs, util.rs), the hash functions in circuit form of filecoin-hashers,
 * and PoRep's create_label_circuit (spec circuits.md 2.11-2.12, 4.1-4.4, 4.6, 5.4).
 */
#include "gadgets/gadgets.h"

#include "gadgets/internal.h"

/* ------------------------------------------------------------------------------------------
 * constraint.rs, encode.rs, xor.rs, variables.rs
 * ---------------------------------------------------------------------------------------- */

/* enforce(a1 + a2 | ONE | c) with a2 optional (invalid var bits = none). */
static void enforce_lin(cs_t *cs, cs_var_t a1, const cs_var_t *a2, cs_var_t c, const char *label)
{
    if (cs_needs_lcs(cs)) {
        cs_lc_t la = cs_lc_of(cs, a1), lb = cs_lc_of(cs, CS_ONE), lc = cs_lc_of(cs, c);
        if (a2) {
            cs_lc_add_var(cs, &la, *a2);
        }
        (void)cs_enforce(cs, &la, &lb, &lc, label);
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, label);
    }
}

void gad_equal(cs_t *cs, const gad_num_t *a, const gad_num_t *b, const char *label)
{
    enforce_lin(cs, a->var, NULL, b->var, label);
}

void gad_sum(cs_t *cs, const gad_num_t *a, const gad_num_t *b, const gad_num_t *s)
{
    enforce_lin(cs, a->var, &b->var, s->var, "sum constraint");
}

void gad_difference(cs_t *cs, const gad_num_t *a, const gad_num_t *b, const gad_num_t *d)
{
    enforce_lin(cs, d->var, &b->var, a->var, "subtraction constraint");
}

void gad_add(cs_t *cs, gad_num_t *out, const gad_num_t *a, const gad_num_t *b)
{
    bool lab = cs_wants_labels(cs);
    gad_num_t r;
    fr_t v;

    fr_add(&v, &a->value, &b->value);
    GAD_NS_PUSH(cs, lab, "add_num");
    gad_num_alloc(cs, &r, &v);
    GAD_NS_POP(cs, lab);
    gad_sum(cs, a, b, &r);
    *out = r;
}

void gad_sub(cs_t *cs, gad_num_t *out, const gad_num_t *a, const gad_num_t *b)
{
    bool lab = cs_wants_labels(cs);
    gad_num_t r;
    fr_t v;

    fr_sub(&v, &a->value, &b->value);
    GAD_NS_PUSH(cs, lab, "sub_num");
    gad_num_alloc(cs, &r, &v);
    GAD_NS_POP(cs, lab);
    gad_difference(cs, a, b, &r);
    *out = r;
}

void gad_encode(cs_t *cs, gad_num_t *out, const gad_num_t *key, const gad_num_t *value)
{
    bool lab = cs_wants_labels(cs);
    GAD_NS_PUSH(cs, lab, "encode_add");
    gad_add(cs, out, key, value);
    GAD_NS_POP(cs, lab);
}

void gad_decode(cs_t *cs, gad_num_t *out, const gad_num_t *key, const gad_num_t *value)
{
    bool lab = cs_wants_labels(cs);
    GAD_NS_PUSH(cs, lab, "decode_sub");
    gad_sub(cs, out, value, key);
    GAD_NS_POP(cs, lab);
}

void gad_xor_key(cs_t *cs, gad_bool_t *out, const gad_bool_t key[256], const gad_bool_t *in,
                 size_t n)
{
    bool lab = cs_wants_labels(cs);
    for (size_t i = 0; i < n; i++) {
        GAD_NS_PUSHF(cs, lab, "xor bit: %zu", i);
        out[i] = gad_bool_xor(cs, in[i], key[i % 256]);
        GAD_NS_POP(cs, lab);
    }
}

void gad_root_allocated(cs_t *cs, gad_num_t *out, const gad_root_t *r)
{
    if (r->is_var) {
        *out = r->num;
    } else {
        gad_num_alloc(cs, out, &r->num.value);
    }
}

/* ------------------------------------------------------------------------------------------
 * UInt64, reverse_bit_numbering
 * ---------------------------------------------------------------------------------------- */

void gad_u64_const(gad_u64_t *out, uint64_t v)
{
    for (unsigned i = 0; i < 64; i++) {
        out->bits[i] = gad_bool_const((v >> i) & 1);
    }
    out->value = v;
}

void gad_u64_alloc(cs_t *cs, gad_u64_t *out, uint64_t v)
{
    bool lab = cs_wants_labels(cs);
    for (unsigned i = 0; i < 64; i++) {
        GAD_NS_PUSHF(cs, lab, "allocated bit %u", i);
        out->bits[i] = gad_alloc_bit(cs, (v >> i) & 1);
        GAD_NS_POP(cs, lab);
    }
    out->value = v;
}

void gad_u64_to_bits_be(gad_bool_t out[64], const gad_u64_t *a)
{
    for (unsigned i = 0; i < 64; i++) {
        out[i] = a->bits[63 - i];
    }
}

void gad_u64_from_bits_be(gad_u64_t *out, const gad_bool_t bits[64])
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 64; i++) {
        v = (v << 1) | bits[i].value;
    }
    for (unsigned i = 0; i < 64; i++) {
        out->bits[i] = bits[63 - i];
    }
    out->value = v;
}

void gad_u64_pack_into_input(cs_t *cs, const gad_u64_t *a)
{
    gad_pack_into_inputs(cs, a->bits, 64);
}

size_t gad_reverse_bit_numbering(gad_bool_t *out, const gad_bool_t *in, size_t n)
{
    size_t padded = (n + 7) / 8 * 8;

    CZ_CHECK(out != in);
    for (size_t i = 0; i < padded; i++) {
        size_t src = (i & ~(size_t)7) | (7 - (i & 7));
        out[i] = src < n ? in[src] : gad_bool_const(false);
    }
    return padded;
}

/* ------------------------------------------------------------------------------------------
 * Hash functions in circuit form (filecoin-hashers)
 * ---------------------------------------------------------------------------------------- */

void gad_sha256_hash_bits(cs_t *cs, gad_num_t *out, const gad_bool_t *bits, size_t n)
{
    bool lab = cs_wants_labels(cs);
    gad_bool_t be[256], le[256];

    GAD_NS_PUSH(cs, lab, "hash");
    gad_sha256(cs, be, bits, n);
    GAD_NS_POP(cs, lab);
    (void)gad_reverse_bit_numbering(le, be, 256);
    GAD_NS_PUSH(cs, lab, "pack_le");
    gad_pack_bits(cs, out, le, GAD_FR_CAPACITY);
    GAD_NS_POP(cs, lab);
}

/* Upper bound on leaves for the on-stack preimage (filecoin uses 2). */
#define SHA_LEAVES_MAX 16

void gad_sha256_hash_leaves(cs_t *cs, gad_num_t *out, const gad_num_t *leaves, size_t n)
{
    bool lab = cs_wants_labels(cs);
    gad_bool_t pre[SHA_LEAVES_MAX * 256];
    gad_bool_t le[GAD_FR_BITS];

    CZ_CHECK(n >= 1 && n <= SHA_LEAVES_MAX);
    for (size_t i = 0; i < n; i++) {
        GAD_NS_PUSHF(cs, lab, "%zu_num_into_bits", i);
        gad_num_to_bits_le(cs, le, &leaves[i]);
        GAD_NS_POP(cs, lab);
        (void)gad_reverse_bit_numbering(pre + 256 * i, le, GAD_FR_BITS);
    }
    gad_sha256_hash_bits(cs, out, pre, 256 * n);
}

void gad_sha256_hash_leaf_bits(cs_t *cs, gad_num_t *out, const gad_bool_t *left, size_t nl,
                               const gad_bool_t *right, size_t nr)
{
    gad_bool_t pre[2 * 256];

    CZ_CHECK(nl <= 256 && nr <= 256);
    size_t a = gad_reverse_bit_numbering(pre, left, nl);
    size_t b = gad_reverse_bit_numbering(pre + a, right, nr);
    gad_sha256_hash_bits(cs, out, pre, a + b);
}

void gad_hash_leaf(cs_t *cs, gad_hasher h, gad_num_t *out, const gad_num_t *left,
                   const gad_num_t *right)
{
    if (h == GAD_HASHER_SHA256) {
        bool lab = cs_wants_labels(cs);
        gad_bool_t lb[GAD_FR_BITS], rb[GAD_FR_BITS];
        GAD_NS_PUSH(cs, lab, "left num into bits");
        gad_num_to_bits_le(cs, lb, left);
        GAD_NS_POP(cs, lab);
        GAD_NS_PUSH(cs, lab, "right num into bits");
        gad_num_to_bits_le(cs, rb, right);
        GAD_NS_POP(cs, lab);
        gad_sha256_hash_leaf_bits(cs, out, lb, GAD_FR_BITS, rb, GAD_FR_BITS);
    } else if (h == GAD_HASHER_BLAKE2S) {
        bool lab = cs_wants_labels(cs);
        gad_bool_t lb[GAD_FR_BITS], rb[GAD_FR_BITS];
        GAD_NS_PUSH(cs, lab, "left num into bits");
        gad_num_to_bits_le(cs, lb, left);
        GAD_NS_POP(cs, lab);
        GAD_NS_PUSH(cs, lab, "right num into bits");
        gad_num_to_bits_le(cs, rb, right);
        GAD_NS_POP(cs, lab);
        gad_blake2s_hash_leaf_bits(cs, out, lb, GAD_FR_BITS, rb, GAD_FR_BITS);
    } else {
        gad_num_t in[2] = {*left, *right};
        gad_poseidon_hash(cs, out, in, 2, poseidon_params(2));
    }
}

void gad_hash_multi_leaf(cs_t *cs, gad_hasher h, gad_num_t *out, const gad_num_t *leaves, size_t n)
{
    if (h == GAD_HASHER_SHA256) {
        gad_sha256_hash_leaves(cs, out, leaves, n);
    } else if (h == GAD_HASHER_BLAKE2S) {
        gad_blake2s_hash_leaves(cs, out, leaves, n);
    } else {
        CZ_CHECK(poseidon_arity_is_supported(n));
        gad_poseidon_hash(cs, out, leaves, n, poseidon_params(n));
    }
}

/* ------------------------------------------------------------------------------------------
 * create_label_circuit
 * ---------------------------------------------------------------------------------------- */

void gad_create_label(cs_t *cs, gad_num_t *out, const gad_bool_t *replica_id, size_t id_bits,
                      const gad_bool_t *const parents[GAD_LABEL_PARENTS], uint32_t layer,
                      const gad_u64_t *node)
{
    bool lab = cs_wants_labels(cs);
    const gad_bool_t *seg[5 + GAD_LABEL_PARENTS];
    size_t len[5 + GAD_LABEL_PARENTS];
    size_t n = 0;
    gad_u32_t layer_u32;
    gad_bool_t layer_be[32], node_be[64], digest[256], le[256];

    CZ_CHECK(id_bits >= 32 && id_bits <= 256);
    /* replica id padded to 256 bits, layer (big-endian), node (big-endian), padding to 512 */
    seg[n] = replica_id;
    len[n++] = id_bits;
    seg[n] = GAD_FALSE_BITS;
    len[n++] = 256 - id_bits;
    gad_u32_const(&layer_u32, layer);
    gad_u32_into_bits_be(layer_be, &layer_u32);
    seg[n] = layer_be;
    len[n++] = 32;
    gad_u64_to_bits_be(node_be, node);
    seg[n] = node_be;
    len[n++] = 64;
    seg[n] = GAD_FALSE_BITS;
    len[n++] = 512 - 256 - 32 - 64;
    for (size_t i = 0; i < GAD_LABEL_PARENTS; i++) {
        seg[n] = parents[i];
        len[n++] = 256;
    }
    GAD_NS_PUSH(cs, lab, "hash");
    gad_sha256_segs(cs, digest, seg, len, n);
    GAD_NS_POP(cs, lab);
    (void)gad_reverse_bit_numbering(le, digest, 256);
    GAD_NS_PUSH(cs, lab, "result_num");
    gad_pack_bits(cs, out, le, GAD_FR_CAPACITY);
    GAD_NS_POP(cs, lab);
}
