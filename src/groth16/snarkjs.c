/* snarkjs.c - snarkjs JSON (verification_key.json, proof.json, public.json) and the decimal
 * conversions it needs. Layouts as snarkjs 0.7 writes and reads them (src/groth16_verify.js,
 * src/zkey_export_verificationkey.js; curve.G1/G2.toObject, Gt.toObject): see circom.h.
 */
#include "groth16/circom.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "common/int128.h"
#include "curve/pairing.h"
#include "groth16/internal.h"

/* ---- decimal ---------------------------------------------------------------------------------- */

#define TEN19 UINT64_C(10000000000000000000)

char *g16_dec_from_limbs(char *out, size_t cap, const uint64_t *v, size_t n)
{
    uint64_t q[8];
    uint64_t parts[20]; /* base-10^19 digits, least significant first; 8 limbs need < 20 */
    size_t np = 0, len;

    CZ_CHECK(n <= 8 && cap >= 20 * n + 1);
    memcpy(q, v, n * sizeof(uint64_t));
    while (n > 0 && q[n - 1] == 0) {
        n--;
    }
    do {
        cz_u128 rem = 0;
        for (size_t i = n; i-- > 0;) {
            cz_u128 cur = rem << 64 | q[i];
            q[i] = (uint64_t)(cur / TEN19);
            rem = cur % TEN19;
        }
        parts[np++] = (uint64_t)rem;
        while (n > 0 && q[n - 1] == 0) {
            n--;
        }
    } while (n > 0);
    len = (size_t)snprintf(out, cap, "%llu", (unsigned long long)parts[np - 1]);
    for (size_t i = np - 1; i-- > 0;) {
        len += (size_t)snprintf(out + len, cap - len, "%019llu", (unsigned long long)parts[i]);
    }
    return out;
}

bool g16_fr_from_dec(fr_t *out, const char *s)
{
    uint64_t v[5] = {0};
    fr_repr_t repr;
    size_t len = strlen(s);

    if (len == 0 || len > 100) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        uint64_t carry;
        if (s[i] < '0' || s[i] > '9') {
            return false;
        }
        carry = (uint64_t)(s[i] - '0');
        for (int k = 0; k < 5; k++) {
            cz_u128 t = (cz_u128)v[k] * 10 + carry;
            v[k] = (uint64_t)t;
            carry = (uint64_t)(t >> 64);
        }
        if (carry != 0 || v[4] != 0) {
            return false; /* >= 2^256 > r */
        }
    }
    memcpy(repr.l, v, sizeof(repr.l));
    return fr_from_repr(out, &repr);
}

char *g16_fr_to_dec(char *out, size_t cap, const fr_t *a)
{
    fr_repr_t r;
    fr_to_repr(&r, a);
    return g16_dec_from_limbs(out, cap, r.l, FR_NLIMBS);
}

char *g16_fp_to_dec(char *out, size_t cap, const fp_t *a)
{
    uint64_t v[FP_NLIMBS];
    fp_to_limbs(v, a);
    return g16_dec_from_limbs(out, cap, v, FP_NLIMBS);
}

/* ---- writers ---------------------------------------------------------------------------------- */

#define DEC_CAP 128

static void put_fp(FILE *f, const fp_t *a)
{
    char buf[DEC_CAP];
    fprintf(f, "\"%s\"", g16_fp_to_dec(buf, sizeof(buf), a));
}

static void put_fp2(FILE *f, const fp2_t *a)
{
    fputc('[', f);
    put_fp(f, &a->c0);
    fputc(',', f);
    put_fp(f, &a->c1);
    fputc(']', f);
}

/* snarkjs G1 object: [x, y, 1]; the identity is [0, 1, 0]. */
static void put_g1(FILE *f, const g1_aff_t *p)
{
    if (g1_aff_is_identity(p)) {
        fputs("[\"0\",\"1\",\"0\"]", f);
        return;
    }
    fputc('[', f);
    put_fp(f, &p->x);
    fputc(',', f);
    put_fp(f, &p->y);
    fputs(",\"1\"]", f);
}

/* snarkjs G2 object: [[x.c0, x.c1], [y.c0, y.c1], [1, 0]]; identity [[0,0],[1,0],[0,0]]. */
static void put_g2(FILE *f, const g2_aff_t *p)
{
    if (g2_aff_is_identity(p)) {
        fputs("[[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]]", f);
        return;
    }
    fputc('[', f);
    put_fp2(f, &p->x);
    fputc(',', f);
    put_fp2(f, &p->y);
    fputs(",[\"1\",\"0\"]]", f);
}

static void put_fp6(FILE *f, const fp6_t *a)
{
    fputc('[', f);
    put_fp2(f, &a->c0);
    fputc(',', f);
    put_fp2(f, &a->c1);
    fputc(',', f);
    put_fp2(f, &a->c2);
    fputc(']', f);
}

static FILE *open_out(const char *path, cz_diag *dg, cuzk_err *err)
{
    FILE *f = fopen(path, "w");
    *err = f ? CUZK_OK : cz_fail(dg, CUZK_E_IO, "%s: cannot create: %s", path, strerror(errno));
    return f;
}

static cuzk_err close_out(FILE *f, const char *path, cz_diag *dg)
{
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad) {
        remove(path);
        return cz_fail(dg, CUZK_E_IO, "%s: write failed", path);
    }
    return CUZK_OK;
}

