/* rand.c - OS randomness and the xoshiro256** test generator (Blackman & Vigna, 2018). */
#include "common/rand.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

cuzk_err cz_rand_bytes(void *buf, size_t n, cz_diag *dg)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            return cz_fail(dg, CUZK_E_IO, "getrandom: %s", strerror(errno));
        }
        p += got;
        n -= (size_t)got;
    }
    return CUZK_OK;
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void cz_prng_seed(cz_prng *g, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        g->s[i] = splitmix64(&seed);
    }
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t cz_prng_u64(cz_prng *g)
{
    uint64_t *s = g->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t cz_prng_below(cz_prng *g, uint64_t bound)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do {
        x = cz_prng_u64(g);
    } while (x >= limit);
    return x % bound;
}

void cz_prng_bytes(cz_prng *g, void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        uint64_t x = cz_prng_u64(g);
        size_t k = n < 8 ? n : 8;
        memcpy(p, &x, k);
        p += k;
        n -= k;
    }
}
