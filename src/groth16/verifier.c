/* verifier.c - Groth16 verification and batch verification (spec groth16.md 4.9, bellperson
 * verifier.rs). The input accumulator uses plain scalar multiplications, not msm/, so that
 * the verifier shares no MSM code with the prover it checks; with a pool they are spread over
 * its threads in fixed chunks whose sums are added in order (a 32 GiB WindowPoSt partition has
 * 25,840 public inputs: about a second on one core).
 */
#include "groth16/groth16.h"

#include <string.h>

#include "common/rand.h"
#include "curve/pairing.h"
#include "groth16/internal.h"

void g16_pvk_init(g16_pvk_t *pvk, const g16_vk_t *vk)
{
    pairing(&pvk->alpha_beta, &vk->alpha_g1, &vk->beta_g2);
    pvk->gamma_g2 = vk->gamma_g2;
    pvk->delta_g2 = vk->delta_g2;
    g2_aff_neg(&pvk->neg_gamma_g2, &vk->gamma_g2);
    g2_aff_neg(&pvk->neg_delta_g2, &vk->delta_g2);
    pvk->ic = vk->ic;
    pvk->ic_len = vk->ic_len;
}

/* Inputs per chunk of the pooled accumulator. */
#define ACC_CHUNK 256

/* acc = sum_{lo <= i < hi} x[i] ic[i+1]. */
static void input_range(g1_t *acc, const g16_pvk_t *pvk, const fr_t *x, size_t lo, size_t hi)
{
    g1_t t;

    g1_set_identity(acc);
    for (size_t i = lo; i < hi; i++) {
        g1_from_aff(&t, &pvk->ic[i + 1]);
        g1_mul_fr(&t, &t, &x[i]);
        g1_add(acc, acc, &t);
    }
}

typedef struct acc_job {
    const g16_pvk_t *pvk;
    const fr_t *x;
    size_t n;
    g1_t *part; /* one sum per chunk */
} acc_job;

static void acc_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const acc_job *j = ctx;
    (void)worker;
    for (size_t c = begin; c < end; c++) {
        size_t lo = c * ACC_CHUNK, hi = lo + ACC_CHUNK < j->n ? lo + ACC_CHUNK : j->n;
        input_range(&j->part[c], j->pvk, j->x, lo, hi);
    }
}

/* acc = ic[0] * w0 + sum_{i<n} x[i] ic[i+1], w0 given (1 for a single proof); over the pool
 * when there is one and the chunk sums fit in memory, else on the calling thread. */
static void input_acc(g1_t *acc, const g16_pvk_t *pvk, const fr_t *w0, const fr_t *x, size_t n,
                      cz_pool *pool)
{
    size_t chunks = (n + ACC_CHUNK - 1) / ACC_CHUNK;
    acc_job job = {.pvk = pvk, .x = x, .n = n, .part = NULL};
    g1_t t;

    if (pool && cz_pool_width(pool) > 1 && chunks > 1) {
        job.part = cz_malloc(chunks * sizeof(g1_t));
    }
    if (job.part) {
        cz_pool_for(pool, chunks, 1, acc_task, &job);
        *acc = job.part[0];
        for (size_t c = 1; c < chunks; c++) {
            g1_add(acc, acc, &job.part[c]);
        }
        cz_free(job.part);
    } else {
        input_range(acc, pvk, x, 0, n);
    }
    g1_from_aff(&t, &pvk->ic[0]);
    g1_mul_fr(&t, &t, w0);
    g1_add(acc, acc, &t);
}

cuzk_err g16_verify(const g16_pvk_t *pvk, bool *valid, const g16_proof_t *proof, const fr_t *x,
                    size_t n, cz_diag *dg)
{
    return g16_verify_ex(pvk, valid, proof, x, n, NULL, dg);
}

cuzk_err g16_verify_ex(const g16_pvk_t *pvk, bool *valid, const g16_proof_t *proof, const fr_t *x,
                       size_t n, cz_pool *pool, cz_diag *dg)
{
    g1_aff_t p[3];
    g2_aff_t q[3];
    g1_t acc;
    fp12_t f, e;

    *valid = false;
    if (n + 1 != pvk->ic_len) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "%zu public inputs given, the verifying key expects %zu (ONE excluded)", n,
                       pvk->ic_len - 1);
    }
    input_acc(&acc, pvk, &FR_ONE, x, n, pool);
    p[0] = proof->a;
    q[0] = proof->b;
    g1_to_aff(&p[1], &acc);
    q[1] = pvk->neg_gamma_g2;
    p[2] = proof->c;
    q[2] = pvk->neg_delta_g2;
    pairing_miller_loop(&f, p, q, 3);
    pairing_final_exp(&e, &f);
    *valid = fp12_eq(&e, &pvk->alpha_beta);
    return CUZK_OK;
}

