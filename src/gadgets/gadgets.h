/* gadgets.h - circuit gadgets, layout-exact with bellperson 0.27 / bellpepper-core 0.2 /
 * neptune 11 / storage-proofs-core (spec circuits.md sections 2, 3.7-3.8, 4 and 5.4).
 *
 * Every gadget allocates variables and emits constraints in exactly the reference's order with
 * exactly its A/B/C split, and applies exactly its constant-folding rules, because the official
 * Filecoin parameters fit only that shape (spec 1.5). Each function names the reference it
 * mirrors; the spec section gives the allocation and constraint order.
 *
 * Values: every gadget always computes the witness values of what it allocates (from the
 * values of its inputs) and hands them to cs_alloc. With a backend that keeps no values
 * (counter, digest, recorder) inputs may carry any value (zero); the shape does not depend on
 * values. LCs are built only when cs_needs_lcs(cs); otherwise NULL is enforced, which is what
 * makes the witness backend fast.
 *
 * Errors: none returned. Allocation failures and gadget misuse through bad data are sticky
 * errors of the cs (cs_status, cs_finish); a broken contract (wrong lengths, a non-allocated bit
 * where the reference panics) is CZ_CHECK.
 * Memory: scratch on the stack (the SHA-256 compression uses ~50 KiB: 64 message words);
 * heap LCs inside the cs for MultiEq and Poseidon (LC backends only); gad_insert beyond 64
 * elements and gad_select beyond 64 inputs take their scratch from cz_malloc.
 * Threads: reentrant; a cs is used by one thread at a time.
 */
#ifndef CUZK_GADGETS_GADGETS_H
#define CUZK_GADGETS_GADGETS_H

#include "common/common.h"
#include "field/fr.h"
#include "hash/poseidon.h"
#include "r1cs/r1cs.h"

/* =============================================================================================
 * Boolean (bellpepper-core gadgets/boolean.rs; spec 2.1-2.4)
 * =========================================================================================== */

/** The three-way tag of a Boolean. GAD_CONST is 0 so that a zeroed gad_bool_t is
 *  Constant(false). */
typedef enum gad_bool_kind {
    GAD_CONST = 0, /* Constant(value) */
    GAD_IS = 1,    /* Is(var): the allocated bit var */
    GAD_NOT = 2,   /* Not(var): 1 - the allocated bit var */
} gad_bool_kind;

/** A Boolean: `value` is the value of the Boolean itself (for GAD_NOT the negation of the
 *  allocated bit's value); `var` is the allocated bit (ONE for constants). */
typedef struct gad_bool {
    cs_var_t var;
    uint8_t kind;  /* gad_bool_kind */
    uint8_t value; /* 0 or 1 */
} gad_bool_t;

/** 256 Constant(false) bits, for padding. */
extern const gad_bool_t GAD_FALSE_BITS[256];

static inline gad_bool_t gad_bool_const(bool v)
{
    gad_bool_t b = {{0}, GAD_CONST, (uint8_t)v};
    return b;
}

/** Boolean::not: free. */
static inline gad_bool_t gad_bool_not(gad_bool_t b)
{
    if (b.kind == GAD_IS) {
        b.kind = GAD_NOT;
    } else if (b.kind == GAD_NOT) {
        b.kind = GAD_IS;
    }
    b.value ^= 1;
    return b;
}

static inline bool gad_bool_is_const(gad_bool_t b)
{
    return b.kind == GAD_CONST;
}

/** The value of the underlying allocated bit (differs from b.value for GAD_NOT). */
static inline bool gad_bit_value(gad_bool_t b)
{
    return (b.value ^ (b.kind == GAD_NOT)) != 0;
}

/** AllocatedBit::alloc: x = alloc(v); enforce(ONE - x | x | {}). Returns Is(x). */
gad_bool_t gad_alloc_bit(cs_t *cs, bool value);
/** AllocatedBit::alloc_conditionally: x = alloc(v); enforce(ONE - must_be_false - x | x | {}).
 *  `must_be_false` must be GAD_IS (an AllocatedBit). */
