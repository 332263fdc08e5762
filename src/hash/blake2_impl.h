/* blake2_impl.h - the part of BLAKE2 (RFC 7693 section 3) that BLAKE2s and BLAKE2b share with
 * other word sizes: a template included by blake2.c once for each, after BLAKE2_SIGMA. The
 * includer defines:
 *   B2_W                  the word type (uint32_t, uint64_t)
 *   B2_CTX                the state (members h[8], t[2], buf[B2_BLOCK], buflen; blake2.h)
 *   B2_BLOCK, B2_ROUNDS   block bytes and rounds (64, 10 / 128, 12)
 *   B2_R1 .. B2_R4        the rotations of G (16, 12, 8, 7 / 32, 24, 16, 63)
 *   B2_IV                 the initialisation vector (8 words)
 *   B2_LOAD, B2_STORE     little-endian word access (cz_load_le32, cz_store_le32, ...)
 *   B2_OUT                the largest digest in bytes
 *   B2_FN(suffix)         the variant's names (b2s##suffix)
 * Defines static B2_FN(_compress), _count, _absorb (update), _output and _finish; undefines the
 * parameters at the end, so the next instantiation starts clean.
 */

static inline B2_W B2_FN(_rotr)(B2_W x, unsigned n)
{
    return (x >> n) | (x << (8 * sizeof(B2_W) - n));
}

/* The mixing function G (section 3.1). */
static inline void B2_FN(_g)(B2_W v[16], int a, int b, int c, int d, B2_W x, B2_W y)
{
    v[a] = v[a] + v[b] + x;
    v[d] = B2_FN(_rotr)(v[d] ^ v[a], B2_R1);
    v[c] = v[c] + v[d];
    v[b] = B2_FN(_rotr)(v[b] ^ v[c], B2_R2);
    v[a] = v[a] + v[b] + y;
    v[d] = B2_FN(_rotr)(v[d] ^ v[a], B2_R3);
    v[c] = v[c] + v[d];
    v[b] = B2_FN(_rotr)(v[b] ^ v[c], B2_R4);
}

/* Compression F (section 3.2); `last` marks the final block. */
static void B2_FN(_compress)(B2_CTX *s, const uint8_t block[B2_BLOCK], bool last)
{
    B2_W m[16], v[16];

    for (int i = 0; i < 16; i++) {
        m[i] = B2_LOAD(block + sizeof(B2_W) * i);
    }
    for (int i = 0; i < 8; i++) {
        v[i] = s->h[i];
        v[i + 8] = B2_IV[i];
    }
    v[12] ^= s->t[0];
    v[13] ^= s->t[1];
    if (last) {
        v[14] = ~v[14];
    }
    for (int r = 0; r < B2_ROUNDS; r++) {
        const uint8_t *sg = BLAKE2_SIGMA[r];
        B2_FN(_g)(v, 0, 4, 8, 12, m[sg[0]], m[sg[1]]);
        B2_FN(_g)(v, 1, 5, 9, 13, m[sg[2]], m[sg[3]]);
        B2_FN(_g)(v, 2, 6, 10, 14, m[sg[4]], m[sg[5]]);
        B2_FN(_g)(v, 3, 7, 11, 15, m[sg[6]], m[sg[7]]);
        B2_FN(_g)(v, 0, 5, 10, 15, m[sg[8]], m[sg[9]]);
        B2_FN(_g)(v, 1, 6, 11, 12, m[sg[10]], m[sg[11]]);
        B2_FN(_g)(v, 2, 7, 8, 13, m[sg[12]], m[sg[13]]);
        B2_FN(_g)(v, 3, 4, 9, 14, m[sg[14]], m[sg[15]]);
    }
    for (int i = 0; i < 8; i++) {
        s->h[i] ^= v[i] ^ v[i + 8];
    }
}

/* t += n, the two words one counter. */
static void B2_FN(_count)(B2_CTX *s, size_t n)
{
    s->t[0] += (B2_W)n;
    if (s->t[0] < (B2_W)n) {
        s->t[1]++;
    }
}

/* Absorbs n bytes. A full buffer is compressed only once more input arrives: the last block
 * must be compressed with the final flag. */
static void B2_FN(_absorb)(B2_CTX *s, const uint8_t *p, size_t n)
{
    while (n > 0) {
        if (s->buflen == B2_BLOCK) {
            B2_FN(_count)(s, B2_BLOCK);
            B2_FN(_compress)(s, s->buf, false);
            s->buflen = 0;
        }
        if (s->buflen == 0) {
            while (n > B2_BLOCK) { /* whole blocks straight from the input */
                B2_FN(_count)(s, B2_BLOCK);
                B2_FN(_compress)(s, p, false);
                p += B2_BLOCK;
                n -= B2_BLOCK;
            }
        }
        size_t take = B2_BLOCK - s->buflen;
        if (take > n) {
            take = n;
        }
        memcpy(s->buf + s->buflen, p, take);
        s->buflen += take;
        p += take;
        n -= take;
    }
}

/* The first outlen bytes of h, little-endian. */
static void B2_FN(_output)(const B2_CTX *s, uint8_t *out, size_t outlen)
{
    uint8_t full[B2_OUT];

    for (int i = 0; i < 8; i++) {
        B2_STORE(full + sizeof(B2_W) * i, s->h[i]);
    }
    memcpy(out, full, outlen);
}

/* The last block (zero padded), compressed with the final flag, then the digest. */
static void B2_FN(_finish)(B2_CTX *s, uint8_t *out, size_t outlen)
{
    B2_FN(_count)(s, s->buflen);
    memset(s->buf + s->buflen, 0, B2_BLOCK - s->buflen);
    B2_FN(_compress)(s, s->buf, true);
    B2_FN(_output)(s, out, outlen);
}

#undef B2_W
#undef B2_CTX
#undef B2_BLOCK
#undef B2_ROUNDS
#undef B2_R1
#undef B2_R2
#undef B2_R3
#undef B2_R4
#undef B2_IV
#undef B2_LOAD
#undef B2_STORE
#undef B2_OUT
#undef B2_FN
