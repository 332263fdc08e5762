/* gpu_compact.c - the host half of density compaction (gpu.h): the compaction map that
 * gpu_fr_compact_buf reads. Built with and without CUDA (pure host code), so that callers build
 * maps the same way in every build.
 * Layout: word w of the map is {bits of positions [64 w, 64 w + 64), the number of set bits in
 * positions [0, 64 w)}; a kernel thread finds the destination of position i from its own word
 * alone: prefix + popcount(bits below i).
 */
#include "gpu/gpu.h"

size_t gpu_compact_map_sizeof(size_t n)
{
    return (n + 63) / 64 * 2 * sizeof(uint64_t);
}

size_t gpu_compact_map_build(void *map, const uint64_t *bits, size_t n)
{
    uint64_t *out = map;
    size_t nw = (n + 63) / 64;
    uint64_t total = 0;

    for (size_t w = 0; w < nw; w++) {
        uint64_t b = bits[w];
        if (w == nw - 1 && n % 64 != 0) {
            b &= ((uint64_t)1 << (n % 64)) - 1; /* positions >= n do not exist */
        }
        out[2 * w] = b;
        out[2 * w + 1] = total;
        total += (uint64_t)__builtin_popcountll(b);
    }
    return (size_t)total;
}
