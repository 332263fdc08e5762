/* spmv.cu - the constraint evaluator on the device (gpu.h, gpu_spmat / gpu_spmv_buf): a = A z,
 * b = B z, c = C z from recorded sparse matrices resident in device memory, so that the
 * evaluations never cross PCIe and go straight into gpu_quotient_h_buf.
 *
 * Format (built on the host by the recorder, uploaded as is): CSR with 32-bit row offsets and
 * columns, and 16-bit coefficient indices into a per-shape dictionary of Montgomery values
 * whose entries 0 and 1 are 1 and -1. A term costs 6 bytes of matrix instead of 36.
 *
 * Kernels. Rows are short in Filecoin circuits (1 to 4 terms for nearly all of them: Boolean
 * and SHA-256 gate constraints), with a few long ones (bit packing, Boolean sums: hundreds of
 * terms). So:
 *   spmv_short_kernel  one thread per row, grid-stride; consecutive threads take consecutive
 *                      rows, so the row offsets, the terms and the 32-byte results are read
 *                      and written in coalesced runs; z is gathered (32 bytes, one sector, per
 *                      term; two terms in flight per thread). Rows longer than
 *                      GPU_SPMAT_SHORT_MAX are skipped: one long row would hold its warp up.
 *   spmv_long_kernel   those rows, from a list made at upload: a group of 32 threads per row,
 *                      lanes over strided terms (coalesced term reads), then a tree sum of the
 *                      32 partial sums through shared memory (__syncthreads rather than warp
 *                      shuffles, so that the emulation runs the same code).
 * The two kernels write disjoint rows. Coefficient 0 adds z, coefficient 1 subtracts it, any
 * other multiplies by the dictionary entry (read-only cache: the few common entries stay in
 * L1). Sums stay in [0, 2r) between terms (fr_add_lazy / fr_sub_lazy, products without the
 * final subtraction: dict < r, z < r) and are reduced once per row, so the result is the
 * unique reduced value that the CPU's fr_add / fr_sub / fr_mul sum gives.
 *
 * Prediction for the 32 GiB PoRep partition (130,278,869 rows; A 309.4M terms, B 130.3M,
 * C 282.7M), bytes that must cross HBM per evaluation, gathers of z counted as one 32-byte
 * sector per term (no reuse; the circuits' locality turns many into L2 hits):
 *   matrix    row_ptr 4 (rows + 1) + 6 nnz      A 2.38 GB, B 1.30 GB, C 2.22 GB
 *   results   32 rows                           4.17 GB each
 *   gathers   32 nnz                            A 9.90 GB, B 4.17 GB, C 9.05 GB
 *   total                                       A 16.4 GB, B 9.6 GB, C 15.4 GB: 41.5 GB
 * At the H200's 4.8 TB/s that is 3.4 + 2.0 + 3.2 = 8.7 ms; scattered 32-byte gathers reach
 * perhaps half of it, so expect 12-20 ms for the three (the target is 50 ms). Arithmetic is
 * minor: a multiplication (about 300 integer instructions) only for coefficients other than
 * +-1.
 */
#include "gpu/cuda/dev.cuh"
#include "gpu/cuda/field.cuh"

struct gpu_spmat {
    gpu_dev *dev;
    size_t rows, nnz, nlong, dict_len;
    size_t col_end; /* largest column + 1; 0 without terms */
    void *mem;      /* one device allocation holding the arrays below */
    size_t bytes;
    const uint32_t *row_ptr, *col, *long_rows;
    const uint16_t *coef;
    const czg::fr_e *dict;
};