/* prod_j e(-z_j A_j, B_j) e(sum_j z_j C_j, delta) e(sum_i (sum_j z_j x_ji) ic_i, gamma)
 *   * e(alpha, beta)^(sum_j z_j) == 1 */
bool g16_verify_batch_z(const g16_pvk_t *pvk, const g16_proof_t *proofs, size_t nproofs,
                        const fr_t *x, size_t n, const fr_repr_t *z, bool *nomem)
{
    g1_aff_t *pp = cz_malloc((nproofs + 2) * sizeof(g1_aff_t));
    g2_aff_t *qq = cz_malloc((nproofs + 2) * sizeof(g2_aff_t));
    fr_t *w = cz_malloc(n * sizeof(fr_t) + 1);
    fr_t zsum = FR_ZERO, zj, t;
    fr_repr_t zsum_repr;
    g1_t c_acc, pt, acc;
    fp12_t f, e, ab;
    bool ok = false;

    CZ_CHECK(n + 1 == pvk->ic_len);
    *nomem = false;
    if (!pp || !qq || !w) {
        *nomem = true;
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        w[i] = FR_ZERO;
    }
    g1_set_identity(&c_acc);
    for (size_t j = 0; j < nproofs; j++) {
        /* z_j as a field element (128-bit values are < r, so this cannot fail) */
        CZ_CHECK(fr_from_repr(&zj, &z[j]));
        fr_add(&zsum, &zsum, &zj);
        for (size_t i = 0; i < n; i++) {
            fr_mul(&t, &zj, &x[j * n + i]);
            fr_add(&w[i], &w[i], &t);
        }
        g1_from_aff(&pt, &proofs[j].c);
        g1_mul(&pt, &pt, &z[j]);
        g1_add(&c_acc, &c_acc, &pt);
        g1_from_aff(&pt, &proofs[j].a);
        g1_mul(&pt, &pt, &z[j]);
        g1_neg(&pt, &pt);
        g1_to_aff(&pp[j], &pt);
        qq[j] = proofs[j].b;
    }
    g1_to_aff(&pp[nproofs], &c_acc);
    qq[nproofs] = pvk->delta_g2;
    input_acc(&acc, pvk, &zsum, w, n, NULL);
    g1_to_aff(&pp[nproofs + 1], &acc);
    qq[nproofs + 1] = pvk->gamma_g2;
    pairing_miller_loop(&f, pp, qq, nproofs + 2);
    pairing_final_exp(&e, &f);
    fr_to_repr(&zsum_repr, &zsum);
    fp12_pow(&ab, &pvk->alpha_beta, zsum_repr.l, FR_NLIMBS);
    fp12_mul(&e, &e, &ab);
    ok = fp12_is_one(&e);
done:
    cz_free(pp);
    cz_free(qq);
    cz_free(w);
    return ok;
}

cuzk_err g16_verify_batch(const g16_pvk_t *pvk, bool *valid, const g16_proof_t *proofs,
                          size_t nproofs, const fr_t *x, size_t n, cz_diag *dg)
{
    fr_repr_t *z;
    cuzk_err err = CUZK_OK;
    bool nomem = false;

    *valid = false;
    if (n + 1 != pvk->ic_len) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "%zu public inputs per proof given, the verifying key expects %zu (ONE "
                       "excluded)",
                       n, pvk->ic_len - 1);
    }
    if (nproofs < 2) {
        if (nproofs == 0) {
            *valid = true; /* an empty batch holds no invalid proof */
            return CUZK_OK;
        }
        return g16_verify(pvk, valid, proofs, x, n, dg);
    }
    z = cz_calloc(nproofs, sizeof(fr_repr_t));
    if (!z) {
        return cz_fail(dg, CUZK_E_NOMEM, "batch verification: out of memory");
    }
    for (size_t j = 0; j < nproofs; j++) {
        uint8_t buf[16];

        CZ_TRY(err, cz_rand_bytes(buf, sizeof(buf), dg), done);
        z[j].l[0] = 0;
        z[j].l[1] = 0;
        for (int k = 7; k >= 0; k--) {
            z[j].l[0] = z[j].l[0] << 8 | buf[k];
            z[j].l[1] = z[j].l[1] << 8 | buf[8 + k];
        }
    }
    *valid = g16_verify_batch_z(pvk, proofs, nproofs, x, n, z, &nomem);
    if (nomem) {
        err = cz_fail(dg, CUZK_E_NOMEM, "batch verification: out of memory");
    }
done:
    cz_free(z);
    return err;
}
