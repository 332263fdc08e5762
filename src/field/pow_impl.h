/* pow_impl.h - exponentiation by a multi-limb exponent in one field; a template included once
 * by fp.c, fr.c and fp2.c. The includer defines:
 *   FE                the field type (fp_t, fr_t or fp2_t)
 *   FE_MUL, FE_SQR    its multiplication and squaring (outputs may alias inputs)
 *   FE_ONE            its one (a const object)
 *   FE_POW            the name of the function to define (fp_pow, fr_pow, fp2_pow), which the
 *                     field's header declares: out = a^e, e = n little-endian 64-bit limbs
 * Variable-time in e.
 */

void FE_POW(FE *out, const FE *a, const uint64_t *e, size_t n)
{
    /* left to right, 4-bit fixed window: a^0 .. a^15 precomputed (the window pays off only
     * for exponents longer than a limb; short ones go bit by bit) */
    FE tbl[16], acc = FE_ONE;
    size_t top = n;
    bool started = false;

    while (top > 0 && e[top - 1] == 0) {
        top--;
    }
    if (top <= 1) {
        uint64_t x = top ? e[0] : 0;
        for (int bit = 63; bit >= 0; bit--) {
            if (started) {
                FE_SQR(&acc, &acc);
            }
            if ((x >> bit) & 1) {
                if (started) {
                    FE_MUL(&acc, &acc, a);
                } else {
                    acc = *a;
                    started = true;
                }
            }
        }
        *out = acc;
        return;
    }
    tbl[0] = FE_ONE;
    tbl[1] = *a;
    for (int i = 2; i < 16; i++) {
        FE_MUL(&tbl[i], &tbl[i - 1], a);
    }
    for (size_t i = top; i-- > 0;) {
        for (int sh = 60; sh >= 0; sh -= 4) {
            unsigned digit = (unsigned)(e[i] >> sh) & 15;
            if (started) {
                FE_SQR(&acc, &acc);
                FE_SQR(&acc, &acc);
                FE_SQR(&acc, &acc);
                FE_SQR(&acc, &acc);
                if (digit) {
                    FE_MUL(&acc, &acc, &tbl[digit]);
                }
            } else if (digit) {
                acc = tbl[digit];
                started = true;
            }
        }
    }
    *out = acc;
}
