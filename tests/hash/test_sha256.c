/* test_sha256.c - SHA-256: FIPS 180-4 / NIST example digests, SHA-NI against the portable code,
 * everything against OpenSSL's SHA256(), the 64-byte fast path and its precomputed padding
 * schedule, and Filecoin's trimmed hash against supra_seal's zero-sector TreeD nodes.
 */
#include "harness/test.h"

#include <openssl/sha.h>

#include "common/bytes.h"
#include "hash/internal.h"
#include "hash/sha256.h"
#include "vectors/hash/sha256_vectors.h"

typedef void (*compress_fn)(uint32_t state[8], const uint8_t *blocks, size_t nblocks);

/* One-shot SHA-256 with a given compression function and the test's own padding code (kept
 * apart from sha256_final on purpose). */
static void hash_with(compress_fn f, uint8_t out[32], const uint8_t *data, size_t len)
{
    uint32_t st[8];
    uint8_t tail[128] = {0};
    size_t full = len / 64, rest = len % 64;
    size_t tail_len = rest + 9 <= 64 ? 64 : 128;

    memcpy(st, SHA256_IV, sizeof(st));
    f(st, data, full);
    memcpy(tail, data + full * 64, rest);
    tail[rest] = 0x80;
    cz_store_be64(tail + tail_len - 8, (uint64_t)len * 8);
    f(st, tail, tail_len / 64);
    for (int i = 0; i < 8; i++) {
        cz_store_be32(out + 4 * i, st[i]);
    }
}

static void hex32(uint8_t out[32], const char *hex)
{
    CHECK(cz_hex_decode(out, 32, hex));
}

/* FIPS 180-4 examples (NIST CSRC "Cryptographic Standards and Guidelines: Examples with
 * Intermediate Values", SHA256.pdf and SHA2_Additional.pdf) and the 896-bit message of
 * FIPS 180-2 Appendix B / RFC 6234. */