gad_bool_t gad_alloc_bit_cond(cs_t *cs, bool value, gad_bool_t must_be_false);

/** AllocatedBit::xor / and / and_not / nor on two ALLOCATED bits (GAD_IS or GAD_NOT; the
 *  underlying bit variable and its value are used, the tag is ignored, as in the reference's
 *  AllocatedBit calls). Each allocates r first, then one constraint:
 *  xor: 2a | b | a + b - r;  and: a | b | r;  and_not: a | ONE - b | r;  nor: ONE - a | ONE - b | r.
 *  Returns Is(r). */
gad_bool_t gad_bit_xor(cs_t *cs, gad_bool_t a, gad_bool_t b);
gad_bool_t gad_bit_and(cs_t *cs, gad_bool_t a, gad_bool_t b);
gad_bool_t gad_bit_and_not(cs_t *cs, gad_bool_t a, gad_bool_t b);
gad_bool_t gad_bit_nor(cs_t *cs, gad_bool_t a, gad_bool_t b);

/** Boolean::xor / and with the reference's constant folding (spec 2.3). */
gad_bool_t gad_bool_xor(cs_t *cs, gad_bool_t a, gad_bool_t b);
gad_bool_t gad_bool_and(cs_t *cs, gad_bool_t a, gad_bool_t b);
/** Boolean::sha256_ch (a and b) xor (not a and c), and Boolean::sha256_maj (spec 2.4). */
gad_bool_t gad_bool_sha256_ch(cs_t *cs, gad_bool_t a, gad_bool_t b, gad_bool_t c);
gad_bool_t gad_bool_sha256_maj(cs_t *cs, gad_bool_t a, gad_bool_t b, gad_bool_t c);
/** Boolean::enforce_equal (unused by Filecoin): a constant mismatch is a sticky CUZK_E_UNSAT
 *  (the reference's SynthesisError::Unsatisfiable). */
void gad_bool_enforce_equal(cs_t *cs, gad_bool_t a, gad_bool_t b);

/** lc += coeff * lc(b) (coeff NULL means 1): Constant(true) -> coeff ONE, Constant(false) ->
 *  nothing, Is(x) -> coeff x, Not(x) -> coeff ONE - coeff x. */
void gad_lc_add_bool(cs_t *cs, cs_lc_t *lc, const fr_t *coeff, gad_bool_t b);
/** lc -= lc(b). */
void gad_lc_sub_bool(cs_t *cs, cs_lc_t *lc, gad_bool_t b);
/** lc += sum_{j<n} (base * 2^j) lc(bits[j]) (base NULL means 1). */
void gad_lc_add_bits(cs_t *cs, cs_lc_t *lc, const fr_t *base, const gad_bool_t *bits, size_t n);

/** u64_into_boolean_vec_le: 64 alloc_bits, LSB first. */
void gad_u64_into_bits_le(cs_t *cs, gad_bool_t out[64], uint64_t value);

/* =============================================================================================
 * AllocatedNum (bellpepper-core gadgets/num.rs; spec 2.5)
 * =========================================================================================== */

/** An allocated number: its variable and its value (Montgomery). */
typedef struct gad_num {
    cs_var_t var;
    fr_t value;
} gad_num_t;

#define GAD_FR_BITS     255 /* Fr::NUM_BITS */
#define GAD_FR_CAPACITY 254

/** AllocatedNum::alloc: 1 aux, no constraint. value NULL means 0 (backends without values). */
void gad_num_alloc(cs_t *cs, gad_num_t *out, const fr_t *value);
/** AllocatedNum::alloc_input: 1 input, no constraint. */
void gad_num_alloc_input(cs_t *cs, gad_num_t *out, const fr_t *value);
/** AllocatedNum::inputize: i = alloc_input(x); enforce(i | ONE | x). */
void gad_num_inputize(cs_t *cs, const gad_num_t *x);
/** mul: r = a*b; enforce(a | b | r).  square: r = a^2; enforce(a | a | r). out may alias. */
void gad_num_mul(cs_t *cs, gad_num_t *out, const gad_num_t *a, const gad_num_t *b);
void gad_num_square(cs_t *cs, gad_num_t *out, const gad_num_t *a);
/** to_bits_le (non-strict; Filecoin's field_into_allocated_bits_le + unpacking): 255
 *  alloc_bits LSB first, then enforce({} | {} | sum 2^i b_i - x). */