cuzk_err g16_snarkjs_write_vk(const g16_vk_t *vk, const char *path, cz_diag *dg)
{
    cuzk_err err;
    fp12_t ab;
    FILE *f = open_out(path, dg, &err);

    if (!f) {
        return err;
    }
    pairing(&ab, &vk->alpha_g1, &vk->beta_g2);
    fprintf(f, "{\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\",\n \"nPublic\": %zu,\n",
            vk->ic_len - 1);
    fputs(" \"vk_alpha_1\": ", f);
    put_g1(f, &vk->alpha_g1);
    fputs(",\n \"vk_beta_2\": ", f);
    put_g2(f, &vk->beta_g2);
    fputs(",\n \"vk_gamma_2\": ", f);
    put_g2(f, &vk->gamma_g2);
    fputs(",\n \"vk_delta_2\": ", f);
    put_g2(f, &vk->delta_g2);
    fputs(",\n \"vk_alphabeta_12\": [", f);
    put_fp6(f, &ab.c0);
    fputc(',', f);
    put_fp6(f, &ab.c1);
    fputs("],\n \"IC\": [", f);
    for (size_t i = 0; i < vk->ic_len; i++) {
        fputs(i ? ",\n  " : "\n  ", f);
        put_g1(f, &vk->ic[i]);
    }
    fputs("\n ]\n}\n", f);
    return close_out(f, path, dg);
}

cuzk_err g16_snarkjs_write_proof(const g16_proof_t *proof, const char *path, cz_diag *dg)
{
    cuzk_err err;
    FILE *f = open_out(path, dg, &err);

    if (!f) {
        return err;
    }
    fputs("{\n \"pi_a\": ", f);
    put_g1(f, &proof->a);
    fputs(",\n \"pi_b\": ", f);
    put_g2(f, &proof->b);
    fputs(",\n \"pi_c\": ", f);
    put_g1(f, &proof->c);
    fputs(",\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}\n", f);
    return close_out(f, path, dg);
}

cuzk_err g16_snarkjs_write_public(const fr_t *x, size_t n, const char *path, cz_diag *dg)
{
    cuzk_err err;
    char buf[DEC_CAP];
    FILE *f = open_out(path, dg, &err);

    if (!f) {
        return err;
    }
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s\n \"%s\"", i ? "," : "", g16_fr_to_dec(buf, sizeof(buf), &x[i]));
    }
    fputs("\n]\n", f);
    return close_out(f, path, dg);
}

/* ---- reader ----------------------------------------------------------------------------------- */

static cuzk_err read_value(fr_t *out, const json_t *v, const char *path, size_t row, size_t col,
                           cz_diag *dg)
{
    char buf[32];
    const char *s;

    if (json_is_string(v)) {
        s = json_string_value(v);
    } else if (json_is_integer(v) && json_integer_value(v) >= 0) {
        snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
        s = buf;
    } else {
        return cz_fail(dg, CUZK_E_FORMAT, "%s: entry [%zu][%zu] is not a decimal string", path, row,
                       col);
    }
    if (!g16_fr_from_dec(out, s)) {
        return cz_fail(dg, CUZK_E_FORMAT, "%s: entry [%zu][%zu] is not a decimal number below r",
                       path, row, col);
    }
    return CUZK_OK;
}

cuzk_err g16_snarkjs_read_public(fr_t **out, size_t *rows, size_t *cols, const char *path,
                                 cz_diag *dg)
{
    json_error_t jerr;
    json_t *root;
    cuzk_err err = CUZK_OK;
    fr_t *x = NULL;
    size_t nr, nc;
    bool nested;

    *out = NULL;
    *rows = 0;
    *cols = 0;
    root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        FILE *probe = fopen(path, "r");
        if (!probe) {
            return cz_fail(dg, CUZK_E_IO, "%s: cannot open: %s", path, strerror(errno));
        }
        fclose(probe);
        return cz_fail(dg, CUZK_E_FORMAT, "%s: not valid JSON (line %d: %s)", path, jerr.line,
                       jerr.text);
    }
    if (!json_is_array(root)) {
        err = cz_fail(dg, CUZK_E_FORMAT, "%s: expected a JSON array of decimal strings", path);
        goto done;
    }
    nested = json_array_size(root) > 0 && json_is_array(json_array_get(root, 0));
    nr = nested ? json_array_size(root) : 1;
    nc = nested ? json_array_size(json_array_get(root, 0)) : json_array_size(root);
    x = cz_malloc((nr * nc + 1) * sizeof(fr_t));
    if (!x) {
        err = cz_fail(dg, CUZK_E_NOMEM, "%s: out of memory", path);
        goto done;
    }
    for (size_t i = 0; i < nr; i++) {
        const json_t *row = nested ? json_array_get(root, i) : root;
        if (!json_is_array(row) || json_array_size(row) != nc) {
            err = cz_fail(dg, CUZK_E_FORMAT, "%s: row %zu is not an array of %zu values like row 0",
                          path, i, nc);
            goto done;
        }
        for (size_t j = 0; j < nc; j++) {
            CZ_TRY(err, read_value(&x[i * nc + j], json_array_get(row, j), path, i, j, dg), done);
        }
    }
    *out = x;
    *rows = nr;
    *cols = nc;
    x = NULL;
done:
    cz_free(x);
    json_decref(root);
    return err;
}