namespace czg
{
namespace
{

constexpr unsigned SPMV_BLOCK = 256;
constexpr unsigned SPMV_GROUP = 32; /* threads per long row */
constexpr unsigned SPMV_ROWS_PER_BLOCK = SPMV_BLOCK / SPMV_GROUP;

/* acc + dict[k] v, both lazy in [0, 2r); v < r. */
CZ_DEV fr_e spmv_term(const fr_e &acc, uint32_t k, const fr_e &v, const fr_e *dict)
{
    if (k == 0) {
        return fr_add_lazy(acc, v);
    }
    if (k == 1) {
        return fr_sub_lazy(acc, v);
    }
    return fr_add_lazy(acc, mont_mul<fr_cfg, false>(ldg16(dict + k), v));
}

/* out[r] = row r of the matrix times z, for every row of at most GPU_SPMAT_SHORT_MAX terms. */
__global__ void __launch_bounds__(SPMV_BLOCK)
    spmv_short_kernel(fr_e *out, const uint32_t *row_ptr, const uint32_t *col, const uint16_t *coef,
                      const fr_e *dict, const fr_e *z, size_t rows)
{
    for (size_t r = (size_t)blockIdx.x * blockDim.x + threadIdx.x; r < rows;
         r += (size_t)gridDim.x * blockDim.x) {
        const uint32_t beg = __ldg(row_ptr + r), end = __ldg(row_ptr + r + 1);
        if (end - beg > GPU_SPMAT_SHORT_MAX) {
            continue; /* spmv_long_kernel's row */
        }
        fr_e acc = fe_zero<fr_cfg>();
        uint32_t j = beg;
        for (; j + 1 < end; j += 2) {
            /* both gathers issued before either sum */
            const uint32_t c0 = __ldg(col + j), c1 = __ldg(col + j + 1);
            const uint32_t k0 = __ldg(coef + j), k1 = __ldg(coef + j + 1);
            const fr_e v0 = ldg16(z + c0), v1 = ldg16(z + c1);
            acc = spmv_term(acc, k0, v0, dict);
            acc = spmv_term(acc, k1, v1, dict);
        }
        if (j < end) {
            acc = spmv_term(acc, __ldg(coef + j), ldg16(z + __ldg(col + j)), dict);
        }
        store16(out + r, fr_reduce_lazy(acc));
    }
}

/* out[r] for the nlong rows r = long_rows[i]: SPMV_GROUP threads per row. Every thread of a
 * block runs the same number of iterations of the outer loop (its bound depends on the block
 * only), so all of them reach each __syncthreads(). */
__global__ void __launch_bounds__(SPMV_BLOCK)
    spmv_long_kernel(fr_e *out, const uint32_t *long_rows, size_t nlong, const uint32_t *row_ptr,
                     const uint32_t *col, const uint16_t *coef, const fr_e *dict, const fr_e *z)
{
    __shared__ fr_e part[SPMV_BLOCK];
    const unsigned t = threadIdx.x, lane = t % SPMV_GROUP;

    for (size_t base = (size_t)blockIdx.x * SPMV_ROWS_PER_BLOCK; base < nlong;
         base += (size_t)gridDim.x * SPMV_ROWS_PER_BLOCK) {
        const size_t i = base + t / SPMV_GROUP;
        fr_e acc = fe_zero<fr_cfg>();
        uint32_t r = 0;
        if (i < nlong) {
            r = __ldg(long_rows + i);
            const uint32_t end = __ldg(row_ptr + r + 1);
            for (uint32_t j = __ldg(row_ptr + r) + lane; j < end; j += SPMV_GROUP) {
                acc = spmv_term(acc, __ldg(coef + j), ldg16(z + __ldg(col + j)), dict);
            }
        }
        part[t] = acc;
        __syncthreads();
        for (unsigned s = SPMV_GROUP / 2; s > 0; s >>= 1) {
            if (lane < s) {
                part[t] = fr_add_lazy(part[t], part[t + s]);
            }
            __syncthreads();
        }
        if (lane == 0 && i < nlong) {
            store16(out + r, fr_reduce_lazy(part[t]));
        }
        __syncthreads(); /* part is refilled by the next iteration */
    }
}

/* ---- host side ---- */

/* True when [off, off + len) lies inside a buffer of `total` bytes. */
bool spmv_in_range(size_t off, size_t len, size_t total)
{
    return off <= total && len <= total - off;
}

/* The i-th dictionary entry as four 64-bit limbs. */
void dict_limbs(uint64_t v[4], const struct fr *dict, size_t i)
{
    memcpy(v, (const char *)dict + 32 * i, 32);
}

bool limbs_eq(const uint64_t a[4], const uint64_t b[4])
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

/* a < b as 256-bit integers. */
bool limbs_lt(const uint64_t a[4], const uint64_t b[4])
{
    for (int i = 3; i >= 0; i--) {
        if (a[i] != b[i]) {
            return a[i] < b[i];
        }
    }
    return false;
}

/* Checks the dictionary: entries < r, dict[0] = 1 and dict[1] = -1 (Montgomery). */
cuzk_err check_dict(const struct fr *dict, size_t dict_len, cz_diag *dg)
{
    uint64_t v[4], minus_one[4];
    uint64_t borrow = 0;

    if (dict_len < 2 || dict_len > GPU_SPMAT_MAX_DICT) {
        return cz_fail(dg, CUZK_E_INVAL, "dictionary of %zu entries (2 .. %zu)", dict_len,
                       GPU_SPMAT_MAX_DICT);
    }
    for (int i = 0; i < 4; i++) { /* r - (R mod r) */
        const uint64_t d = k_fr_mod[i] - k_fr_one[i];
        const uint64_t b1 = k_fr_mod[i] < k_fr_one[i];
        minus_one[i] = d - borrow;
        borrow = b1 | (d < borrow);
    }
    for (size_t i = 0; i < dict_len; i++) {
        dict_limbs(v, dict, i);
        if (!limbs_lt(v, k_fr_mod)) {
            return cz_fail(dg, CUZK_E_INVAL, "dictionary entry %zu is not reduced", i);
        }
    }
    dict_limbs(v, dict, 0);
    if (!limbs_eq(v, k_fr_one)) {
        return cz_fail(dg, CUZK_E_INVAL, "dictionary entry 0 is not 1");
    }
    dict_limbs(v, dict, 1);
    if (!limbs_eq(v, minus_one)) {
        return cz_fail(dg, CUZK_E_INVAL, "dictionary entry 1 is not -1");
    }
    return CUZK_OK;
}

/* Checks the row offsets and counts the long rows into m->nlong. */
cuzk_err check_rows(gpu_spmat *m, const uint32_t *row_ptr, cz_diag *dg)
{
    if (row_ptr[0] != 0) {
        return cz_fail(dg, CUZK_E_INVAL, "row_ptr[0] = %u, not 0", row_ptr[0]);
    }
    m->nlong = 0;
    for (size_t r = 0; r < m->rows; r++) {
        if (row_ptr[r + 1] < row_ptr[r]) {
            return cz_fail(dg, CUZK_E_INVAL, "row_ptr decreases at row %zu (%u -> %u)", r,
                           row_ptr[r], row_ptr[r + 1]);
        }
        m->nlong += row_ptr[r + 1] - row_ptr[r] > GPU_SPMAT_SHORT_MAX;
    }
    if (row_ptr[m->rows] != m->nnz) {
        return cz_fail(dg, CUZK_E_INVAL, "row_ptr[%zu] = %u, not nnz = %zu", m->rows,
                       row_ptr[m->rows], m->nnz);
    }
    return CUZK_OK;
}

/* Checks the coefficient indices and finds the largest column (m->col_end). */
cuzk_err check_terms(gpu_spmat *m, const uint32_t *col, const uint16_t *coef, cz_diag *dg)
{
    uint32_t cmax = 0;

    for (size_t j = 0; j < m->nnz; j++) {
        if (coef[j] >= m->dict_len) {
            return cz_fail(dg, CUZK_E_INVAL, "term %zu: coefficient index %u >= %zu entries", j,
                           (unsigned)coef[j], m->dict_len);
        }
        cmax = col[j] > cmax ? col[j] : cmax;
    }
    m->col_end = m->nnz ? (size_t)cmax + 1 : 0;
    return CUZK_OK;
}

/* Copies the arrays into m->mem (allocated here) and sets the device pointers. */
cuzk_err spmat_upload(gpu_spmat *m, const uint32_t *row_ptr, const uint32_t *col,
                      const uint16_t *coef, const struct fr *dict, const uint32_t *long_rows,
                      cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    layout lay;
    const size_t o_rp = lay.add((m->rows + 1) * sizeof(uint32_t));
    const size_t o_col = lay.add(m->nnz * sizeof(uint32_t));
    const size_t o_coef = lay.add(m->nnz * sizeof(uint16_t));
    const size_t o_dict = lay.add(m->dict_len * sizeof(fr_e));
    const size_t o_long = lay.add(m->nlong * sizeof(uint32_t));
    const struct {
        size_t off;
        const void *src;
        size_t len;
    } parts[5] = {{o_rp, row_ptr, (m->rows + 1) * sizeof(uint32_t)},
                  {o_col, col, m->nnz * sizeof(uint32_t)},
                  {o_coef, coef, m->nnz * sizeof(uint16_t)},
                  {o_dict, dict, m->dict_len * sizeof(fr_e)},
                  {o_long, long_rows, m->nlong * sizeof(uint32_t)}};
    char *base;

    m->bytes = lay.off;
    CZ_CHECK(m->bytes == gpu_spmat_sizeof(m->rows, m->nnz, row_ptr, m->dict_len));
    CZ_TRY(err, dev_enter(m->dev, dg), done);
    CZ_TRY(err, dev_malloc(m->dev, &m->mem, m->bytes, dg), done);
    base = (char *)m->mem;
    for (const auto &p : parts) {
        if (p.len) {
            CZ_TRY(err, dev_h2d(m->dev, base + p.off, p.src, p.len, m->dev->s, dg), done);
        }
    }
    CUDA_TRY(err, cudaStreamSynchronize(m->dev->s), done);
    m->row_ptr = (const uint32_t *)(const void *)(base + o_rp);
    m->col = (const uint32_t *)(const void *)(base + o_col);
    m->coef = (const uint16_t *)(const void *)(base + o_coef);
    m->dict = (const fr_e *)(const void *)(base + o_dict);
    m->long_rows = (const uint32_t *)(const void *)(base + o_long);
done:
    return err;
}

} // namespace
} // namespace czg