void gad_num_to_bits_le(cs_t *cs, gad_bool_t out[GAD_FR_BITS], const gad_num_t *x);
/** to_bits_le_strict: the decomposition constrained to be < r (runs of ones of r - 1 k-ary
 *  ANDed, alloc_conditionally on its zeros), then the same unpacking constraint. */
void gad_num_to_bits_le_strict(cs_t *cs, gad_bool_t out[GAD_FR_BITS], const gad_num_t *x);
/** conditionally_reverse(a, b, cond) -> (c, d) = cond ? (b, a) : (a, b); 2 aux, 2 constraints. */
void gad_num_conditionally_reverse(cs_t *cs, gad_num_t *c, gad_num_t *d, const gad_num_t *a,
                                   const gad_num_t *b, gad_bool_t cond);
/** assert_nonzero: inv = alloc(1/x); enforce(x | inv | ONE). x = 0 is a sticky CUZK_E_INVAL
 *  (the reference's DivisionByZero) when the backend keeps values. */
void gad_num_assert_nonzero(cs_t *cs, const gad_num_t *x);

/* =============================================================================================
 * multipack (bellperson gadgets/multipack.rs; spec 2.7)
 * =========================================================================================== */

/** pack_into_inputs: for each chunk of at most 254 bits, inp = alloc_input(sum 2^j bit_j);
 *  enforce(sum 2^j lc(bit_j) | ONE | inp). */
void gad_pack_into_inputs(cs_t *cs, const gad_bool_t *bits, size_t n);
/** pack_bits: the first min(n, 254) bits into r = alloc(sum); enforce(sum | ONE | r). */
void gad_pack_bits(cs_t *cs, gad_num_t *out, const gad_bool_t *bits, size_t n);
/** Host helpers: bytes_to_bits (MSB first per byte) and bytes_to_bits_le (LSB first); out
 *  holds 8 n entries. */
void gad_bytes_to_bits(bool *out, const uint8_t *bytes, size_t n);
void gad_bytes_to_bits_le(bool *out, const uint8_t *bytes, size_t n);
/** compute_multipacking: the field elements pack_into_inputs allocates for these bit values;
 *  writes ceil(n / 254) elements and returns that count. */
size_t gad_compute_multipacking(fr_t *out, const bool *bits, size_t n);

/* =============================================================================================
 * UInt32 and MultiEq (bellperson gadgets/uint32.rs, multieq.rs; spec 2.8-2.9)
 * =========================================================================================== */

/** 32 Booleans, least significant first, and the value. */
typedef struct gad_u32 {
    gad_bool_t bits[32];
    uint32_t value;
} gad_u32_t;

/** The MultiEq accumulator: packs several small "lhs = rhs" equalities into one constraint
 *  enforce(lhs | ONE | rhs), flushed before an equality would reach 254 bits and at
 *  gad_multieq_finish. Owns two heap LCs (only used when the cs needs LCs). */
typedef struct gad_multieq {
    cs_t *cs;
    size_t bits_used;
    size_t ops; /* flushes so far (labels) */
    fr_t coeff; /* 2^bits_used */
    bool lcs;   /* cs_needs_lcs(cs) */
    cs_lc_t lhs, rhs;
} gad_multieq_t;

void gad_multieq_init(gad_multieq_t *me, cs_t *cs);
/** enforce_equal(num_bits, lhs, rhs): flushes first if 254 <= bits_used + num_bits, then
 *  accumulates 2^bits_used * (lhs, rhs). `lhs` and `rhs` must be heap LCs or NULL (a flush
 *  would kill arena LCs); ignored when the cs needs no LCs. */
void gad_multieq_enforce_equal(gad_multieq_t *me, size_t num_bits, const cs_lc_t *lhs,
                               const cs_lc_t *rhs);
