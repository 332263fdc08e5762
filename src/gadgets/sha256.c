/* sha256.c - the SHA-256 gadget (bellperson 0.27 gadgets/sha256.rs; spec circuits.md 2.10).
 *
 * The compression function mirrors the reference round by round: e and a stay "deferred"
 * (a list of addends) until the next round materialises them with one addmany (new_e before
 * new_a), all additions of one block share a MultiEq that is flushed at the end of the block,
 * and every xor/ch/maj goes bit by bit through the constant-folding Boolean operations, so
 * constant message words and the constant IV cost nothing, exactly as in the reference.
 */
#include "gadgets/gadgets.h"

#include "gadgets/internal.h"

/* FIPS 180-4 sec. 4.2.2. */
static const uint32_t ROUND_K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* FIPS 180-4 sec. 5.3.3. */
static const uint32_t IV[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

void gad_sha256_iv(gad_u32_t iv[8])
{
    for (unsigned i = 0; i < 8; i++) {
        gad_u32_const(&iv[i], IV[i]);
    }
}

/* out = rotr(x, r1) ^ rotr(x, r2) ^ (shift ? shr(x, r3) : rotr(x, r3)), with the reference's
 * operand order: (rotr r1).xor(rotr r2), then .xor(third). */
static void sigma(cs_t *cs, bool lab, gad_u32_t *out, const gad_u32_t *x, size_t r1, size_t r2,
                  size_t r3, bool shift, const char *first, const char *second)
{
    gad_u32_t t1, t2;

    gad_u32_rotr(&t1, x, r1);
    gad_u32_rotr(&t2, x, r2);
    GAD_NS_PUSH(cs, lab, first);
    gad_u32_xor(cs, out, &t1, &t2);
    GAD_NS_POP(cs, lab);
    if (shift) {
        gad_u32_shr(&t1, x, r3);
    } else {
        gad_u32_rotr(&t1, x, r3);
    }
    GAD_NS_PUSH(cs, lab, second);
    gad_u32_xor(cs, out, out, &t1);
    GAD_NS_POP(cs, lab);
}

/* The addends of one round that the next round (or the final additions) still needs. */
typedef struct round_terms {
    gad_u32_t h, s1, ch, k, d, s0, maj;
} round_terms;

void gad_sha256_compress(cs_t *cs, gad_u32_t out[8], const gad_bool_t block[512],
                         const gad_u32_t cur[8])
{
    bool lab = cs_wants_labels(cs);
    gad_u32_t w[64];
    gad_multieq_t me;

    for (unsigned i = 0; i < 16; i++) {
        gad_u32_from_bits_be(&w[i], block + 32 * i);
    }
    gad_multieq_init(&me, cs);

    /* Message schedule. */
    for (unsigned i = 16; i < 64; i++) {
        gad_u32_t s0, s1;
        GAD_NS_PUSHF(cs, lab, "w extension %u", i);
        sigma(cs, lab, &s0, &w[i - 15], 7, 18, 3, true, "first xor for s0", "second xor for s0");
        sigma(cs, lab, &s1, &w[i - 2], 17, 19, 10, true, "first xor for s1", "second xor for s1");
        const gad_u32_t *ops[4] = {&w[i - 16], &s0, &w[i - 7], &s1};
        GAD_NS_PUSH(cs, lab, "computation of w[i]");
        gad_u32_addmany(&me, &w[i], ops, 4);
        GAD_NS_POP(cs, lab);
        GAD_NS_POP(cs, lab);
    }

    /* Rounds. a and e start concrete (the current hash value) and are deferred afterwards. */
    gad_u32_t b = cur[1], c = cur[2], d = cur[3], f = cur[5], g = cur[6], h = cur[7];
    gad_u32_t new_a, new_e;
    round_terms t[2];
    const gad_u32_t *aops[8], *eops[8];
    size_t na = 0, ne = 0;

    for (unsigned i = 0; i < 64; i++) {
        round_terms *rt = &t[i & 1];
        GAD_NS_PUSHF(cs, lab, "compression round %u", i);

        if (ne) {
            GAD_NS_PUSH(cs, lab, "deferred e computation");
            gad_u32_addmany(&me, &new_e, eops, ne);
            GAD_NS_POP(cs, lab);
        } else {
            new_e = cur[4];
        }
        sigma(cs, lab, &rt->s1, &new_e, 6, 11, 25, false, "first xor for s1", "second xor for s1");
        GAD_NS_PUSH(cs, lab, "ch");
        gad_u32_sha256_ch(cs, &rt->ch, &new_e, &f, &g);
        GAD_NS_POP(cs, lab);
        rt->h = h;
        gad_u32_const(&rt->k, ROUND_K[i]);

        if (na) {
            GAD_NS_PUSH(cs, lab, "deferred a computation");
            gad_u32_addmany(&me, &new_a, aops, na);
            GAD_NS_POP(cs, lab);
        } else {
            new_a = cur[0];
        }
        sigma(cs, lab, &rt->s0, &new_a, 2, 13, 22, false, "first xor for s0", "second xor for s0");
        GAD_NS_PUSH(cs, lab, "maj");
        gad_u32_sha256_maj(cs, &rt->maj, &new_a, &b, &c);
        GAD_NS_POP(cs, lab);

        /* h = g; g = f; f = new_e; e = temp1 + d; d = c; c = b; b = new_a;
         * a = temp1 + S0 + maj, with temp1 = h + S1 + ch + K[i] + w[i]. */
        h = g;
        g = f;
        f = new_e;
        rt->d = d;
        eops[0] = &rt->h;
        eops[1] = &rt->s1;
        eops[2] = &rt->ch;
        eops[3] = &rt->k;
        eops[4] = &w[i];
        eops[5] = &rt->d;
        ne = 6;
        d = c;
        c = b;
        b = new_a;
        aops[0] = &rt->h;
        aops[1] = &rt->s1;
        aops[2] = &rt->ch;
        aops[3] = &rt->k;
        aops[4] = &w[i];
        aops[5] = &rt->s0;
        aops[6] = &rt->maj;
        na = 7;
        GAD_NS_POP(cs, lab);
    }

    /* Add the compressed chunk to the current hash value (out may alias cur: each cur[k] is
     * read before out[k] is written, and never after). */
    const gad_u32_t *pair[2];
    aops[na++] = &cur[0];
    GAD_NS_PUSH(cs, lab, "deferred h0 computation");
    gad_u32_addmany(&me, &out[0], aops, na);
    GAD_NS_POP(cs, lab);
    const gad_u32_t *mid[3] = {&b, &c, &d};
    for (unsigned k = 1; k <= 3; k++) {
        pair[0] = &cur[k];
        pair[1] = mid[k - 1];
        GAD_NS_PUSHF(cs, lab, "new h%u", k);
        gad_u32_addmany(&me, &out[k], pair, 2);
        GAD_NS_POP(cs, lab);
    }
    eops[ne++] = &cur[4];
    GAD_NS_PUSH(cs, lab, "deferred h4 computation");
    gad_u32_addmany(&me, &out[4], eops, ne);
    GAD_NS_POP(cs, lab);
    const gad_u32_t *last[3] = {&f, &g, &h};
    for (unsigned k = 5; k <= 7; k++) {
        pair[0] = &cur[k];
        pair[1] = last[k - 5];
        GAD_NS_PUSHF(cs, lab, "new h%u", k);
        gad_u32_addmany(&me, &out[k], pair, 2);
        GAD_NS_POP(cs, lab);
    }
    gad_multieq_finish(&me);
}

void gad_sha256_segs(cs_t *cs, gad_bool_t out[256], const gad_bool_t *const *seg,
                     const size_t *seg_bits, size_t nseg)
{
    bool lab = cs_wants_labels(cs);
    uint64_t total = 0;
    gad_u32_t cur[8];
    gad_bool_t block[512];
    size_t si = 0, soff = 0;

    for (size_t i = 0; i < nseg; i++) {
        total += seg_bits[i];
    }
    CZ_CHECK(total % 8 == 0);
    /* message || 1 || 0* || 64-bit big-endian length, a multiple of 512 bits */
    uint64_t padded = (total + 1 + 64 + 511) / 512 * 512;
    uint64_t len_at = padded - 64;

    gad_sha256_iv(cur);
    for (uint64_t blk = 0; blk < padded / 512; blk++) {
        for (unsigned j = 0; j < 512; j++) {
            uint64_t pos = blk * 512 + j;
            if (pos < total) {
                while (soff == seg_bits[si]) {
                    si++;
                    soff = 0;
                }
                block[j] = seg[si][soff++];
            } else if (pos == total) {
                block[j] = gad_bool_const(true);
            } else if (pos >= len_at) {
                block[j] = gad_bool_const((total >> (63 - (pos - len_at))) & 1);
            } else {
                block[j] = gad_bool_const(false);
            }
        }
        GAD_NS_PUSHF(cs, lab, "block %llu", (unsigned long long)blk);
        gad_sha256_compress(cs, cur, block, cur);
        GAD_NS_POP(cs, lab);
    }
    for (unsigned k = 0; k < 8; k++) {
        gad_u32_into_bits_be(out + 32 * k, &cur[k]);
    }
}

void gad_sha256(cs_t *cs, gad_bool_t out[256], const gad_bool_t *in, size_t nbits)
{
    gad_sha256_segs(cs, out, &in, &nbits, 1);
}

void gad_sha256_block_no_padding(cs_t *cs, gad_bool_t out[256], const gad_bool_t in[512])
{
    gad_u32_t cur[8];

    gad_sha256_iv(cur);
    gad_sha256_compress(cs, cur, in, cur);
    for (unsigned k = 0; k < 8; k++) {
        gad_u32_into_bits_be(out + 32 * k, &cur[k]);
    }
}