using namespace czg;

extern "C" {

cuzk_err gpu_spmat_new(gpu_spmat **out, gpu_dev *dev, size_t rows, size_t nnz,
                       const uint32_t *row_ptr, const uint32_t *col, const uint16_t *coef,
                       const struct fr *dict, size_t dict_len, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    gpu_spmat *m = NULL;
    uint32_t *long_rows = NULL;
    size_t k = 0;

    *out = NULL;
    CZ_CHECK(dev && row_ptr && dict && (nnz == 0 || (col && coef)));
    if (rows > UINT32_MAX || nnz > UINT32_MAX) {
        return cz_fail(dg, CUZK_E_INVAL, "matrix of %zu rows and %zu terms (each < 2^32)", rows,
                       nnz);
    }
    m = (gpu_spmat *)cz_calloc(1, sizeof(*m));
    if (!m) {
        return cz_fail(dg, CUZK_E_NOMEM, "gpu_spmat");
    }
    m->dev = dev;
    m->rows = rows;
    m->nnz = nnz;
    m->dict_len = dict_len;
    CZ_TRY(err, check_dict(dict, dict_len, dg), done);
    CZ_TRY(err, check_rows(m, row_ptr, dg), done);
    CZ_TRY(err, check_terms(m, col, coef, dg), done);
    if (m->nlong) {
        long_rows = (uint32_t *)cz_malloc(m->nlong * sizeof(uint32_t));
        if (!long_rows) {
            err = cz_fail(dg, CUZK_E_NOMEM, "list of %zu long rows", m->nlong);
            goto done;
        }
        for (size_t r = 0; r < rows; r++) {
            if (row_ptr[r + 1] - row_ptr[r] > GPU_SPMAT_SHORT_MAX) {
                long_rows[k++] = (uint32_t)r;
            }
        }
    }
    CZ_TRY(err, spmat_upload(m, row_ptr, col, coef, dict, long_rows, dg), done);
    *out = m;
    m = NULL; /* ownership moved to the caller */
done:
    cz_free(long_rows);
    gpu_spmat_free(m);
    return err;
}

void gpu_spmat_free(gpu_spmat *m)
{
    if (!m) {
        return;
    }
    if (m->mem && cudaSetDevice(m->dev->index) == cudaSuccess) {
        (void)cudaStreamSynchronize(m->dev->s);
        dev_free(m->dev, m->mem, m->bytes);
    }
    (void)cudaGetLastError();
    cz_free(m);
}

size_t gpu_spmat_bytes(const gpu_spmat *m)
{
    return m ? m->bytes : 0;
}

size_t gpu_spmat_rows(const gpu_spmat *m)
{
    return m ? m->rows : 0;
}

cuzk_err gpu_spmv_buf(gpu_dev *dev, gpu_buf *out, size_t out_off, const gpu_spmat *m,
                      const gpu_buf *z, size_t z_off, size_t z_len, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    unsigned long_grid;

    CZ_CHECK(dev && out && m && z);
    const size_t out_bytes = m->rows * sizeof(fr_e);
    const size_t z_bytes = z_len * sizeof(fr_e);
    if (out->dev != dev || z->dev != dev || m->dev != dev || out_off % 32 != 0 || z_off % 32 != 0 ||
        z_len > SIZE_MAX / 32 || !spmv_in_range(out_off, out_bytes, out->len) ||
        !spmv_in_range(z_off, z_bytes, z->len)) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "evaluation of %zu rows into offset %zu of %zu bytes from %zu values at "
                       "offset %zu of %zu bytes",
                       m->rows, out_off, out->len, z_len, z_off, z->len);
    }
    if (m->col_end > z_len) {
        return cz_fail(dg, CUZK_E_INVAL, "the matrix reads column %zu of a vector of %zu values",
                       m->col_end - 1, z_len);
    }
    if (out == z && out_bytes && z_bytes && out_off < z_off + z_bytes &&
        z_off < out_off + out_bytes) {
        return cz_fail(dg, CUZK_E_INVAL, "the results [%zu, +%zu) overlap z [%zu, +%zu)", out_off,
                       out_bytes, z_off, z_bytes);
    }
    if (m->rows == 0) {
        return CUZK_OK;
    }
    fr_e *o = (fr_e *)(void *)((char *)out->ptr + out_off);
    const fr_e *zv = (const fr_e *)(const void *)((const char *)z->ptr + z_off);
    CZ_TRY(err, dev_enter(dev, dg), done);
    CUDA_LAUNCH(err, done, spmv_short_kernel, grid_for(dev, m->rows, SPMV_BLOCK), SPMV_BLOCK, 0,
                dev->s, o, m->row_ptr, m->col, m->coef, m->dict, zv, m->rows);
    if (m->nlong) {
        long_grid = grid_for(dev, host_cdiv(m->nlong, SPMV_ROWS_PER_BLOCK), SPMV_BLOCK);
        CUDA_LAUNCH(err, done, spmv_long_kernel, long_grid, SPMV_BLOCK, 0, dev->s, o, m->long_rows,
                    m->nlong, m->row_ptr, m->col, m->coef, m->dict, zv);
    }
    CUDA_TRY(err, cudaStreamSynchronize(dev->s), done);
done:
    return err;
}

} /* extern "C" */