/** The wrapper's drop: flushes if bits_used > 0 and frees the LCs. */
void gad_multieq_finish(gad_multieq_t *me);

void gad_u32_const(gad_u32_t *out, uint32_t v);
/** UInt32::alloc: 32 alloc_bits, LSB first. */
void gad_u32_alloc(cs_t *cs, gad_u32_t *out, uint32_t v);
/** from_bits_be (32 bits, MSB first) / into_bits_be; from_bits / into_bits (LSB first). Free. */
void gad_u32_from_bits_be(gad_u32_t *out, const gad_bool_t bits[32]);
void gad_u32_into_bits_be(gad_bool_t out[32], const gad_u32_t *a);
void gad_u32_from_bits(gad_u32_t *out, const gad_bool_t bits[32]);
/** rotr / shr (by is taken mod 32, as the reference does). Free; out must not alias a. */
void gad_u32_rotr(gad_u32_t *out, const gad_u32_t *a, size_t by);
void gad_u32_shr(gad_u32_t *out, const gad_u32_t *a, size_t by);
/** self.xor(other): Boolean::xor(self_i, other_i), i = 0..31. out may alias either. */
void gad_u32_xor(cs_t *cs, gad_u32_t *out, const gad_u32_t *a, const gad_u32_t *b);
/** UInt32::sha256_ch / sha256_maj, bitwise. out may alias any input. */
void gad_u32_sha256_ch(cs_t *cs, gad_u32_t *out, const gad_u32_t *a, const gad_u32_t *b,
                       const gad_u32_t *c);
void gad_u32_sha256_maj(cs_t *cs, gad_u32_t *out, const gad_u32_t *a, const gad_u32_t *b,
                        const gad_u32_t *c);
/** UInt32::addmany over 2..10 operands through `me` (spec 2.8): all-constant operands fold to a
 *  constant; otherwise bitlength(n (2^32 - 1)) result bits are allocated and the equality is
 *  handed to the MultiEq. out may alias an operand. */
void gad_u32_addmany(gad_multieq_t *me, gad_u32_t *out, const gad_u32_t *const *ops, size_t n);

/* =============================================================================================
 * SHA-256 (bellperson gadgets/sha256.rs; spec 2.10)
 * =========================================================================================== */

/** The IV as 8 constant UInt32. */
void gad_sha256_iv(gad_u32_t iv[8]);
/** sha256_compression_function(block, cur): a fresh MultiEq for this block, flushed at the end.
 *  block: 512 bits in message order. out may alias cur. */
void gad_sha256_compress(cs_t *cs, gad_u32_t out[8], const gad_bool_t block[512],
                         const gad_u32_t cur[8]);
/** sha256(input): input in message order (byte 0 first, MSB first), nbits % 8 == 0; padded
 *  with constants exactly as the reference; out = 256 digest bits (byte 0 first, MSB first). */
void gad_sha256(cs_t *cs, gad_bool_t out[256], const gad_bool_t *in, size_t nbits);
/** The same over the concatenation of `nseg` segments (no copy of the whole message):
 *  seg[i] holds seg_bits[i] bits; the total must be a multiple of 8. */
void gad_sha256_segs(cs_t *cs, gad_bool_t out[256], const gad_bool_t *const *seg,
                     const size_t *seg_bits, size_t nseg);
/** sha256_block_no_padding: compression of one 512-bit block from the IV. */
void gad_sha256_block_no_padding(cs_t *cs, gad_bool_t out[256], const gad_bool_t in[512]);

/* =============================================================================================
 * Poseidon (neptune 11 circuit.rs::poseidon_hash, the "legacy" circuit; spec 3.7)
 * =========================================================================================== */

/** poseidon_hash(preimage[arity], constants) with the MerkleTree tag of p: neptune's legacy
 *  circuit over the compressed constants; allocations equal constraints:
 *  3 arity + 4 (t (R_F - 1) + R_P) + 1. p->arity must equal `arity`. */
