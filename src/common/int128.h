/* int128.h - the only place unsigned __int128 is named (a GCC/Clang extension). */
#ifndef CUZK_COMMON_INT128_H
#define CUZK_COMMON_INT128_H

#include <stdint.h>

__extension__ typedef unsigned __int128 cz_u128;

/** (hi, lo) = a * b. */
static inline uint64_t cz_mul64(uint64_t a, uint64_t b, uint64_t *hi)
{
    cz_u128 t = (cz_u128)a * b;
    *hi = (uint64_t)(t >> 64);
    return (uint64_t)t;
}

/** Returns a + b + carry_in, sets *carry_out (0 or 1). */
static inline uint64_t cz_adc(uint64_t a, uint64_t b, uint64_t carry_in, uint64_t *carry_out)
{
    cz_u128 t = (cz_u128)a + b + carry_in;
    *carry_out = (uint64_t)(t >> 64);
    return (uint64_t)t;
}

/** Returns a - b - borrow_in, sets *borrow_out (0 or 1). */
static inline uint64_t cz_sbb(uint64_t a, uint64_t b, uint64_t borrow_in, uint64_t *borrow_out)
{
    cz_u128 t = (cz_u128)a - b - borrow_in;
    *borrow_out = (uint64_t)(t >> 64) & 1;
    return (uint64_t)t;
}

#endif /* CUZK_COMMON_INT128_H */