static const struct {
    const char *msg;
    const char *digest;
} fips_vectors[] = {
    {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnop"
     "qrsmnopqrstnopqrstu",
     "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
};

TEST(sha256_fips_examples)
{
    for (size_t i = 0; i < ARRAY_LEN(fips_vectors); i++) {
        const uint8_t *m = (const uint8_t *)fips_vectors[i].msg;
        size_t len = strlen(fips_vectors[i].msg);
        uint8_t want[32], got[32];

        hex32(want, fips_vectors[i].digest);
        sha256(got, m, len);
        CHECK_MEM_EQ(got, want, 32);
        hash_with(sha256_compress_portable, got, m, len);
        CHECK_MEM_EQ(got, want, 32);
        if (sha256_has_shani()) {
            hash_with(sha256_compress_shani, got, m, len);
            CHECK_MEM_EQ(got, want, 32);
        }
    }
}

/* One million 'a' (FIPS 180-2 Appendix B.3), fed incrementally in uneven pieces. */
TEST(sha256_million_a)
{
    static uint8_t chunk[1024];
    uint8_t want[32], got[32];
    sha256_ctx_t ctx;
    size_t done = 0, step = 1;

    memset(chunk, 'a', sizeof(chunk));
    hex32(want, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    sha256_init(&ctx);
    while (done < 1000000) {
        size_t n = step < 1000000 - done ? step : 1000000 - done;
        sha256_update(&ctx, chunk, n);
        done += n;
        step = step % 997 + 13; /* 1, 14, 27, ...: crosses block boundaries at every offset */
    }
    sha256_final(&ctx, got);
    CHECK_MEM_EQ(got, want, 32);
}

TEST(sha256_shani_matches_portable_all_lengths)
{
    uint8_t buf[300], a[32], b[32], c[32];
    cz_prng *g = test_prng();

    if (!sha256_has_shani()) {
        test_skip("no SHA-NI on this CPU");
    }
    for (size_t len = 0; len <= 300; len++) {
        for (int rep = 0; rep < 4; rep++) {
            cz_prng_bytes(g, buf, len);
            hash_with(sha256_compress_portable, a, buf, len);
            hash_with(sha256_compress_shani, b, buf, len);
            sha256(c, buf, len);
            CHECK_MEM_EQ(a, b, 32);
            CHECK_MEM_EQ(a, c, 32);
        }
    }
}

/* Multi-block calls equal block-by-block calls, for both implementations. */
TEST(sha256_compress_multiblock)
{
    uint8_t blocks[64 * 9];
    uint32_t s1[8], s2[8];
    cz_prng *g = test_prng();
    compress_fn fns[2] = {sha256_compress_portable, sha256_compress_shani};

    cz_prng_bytes(g, blocks, sizeof(blocks));
    for (int f = 0; f < (sha256_has_shani() ? 2 : 1); f++) {
        for (size_t n = 0; n <= 9; n++) {
            for (int i = 0; i < 8; i++) {
                s1[i] = s2[i] = (uint32_t)cz_prng_u64(g);
            }
            fns[f](s1, blocks, n);
            for (size_t k = 0; k < n; k++) {
                sha256_compress_portable(s2, blocks + 64 * k, 1);
            }
            CHECK_MEM_EQ(s1, s2, sizeof(s1));
        }
    }
}

/* Unaligned input pointers take the same path. */
TEST(sha256_unaligned_input)
{
    uint8_t buf[64 * 4 + 16], a[32], b[32];
    cz_prng *g = test_prng();

    cz_prng_bytes(g, buf, sizeof(buf));
    sha256(a, buf, 200);
    for (size_t off = 1; off < 16; off++) {
        memmove(buf + off, buf + off - 1, 200); /* shift the same message by one byte */
        sha256(b, buf + off, 200);
        CHECK_MEM_EQ(a, b, 32);
    }
}

TEST(sha256_matches_openssl)
{
    static uint8_t buf[20000];
    uint8_t got[32], want[32];
    cz_prng *g = test_prng();

    for (int rep = 0; rep < 200; rep++) {
        size_t len = (size_t)cz_prng_below(g, rep < 100 ? 200 : sizeof(buf));
        sha256_ctx_t ctx;
        size_t done = 0;

        cz_prng_bytes(g, buf, len);
        SHA256(buf, len, want);
        sha256(got, buf, len);
        CHECK_MEM_EQ(got, want, 32);
        sha256_init(&ctx);
        while (done < len) {
            size_t n = (size_t)cz_prng_below(g, 150);
            if (n > len - done) {
                n = len - done;
            }
            sha256_update(&ctx, buf + done, n);
            done += n;
        }
        sha256_final(&ctx, got);
        CHECK_MEM_EQ(got, want, 32);
    }
}

TEST(sha256_64_fast_path)
{
    uint8_t in[64], got[32], want[32], ref[32];
    cz_prng *g = test_prng();

    for (int rep = 0; rep < 1000; rep++) {
        cz_prng_bytes(g, in, sizeof(in));
        SHA256(in, 64, want);
        sha256_64(got, in);
        CHECK_MEM_EQ(got, want, 32);
        hash_with(sha256_compress_portable, ref, in, 64);
        CHECK_MEM_EQ(ref, want, 32);
        /* both round functions with the precomputed padding schedule */
        for (int f = 0; f < (sha256_has_shani() ? 2 : 1); f++) {
            uint32_t st[8];
            memcpy(st, SHA256_IV, sizeof(st));
            sha256_compress_portable(st, in, 1);
            (f ? sha256_rounds_wk_shani : sha256_rounds_wk_portable)(st, sha256_pad64_wk);
            for (int i = 0; i < 8; i++) {
                cz_store_be32(ref + 4 * i, st[i]);
            }
            CHECK_MEM_EQ(ref, want, 32);
        }
    }
    /* the output may alias the input */
    cz_prng_bytes(g, in, sizeof(in));
    SHA256(in, 64, want);
    sha256_64(in, in);
    CHECK_MEM_EQ(in, want, 32);
}

/* Many independent 64-byte messages (pairs interleaved with SHA-NI, odd tails), separate and
 * in-place buffers, plain and trimmed, against OpenSSL. */
TEST(sha256_64_many_and_fr32_nodes)
{
    static uint8_t in[64 * 33], buf[64 * 33], out[32 * 34];
    uint8_t want[32];
    cz_prng *g = test_prng();

    for (size_t n = 0; n <= 33; n++) {
        cz_prng_bytes(g, in, sizeof(in));
        memset(out, 0xee, sizeof(out));
        sha256_64_many(out, in, n);
        for (size_t i = 0; i < n; i++) {
            SHA256(in + 64 * i, 64, want);
            CHECK_MSG(memcmp(out + 32 * i, want, 32) == 0, "n=%zu i=%zu", n, i);
        }
        CHECK_EQ_U64(out[32 * n], 0xee); /* nothing written past n digests */

        memcpy(buf, in, sizeof(in));
        sha256_fr32_nodes(buf, buf, n); /* in place: one tree level */
        for (size_t i = 0; i < n; i++) {
            SHA256(in + 64 * i, 64, want);
            want[31] &= 0x3f;
            CHECK_MSG(memcmp(buf + 32 * i, want, 32) == 0, "in place n=%zu i=%zu", n, i);
        }
    }
}

/* Both back ends of the 64-byte path called directly (the dispatcher only ever takes one of
 * them on a given machine), with the plain and the trimming mask, in place. */
TEST(sha256_64_backends_direct)
{
    static uint8_t in[64 * 7], buf[64 * 7];
    uint8_t want[32];
    cz_prng *g = test_prng();

    for (int backend = 0; backend < (sha256_has_shani() ? 2 : 1); backend++) {
        for (size_t n = 0; n <= 7; n++) {
            for (int trim = 0; trim < 2; trim++) {
                uint8_t mask = trim ? 0x3f : 0xff;
                cz_prng_bytes(g, in, sizeof(in));
                memcpy(buf, in, sizeof(in));
                (backend ? sha256_64_shani : sha256_64_portable)(buf, buf, n, mask);
                for (size_t i = 0; i < n; i++) {
                    SHA256(in + 64 * i, 64, want);
                    want[31] &= mask;
                    CHECK_MSG(memcmp(buf + 32 * i, want, 32) == 0, "backend %d n=%zu i=%zu",
                              backend, n, i);
                }
            }
        }
    }
}

/* The constant padding-block schedule equals a fresh FIPS 180-4 expansion. */
TEST(sha256_pad64_schedule)
{
    uint32_t w[64] = {0x80000000u};

    w[15] = 512;
    for (int i = 16; i < 64; i++) {
        uint32_t x = w[i - 15], y = w[i - 2];
        uint32_t s0 = (x >> 7 | x << 25) ^ (x >> 18 | x << 14) ^ (x >> 3);
        uint32_t s1 = (y >> 17 | y << 15) ^ (y >> 19 | y << 13) ^ (y >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    for (int i = 0; i < 64; i++) {
        CHECK_EQ_U64(sha256_pad64_wk[i], (uint32_t)(w[i] + sha256_k[i]));
    }
    CHECK(((uintptr_t)sha256_pad64_wk & 15) == 0);
}

/* z_{k+1} = trim(SHA-256(z_k || z_k)) against supra_seal's table (z_6 is also the
 * @web3-storage/data-segment piece root of 2032 zero bytes, sealing.md 1.2). */
TEST(sha256_fr32_zero_tree_d)
{
    uint8_t z[32] = {0}, want[32], z6[32];

    hex32(want, sha256_cc_tree_d_nodes[0]);
    CHECK_MEM_EQ(z, want, 32);
    for (int k = 1; k <= 30; k++) {
        sha256_fr32_node(z, z, z);
        hex32(want, sha256_cc_tree_d_nodes[k]);
        CHECK_MSG(memcmp(z, want, 32) == 0, "z_%d differs", k);
    }
    hex32(want, "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833");
    hex32(z6, sha256_cc_tree_d_nodes[6]);
    CHECK_MEM_EQ(z6, want, 32);
}

/* Trimming clears exactly the top two bits of byte 31 and nothing else. */
TEST(sha256_fr32_trims_two_bits)
{
    uint8_t data[100], full[32], trimmed[32], node[32], l[32], r[32];
    cz_prng *g = test_prng();
    int saw_top_bits = 0;

    for (int rep = 0; rep < 64; rep++) {
        cz_prng_bytes(g, data, sizeof(data));
        SHA256(data, sizeof(data), full);
        sha256_fr32(trimmed, data, sizeof(data));
        CHECK_MEM_EQ(trimmed, full, 31);
        CHECK_EQ_U64(trimmed[31], full[31] & 0x3f);
        saw_top_bits |= full[31] & 0xc0;

        memcpy(l, data, 32);
        memcpy(r, data + 32, 32);
        SHA256(data, 64, full);
        sha256_fr32_node(node, l, r);
        CHECK_MEM_EQ(node, full, 31);
        CHECK_EQ_U64(node[31], full[31] & 0x3f);
    }
    CHECK(saw_top_bits); /* the samples did exercise the trim */
}

TEST(sha256_impl_name)
{
    CHECK_STR_EQ(sha256_impl_name(), sha256_has_shani() ? "sha-ni" : "portable");
}