void gad_poseidon_hash(cs_t *cs, gad_num_t *out, const gad_num_t *in, size_t arity,
                       const poseidon_params_t *p);
/** The same with any domain tag (SnapDeals: Custom(1) = 2^40). */
void gad_poseidon_hash_tagged(cs_t *cs, gad_num_t *out, const fr_t *tag, const gad_num_t *in,
                              size_t arity, const poseidon_params_t *p);
/** PoseidonFunction::hash_md_circuit (arity-36 Merkle-Damgard; allocated zero padding for a
 *  short last chunk). n >= 2. */
void gad_poseidon_hash_md(cs_t *cs, gad_num_t *out, const gad_num_t *in, size_t n);

/* =============================================================================================
 * storage-proofs-core gadgets (spec 4.1-4.5)
 * =========================================================================================== */

/** constraint::equal(a, b): enforce(a | ONE | b). `label` may be NULL. */
void gad_equal(cs_t *cs, const gad_num_t *a, const gad_num_t *b, const char *label);
/** constraint::sum: enforce(a + b | ONE | s).  difference: enforce(d + b | ONE | a). */
void gad_sum(cs_t *cs, const gad_num_t *a, const gad_num_t *b, const gad_num_t *s);
void gad_difference(cs_t *cs, const gad_num_t *a, const gad_num_t *b, const gad_num_t *d);
/** constraint::add: r = alloc(a + b); sum(a, b, r).  sub: r = alloc(a - b); difference(a, b, r). */
void gad_add(cs_t *cs, gad_num_t *out, const gad_num_t *a, const gad_num_t *b);
void gad_sub(cs_t *cs, gad_num_t *out, const gad_num_t *a, const gad_num_t *b);
/** encode(key, value) = add(key, value); decode(key, value) = sub(value, key). */
void gad_encode(cs_t *cs, gad_num_t *out, const gad_num_t *key, const gad_num_t *value);
void gad_decode(cs_t *cs, gad_num_t *out, const gad_num_t *key, const gad_num_t *value);
/** xor::xor: out[i] = Boolean::xor(in[i], key[i % 256]); key has 256 bits. */
void gad_xor_key(cs_t *cs, gad_bool_t *out, const gad_bool_t key[256], const gad_bool_t *in,
                 size_t n);

/** Root (variables.rs): Var (already allocated, costs nothing) or Val (allocated on use). */
typedef struct gad_root {
    bool is_var;
    gad_num_t num; /* Var: the number; Val: num.value is the value to allocate */
} gad_root_t;

/** Root::allocated. */
void gad_root_allocated(cs_t *cs, gad_num_t *out, const gad_root_t *r);

/** insertion::pick(cond, a, b) = cond ? a : b: c = alloc; enforce(b - a | lc(cond) | b - c). */
void gad_pick(cs_t *cs, gad_num_t *out, gad_bool_t cond, const gad_num_t *a, const gad_num_t *b);
/** insertion::insert: out (2^nbits entries) = elements with `element` inserted at index
 *  sum bits_i 2^i (bits LSB first); elements has 2^nbits - 1 entries. Hand-optimised layouts
 *  for 2, 4 and 8 (8 needs GAD_IS bits b0, b1), the general select-per-position otherwise.
 *  out must not alias element or elements. */
void gad_insert(cs_t *cs, gad_num_t *out, const gad_num_t *element, const gad_bool_t *bits,
                size_t nbits, const gad_num_t *elements);
/** insertion::select: from[sum bits_i 2^i], 2^nbits - 1 picks (most significant bit first). */
void gad_select(cs_t *cs, gad_num_t *out, const gad_num_t *from, const gad_bool_t *bits,
                size_t nbits);

/** UInt64 (gadgets/uint64.rs; spec 2.11). */
typedef struct gad_u64 {
    gad_bool_t bits[64]; /* LSB first */
    uint64_t value;
} gad_u64_t;

