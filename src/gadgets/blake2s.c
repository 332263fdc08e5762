/* blake2s.c - the BLAKE2s gadget (bellperson 0.27 gadgets/blake2s.rs; RFC 7693) and the
 * Blake2s hasher in circuit form (filecoin-hashers blake2s.rs, Blake2sHasher<Fr>).
 *
 * Layout as the reference: the state is 8 UInt32 (constant IV with the parameter block and the
 * personalization folded in); input bits are taken 32 at a time as little-endian words (bit 0
 * of byte 0 first), the last word and block padded with Constant(false); per compression the
 * counter and final-flag xors act on constants (free), the ten rounds share one MultiEq that is
 * flushed when the rounds end, and the closing h ^ v ^ v' xors follow. Empty input is one
 * all-constant block (no constraints). The IV and the message schedule are the native hash's
 * (hash/blake2.h).
 */
#include "gadgets/gadgets.h"

#include <string.h>

#include "gadgets/internal.h"
#include "hash/blake2.h"

/* The G positions of one round: four columns, then four diagonals. */
static const uint8_t B2S_G[8][4] = {
    {0, 4, 8, 12},  {1, 5, 9, 13},  {2, 6, 10, 14}, {3, 7, 11, 15},
    {0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13},  {3, 4, 9, 14},
};

/* v[d] = (v[d] ^ v[s]) >>> r */
static void xor_rotr(cs_t *cs, bool lab, gad_u32_t *dst, const gad_u32_t *src, size_t r,
                     const char *name)
{
    gad_u32_t t;

    GAD_NS_PUSH(cs, lab, name);
    gad_u32_xor(cs, &t, dst, src);
    GAD_NS_POP(cs, lab);
    gad_u32_rotr(dst, &t, r);
}

static void add_into(gad_multieq_t *me, bool lab, gad_u32_t *dst, const gad_u32_t *b,
                     const gad_u32_t *x, const char *name)
{
    const gad_u32_t *ops[3] = {dst, b, x};

    GAD_NS_PUSH(me->cs, lab, name);
    gad_u32_addmany(me, dst, ops, x ? 3 : 2);
    GAD_NS_POP(me->cs, lab);
}

static void mixing_g(gad_multieq_t *me, bool lab, gad_u32_t v[16], const uint8_t p[4],
                     const gad_u32_t *x, const gad_u32_t *y)
{
    cs_t *cs = me->cs;
    gad_u32_t *a = &v[p[0]], *b = &v[p[1]], *c = &v[p[2]], *d = &v[p[3]];

    add_into(me, lab, a, b, x, "mixing step 1");
    xor_rotr(cs, lab, d, a, 16, "mixing step 2");
    add_into(me, lab, c, d, NULL, "mixing step 3");
    xor_rotr(cs, lab, b, c, 12, "mixing step 4");
    add_into(me, lab, a, b, y, "mixing step 5");
    xor_rotr(cs, lab, d, a, 8, "mixing step 6");
    add_into(me, lab, c, d, NULL, "mixing step 7");
    xor_rotr(cs, lab, b, c, 7, "mixing step 8");
}

static void compress(cs_t *cs, bool lab, gad_u32_t h[8], const gad_u32_t m[16], uint64_t t,
                     bool last)
{
    gad_u32_t v[16], k;
    gad_multieq_t me;

    for (unsigned i = 0; i < 8; i++) {
        v[i] = h[i];
        gad_u32_const(&v[8 + i], BLAKE2S_IV[i]);
    }
    gad_u32_const(&k, (uint32_t)t);
    GAD_NS_PUSH(cs, lab, "first xor");
    gad_u32_xor(cs, &v[12], &v[12], &k);
    GAD_NS_POP(cs, lab);
    gad_u32_const(&k, (uint32_t)(t >> 32));
    GAD_NS_PUSH(cs, lab, "second xor");
    gad_u32_xor(cs, &v[13], &v[13], &k);
    GAD_NS_POP(cs, lab);
    if (last) {
        gad_u32_const(&k, UINT32_MAX);
        GAD_NS_PUSH(cs, lab, "third xor");
        gad_u32_xor(cs, &v[14], &v[14], &k);
        GAD_NS_POP(cs, lab);
    }

    gad_multieq_init(&me, cs);
    for (unsigned r = 0; r < 10; r++) {
        const uint8_t *s = BLAKE2_SIGMA[r];
        GAD_NS_PUSHF(cs, lab, "round %u", r);
        for (unsigned g = 0; g < 8; g++) {
            GAD_NS_PUSHF(cs, lab, "mixing invocation %u", g + 1);
            mixing_g(&me, lab, v, B2S_G[g], &m[s[2 * g]], &m[s[2 * g + 1]]);
            GAD_NS_POP(cs, lab);
        }
        GAD_NS_POP(cs, lab);
    }
    gad_multieq_finish(&me);

    for (unsigned i = 0; i < 8; i++) {
        GAD_NS_PUSHF(cs, lab, "h[%u] ^ v[%u] ^ v[%u + 8]", i, i, i);
        GAD_NS_PUSH(cs, lab, "first xor");
        gad_u32_xor(cs, &h[i], &h[i], &v[i]);
        GAD_NS_POP(cs, lab);
        GAD_NS_PUSH(cs, lab, "second xor");
        gad_u32_xor(cs, &h[i], &h[i], &v[i + 8]);
        GAD_NS_POP(cs, lab);
        GAD_NS_POP(cs, lab);
    }
}

static uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void gad_blake2s(cs_t *cs, gad_bool_t out[256], const gad_bool_t *in, size_t nbits,
                 const uint8_t personalization[8])
{
    bool lab = cs_wants_labels(cs);
    gad_u32_t h[8], m[16];

    CZ_CHECK(nbits % 8 == 0);
    for (unsigned i = 0; i < 8; i++) {
        uint32_t w = BLAKE2S_IV[i];
        if (i == 0) {
            w ^= 0x01010000u ^ 32u; /* digest length 32, no key, fanout = depth = 1 */
        } else if (i >= 6) {
            w ^= load_le32(personalization + 4 * (i - 6));
        }
        gad_u32_const(&h[i], w);
    }
    size_t nblocks = nbits == 0 ? 1 : (nbits + 511) / 512;
    for (size_t blk = 0; blk < nblocks; blk++) {
        for (unsigned w = 0; w < 16; w++) {
            gad_bool_t bits[32];
            for (unsigned j = 0; j < 32; j++) {
                size_t pos = blk * 512 + 32 * w + j;
                bits[j] = pos < nbits ? in[pos] : gad_bool_const(false);
            }
            gad_u32_from_bits(&m[w], bits);
        }
        bool last = blk + 1 == nblocks;
        if (last) {
            GAD_NS_PUSH(cs, lab, "final block");
            compress(cs, lab, h, m, (uint64_t)(nbits / 8), true);
        } else {
            GAD_NS_PUSHF(cs, lab, "block %zu", blk);
            compress(cs, lab, h, m, (uint64_t)(blk + 1) * 64, false);
        }
        GAD_NS_POP(cs, lab);
    }
    for (unsigned i = 0; i < 8; i++) {
        memcpy(out + 32 * i, h[i].bits, sizeof(h[i].bits));
    }
}

/* ------------------------------------------------------------------------------------------
 * Blake2sHasher<Fr> in circuit form
 * ---------------------------------------------------------------------------------------- */

void gad_blake2s_hash_bits(cs_t *cs, gad_num_t *out, const gad_bool_t *bits, size_t n)
{
    static const uint8_t ZERO_PERS[8] = {0};
    bool lab = cs_wants_labels(cs);
    gad_bool_t digest[256];

    GAD_NS_PUSH(cs, lab, "hash");
    gad_blake2s(cs, digest, bits, n, ZERO_PERS);
    GAD_NS_POP(cs, lab);
    GAD_NS_PUSH(cs, lab, "pack");
    gad_pack_bits(cs, out, digest, 256);
    GAD_NS_POP(cs, lab);
}

/* Upper bound on leaves for the on-stack preimage (PoR uses at most 8). */
#define B2S_LEAVES_MAX 16

void gad_blake2s_hash_leaves(cs_t *cs, gad_num_t *out, const gad_num_t *leaves, size_t n)
{
    bool lab = cs_wants_labels(cs);
    gad_bool_t pre[B2S_LEAVES_MAX * 256];
    size_t len = 0;

    CZ_CHECK(n >= 1 && n <= B2S_LEAVES_MAX);
    for (size_t i = 0; i < n; i++) {
        GAD_NS_PUSHF(cs, lab, "%zu_num_into_bits", i);
        gad_num_to_bits_le(cs, pre + len, &leaves[i]);
        GAD_NS_POP(cs, lab);
        len += GAD_FR_BITS;
        while (len % 8 != 0) {
            pre[len++] = gad_bool_const(false);
        }
    }
    gad_blake2s_hash_bits(cs, out, pre, len);
}

void gad_blake2s_hash_leaf_bits(cs_t *cs, gad_num_t *out, const gad_bool_t *left, size_t nl,
                                const gad_bool_t *right, size_t nr)
{
    gad_bool_t pre[2 * 256];
    size_t len = 0;

    CZ_CHECK(nl <= 256 && nr <= 256);
    memcpy(pre, left, nl * sizeof(*left));
    len = nl;
    while (len % 8 != 0) {
        pre[len++] = gad_bool_const(false);
    }
    memcpy(pre + len, right, nr * sizeof(*right));
    len += nr;
    while (len % 8 != 0) {
        pre[len++] = gad_bool_const(false);
    }
    gad_blake2s_hash_bits(cs, out, pre, len);
}