void gad_u64_const(gad_u64_t *out, uint64_t v);
void gad_u64_alloc(cs_t *cs, gad_u64_t *out, uint64_t v);
void gad_u64_to_bits_be(gad_bool_t out[64], const gad_u64_t *a);
void gad_u64_from_bits_be(gad_u64_t *out, const gad_bool_t bits[64]);
/** pack_into_input: pack_into_inputs(bits LSB first) -> one public input equal to the value. */
void gad_u64_pack_into_input(cs_t *cs, const gad_u64_t *a);

/** util::reverse_bit_numbering: pads `in` with Constant(false) to a multiple of 8 and reverses
 *  each group of 8. out holds round_up(n, 8) entries (must not alias in); returns that count. */
size_t gad_reverse_bit_numbering(gad_bool_t *out, const gad_bool_t *in, size_t n);

/* =============================================================================================
 * Hash functions in circuit form (filecoin-hashers; spec 4.6)
 * =========================================================================================== */

typedef enum gad_hasher {
    GAD_HASHER_POSEIDON = 0, /* PoseidonHasher: neptune legacy circuit, MerkleTree tags */
    GAD_HASHER_SHA256 = 1,   /* Sha256Hasher: SHA-256 trimmed to 254 bits */
    GAD_HASHER_BLAKE2S = 2,  /* Blake2sHasher: BLAKE2s-256 (zero personalization), 254 bits */
} gad_hasher;

/** Sha256Function::hash_circuit: sha256(bits), per-byte LSB first, pack_bits of the first 254. */
void gad_sha256_hash_bits(cs_t *cs, gad_num_t *out, const gad_bool_t *bits, size_t n);
/** Sha256Function::hash_multi_leaf_circuit / hash2_circuit: each leaf to_bits_le (255 bits +
 *  unpacking) then reverse_bit_numbering, all leaves before the hash; then hash_circuit. */
void gad_sha256_hash_leaves(cs_t *cs, gad_num_t *out, const gad_num_t *leaves, size_t n);
/** Sha256Function::hash_leaf_bits_circuit(left, right): each side padded to a multiple of 8
 *  and bit-reversed per byte, then hash_circuit. */
void gad_sha256_hash_leaf_bits(cs_t *cs, gad_num_t *out, const gad_bool_t *left, size_t nl,
                               const gad_bool_t *right, size_t nr);
/** HashFunction::hash_leaf_circuit(left, right): Poseidon arity 2 (hash2); SHA-256: both
 *  to_bits_le (left first), then hash_leaf_bits -- the same layout as hash2_circuit. */
void gad_hash_leaf(cs_t *cs, gad_hasher h, gad_num_t *out, const gad_num_t *left,
                   const gad_num_t *right);
/** HashFunction::hash_multi_leaf_circuit for either hasher (Poseidon: arity n, MerkleTree tag;
 *  n must be a supported Poseidon arity). */
void gad_hash_multi_leaf(cs_t *cs, gad_hasher h, gad_num_t *out, const gad_num_t *leaves, size_t n);

/* =============================================================================================
 * PoR Merkle inclusion (gadgets/por.rs; spec 4.7)
 * =========================================================================================== */

/** A tree shape: base arity U (2, 4 or 8) over `base_levels` levels, then one sub-tree level of
 *  arity V and one top-tree level of arity W (0 = none; W > 0 needs V > 0). */
typedef struct gad_tree_shape {
    uint32_t base_arity, sub_arity, top_arity;
    uint32_t base_levels;
} gad_tree_shape_t;

/** The shape of a tree of `leaves` leaves (a power of two that the arities divide exactly).
 *  False when the arities do not fit. */
bool gad_tree_shape_init(gad_tree_shape_t *s, uint64_t leaves, uint32_t base, uint32_t sub,
                         uint32_t top);
/** Levels of a path (base + sub + top), the arity of level l, the number of siblings of a
 *  whole path, and log2(leaves) (the path's index bits). */
size_t gad_tree_shape_levels(const gad_tree_shape_t *s);
uint32_t gad_tree_shape_arity(const gad_tree_shape_t *s, size_t level);
size_t gad_tree_shape_siblings(const gad_tree_shape_t *s);
size_t gad_tree_shape_index_bits(const gad_tree_shape_t *s);

/** PoRCircuit::synthesize(value, auth_path, root, private): per level (bottom up) index bits,
 *  siblings, insert, hash; then pack_into_inputs(all index bits) (one public input, the leaf
 *  index), rt = root.allocated(), equal(computed, rt), and inputize(rt) unless `private`.
 *  siblings: gad_tree_shape_siblings(shape) values, level by level in path order.
 *  level_index: the position of the proven node among its level's arity children, per level.
 *  computed (may be NULL): receives the computed root. */
void gad_por(cs_t *cs, gad_hasher h, const gad_tree_shape_t *shape, const gad_root_t *value,
             const fr_t *siblings, const uint32_t *level_index, const gad_root_t *root,
             bool private_root, gad_num_t *computed);
/** por_no_challenge_input(challenge_bits, leaf, path, root): the same per-level insert + hash
 *  with GIVEN index bits (GAD_IS, LSB first, consumed log2(arity) per level; exactly
 *  gad_tree_shape_index_bits of them) and GIVEN allocated siblings (level by level), no public input,
 *  final enforce(computed | ONE | root). */
void gad_por_no_challenge_input(cs_t *cs, gad_hasher h, const gad_tree_shape_t *shape,
                                const gad_bool_t *challenge_bits, size_t nbits,
                                const gad_num_t *leaf, const gad_num_t *path,
                                const gad_num_t *root);

/* =============================================================================================
 * PoRep labelling (storage-proofs-porep stacked/circuit/create_label.rs; spec 5.4)
 * =========================================================================================== */

#define GAD_LABEL_PARENTS 37 /* TOTAL_PARENTS */

/** create_label_circuit(replica_id, parents, layer, node): message = replica_id padded to 256
 *  bits, layer (UInt32 constant, big-endian), node (to_bits_be), padding to 512 bits, then the
 *  37 parents (256 bits each, message order); label = pack_bits of the first 254 bits of the
 *  per-byte-reversed SHA-256 digest. 32 <= id_bits <= 256. */
void gad_create_label(cs_t *cs, gad_num_t *out, const gad_bool_t *replica_id, size_t id_bits,
                      const gad_bool_t *const parents[GAD_LABEL_PARENTS], uint32_t layer,
                      const gad_u64_t *node);

/* =============================================================================================
 * BLAKE2s (bellperson gadgets/blake2s.rs) and Blake2sHasher<Fr> in circuit form
 * (filecoin-hashers blake2s.rs)
 * =========================================================================================== */

/** blake2s(input, personalization): digest length 32, no key; input bits per byte LSB first
 *  (bit 0 of byte 0 first), nbits % 8 == 0; out = 256 digest bits in the same order. Words are
 *  formed from the input with from_bits (free), the rounds of each compression share one
 *  MultiEq; 21518 constraints for one 512-bit block of allocated bits, 0 for constants. */
void gad_blake2s(cs_t *cs, gad_bool_t out[256], const gad_bool_t *in, size_t nbits,
                 const uint8_t personalization[8]);
/** Blake2sFunction::hash_circuit: blake2s with 8 zero personalization bytes (the native
 *  hasher's unpersonalized BLAKE2s-256), then pack_bits of the first 254 digest bits. */
void gad_blake2s_hash_bits(cs_t *cs, gad_num_t *out, const gad_bool_t *bits, size_t n);
/** Blake2sFunction::hash_multi_leaf_circuit / hash2_circuit: each leaf to_bits_le (255 bits +
 *  unpacking) padded with one Constant(false) to 256, all leaves before the hash. */
void gad_blake2s_hash_leaves(cs_t *cs, gad_num_t *out, const gad_num_t *leaves, size_t n);
/** Blake2sFunction::hash_leaf_bits_circuit: left, then right, each padded to a multiple of 8
 *  with Constant(false) (no bit reversal), then hash_circuit. */
void gad_blake2s_hash_leaf_bits(cs_t *cs, gad_num_t *out, const gad_bool_t *left, size_t nl,
                                const gad_bool_t *right, size_t nr);

#endif /* CUZK_GADGETS_GADGETS_H */
