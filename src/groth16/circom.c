/* circom.c - iden3 .r1cs and .wtns readers and the replay of a circom circuit into a cs_t.
 * Formats as read by iden3/r1csfile (src/r1csfile.js: coefficients via F.fromRprLE, i.e.
 * standard little-endian form) and snarkjs (src/wtns_utils.js); see circom.h.
 */
#include "groth16/circom.h"

#include <string.h>

#include "common/bytes.h"
#include "groth16/internal.h"

/* r as 32 little-endian bytes: the prime a BLS12-381 circom file must declare. */
static const uint8_t R_LE[FR_NBYTES] = {
    0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
    0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73,
};

enum { MAX_SECTIONS = 16 };

typedef struct bin_section {
    uint32_t type;
    const uint8_t *data;
    uint64_t size;
} bin_section_t;

typedef struct bin_file {
    uint32_t version;
    size_t nsec;
    bin_section_t sec[MAX_SECTIONS];
} bin_file_t;

/* Parses the iden3 container: magic, version, sections (bounds-checked). */
static cuzk_err bin_parse(bin_file_t *bf, const uint8_t *buf, size_t len, const char *magic,
                          uint32_t max_version, cz_diag *dg)
{
    size_t pos = 12;
    uint32_t nsec;

    memset(bf, 0, sizeof(*bf));
    if (len < 12 || memcmp(buf, magic, 4) != 0) {
        return cz_fail(dg, CUZK_E_FORMAT, "not a %s file (bad magic or shorter than 12 bytes)",
                       magic);
    }
    bf->version = cz_load_le32(buf + 4);
    if (bf->version < 1 || bf->version > max_version) {
        return cz_fail(dg, CUZK_E_FORMAT, "unsupported %s version %u", magic, bf->version);
    }
    nsec = cz_load_le32(buf + 8);
    if (nsec > MAX_SECTIONS) {
        return cz_fail(dg, CUZK_E_FORMAT, "%u sections, at most %d supported", nsec, MAX_SECTIONS);
    }
    for (uint32_t i = 0; i < nsec; i++) {
        uint64_t size;

        if (len - pos < 12) {
            return cz_fail(dg, CUZK_E_FORMAT, "truncated: section header %u cut off", i);
        }
        bf->sec[i].type = cz_load_le32(buf + pos);
        size = cz_load_le64(buf + pos + 4);
        pos += 12;
        if (size > len - pos) {
            return cz_fail(dg, CUZK_E_FORMAT,
                           "truncated: section %u (type %u) declares %llu bytes, %zu present", i,
                           bf->sec[i].type, (unsigned long long)size, len - pos);
        }
        bf->sec[i].data = buf + pos;
        bf->sec[i].size = size;
        pos += (size_t)size;
    }
    if (pos != len) {
        return cz_fail(dg, CUZK_E_FORMAT, "%zu trailing bytes after the last section", len - pos);
    }
    bf->nsec = nsec;
    return CUZK_OK;
}

/* The unique section of `type`; NULL when absent; E_FORMAT when duplicated. */
static cuzk_err bin_find(const bin_section_t **out, const bin_file_t *bf, uint32_t type,
                         bool required, cz_diag *dg)
{
    *out = NULL;
    for (size_t i = 0; i < bf->nsec; i++) {
        if (bf->sec[i].type == type) {
            if (*out) {
                return cz_fail(dg, CUZK_E_FORMAT, "section type %u is duplicated", type);
            }
            *out = &bf->sec[i];
        }
    }
    if (!*out && required) {
        return cz_fail(dg, CUZK_E_FORMAT, "section type %u is missing", type);
    }
    return CUZK_OK;
}

/* Field header common to both formats: u32 n8 == 32, then the prime. */
static cuzk_err check_field(const uint8_t *p, size_t avail, cz_diag *dg)
{
    if (avail < 4 + FR_NBYTES) {
        return cz_fail(dg, CUZK_E_FORMAT, "header section too short");
    }
    if (cz_load_le32(p) != FR_NBYTES) {
        return cz_fail(dg, CUZK_E_FORMAT, "field element size %u, expected 32 (BLS12-381)",
                       cz_load_le32(p));
    }
    if (memcmp(p + 4, R_LE, FR_NBYTES) != 0) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "the prime is not the BLS12-381 scalar field r (compile with --prime "
                       "bls12381)");
    }
    return CUZK_OK;
}

/* ---- .r1cs ------------------------------------------------------------------------------------ */

#define R1CS_HEADER_NBYTES (4 + FR_NBYTES + 4 * 4 + 8 + 4)

void g16_circom_r1cs_free(g16_circom_r1cs_t *r)
{
    if (!r) {
        return;
    }
    cz_free(r->lc_start);
    cz_free(r->terms);
    cz_free(r);
}

size_t g16_circom_num_public(const g16_circom_r1cs_t *r)
{
    return (size_t)r->n_pub_out + r->n_pub_in;
}

/* First pass over the constraints section: counts terms and checks sizes. */
static cuzk_err r1cs_count_terms(size_t *nterms, const bin_section_t *s, uint32_t ncons,
                                 cz_diag *dg)
{
    size_t pos = 0, total = 0;
    const size_t tsize = 4 + FR_NBYTES;

    for (uint32_t j = 0; j < ncons; j++) {
        for (int k = 0; k < 3; k++) {
            uint32_t cnt;
            if (s->size - pos < 4) {
                return cz_fail(dg, CUZK_E_FORMAT, "constraints section truncated in constraint %u",
                               j);
            }
            cnt = cz_load_le32(s->data + pos);
            pos += 4;
            if ((s->size - pos) / tsize < cnt) {
                return cz_fail(dg, CUZK_E_FORMAT, "constraints section truncated in constraint %u",
                               j);
            }
            pos += (size_t)cnt * tsize;
            total += cnt;
        }
    }
    if (pos != s->size) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "constraints section has %llu bytes, the %u constraints use %zu",
                       (unsigned long long)s->size, ncons, pos);
    }
    *nterms = total;
    return CUZK_OK;
}

cuzk_err g16_circom_r1cs_from_bytes(g16_circom_r1cs_t **out, const uint8_t *buf, size_t len,
                                    cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    g16_circom_r1cs_t *r = NULL;
    const bin_section_t *hs, *cs_sec, *cg, *w2l;
    bin_file_t bf;
    const uint8_t *h;
    size_t pos = 0, t = 0, nterms = 0;

    *out = NULL;
    CZ_TRY(err, bin_parse(&bf, buf, len, "r1cs", 1, dg), done);
    CZ_TRY(err, bin_find(&hs, &bf, 1, true, dg), done);
    CZ_TRY(err, bin_find(&cs_sec, &bf, 2, true, dg), done);
    CZ_TRY(err, bin_find(&cg, &bf, 4, false, dg), done);
    if (cg) {
        err = cz_fail(dg, CUZK_E_FORMAT, "custom gates (PLONK) are not supported by Groth16");
        goto done;
    }
    CZ_TRY(err, bin_find(&cg, &bf, 5, false, dg), done);
    if (cg) {
        err = cz_fail(dg, CUZK_E_FORMAT, "custom gates (PLONK) are not supported by Groth16");
        goto done;
    }
    if (hs->size != R1CS_HEADER_NBYTES) {
        err = cz_fail(dg, CUZK_E_FORMAT, "header section has %llu bytes, expected %d",
                      (unsigned long long)hs->size, R1CS_HEADER_NBYTES);
        goto done;
    }
    CZ_TRY(err, check_field(hs->data, hs->size, dg), done);
    r = cz_calloc(1, sizeof(*r));
    if (!r) {
        err = cz_fail(dg, CUZK_E_NOMEM, "out of memory");
        goto done;
    }
    h = hs->data + 4 + FR_NBYTES;
    r->n_wires = cz_load_le32(h);
    r->n_pub_out = cz_load_le32(h + 4);
    r->n_pub_in = cz_load_le32(h + 8);
    r->n_prv_in = cz_load_le32(h + 12);
    r->n_labels = cz_load_le64(h + 16);
    r->n_constraints = cz_load_le32(h + 24);
    /* circom's optimizer may drop unused private inputs from the wires while still counting
     * them in n_prv_in, so only the public wires are sure to exist. */
    if (r->n_wires < 1 || (uint64_t)1 + r->n_pub_out + r->n_pub_in > (uint64_t)r->n_wires) {
        err = cz_fail(dg, CUZK_E_FORMAT,
                      "inconsistent header: %u wires cannot hold ONE, %u outputs and %u public "
                      "inputs",
                      r->n_wires, r->n_pub_out, r->n_pub_in);
        goto done;
    }
    /* circom always writes the wire-to-label map (section 3, one u64 per wire); requiring it
     * bounds the wire count by the file size before anything is allocated per wire. */
    CZ_TRY(err, bin_find(&w2l, &bf, 3, true, dg), done);
    if (w2l->size != (uint64_t)r->n_wires * 8) {
        err =
            cz_fail(dg, CUZK_E_FORMAT, "wire-to-label section has %llu bytes, %u wires need %llu",
                    (unsigned long long)w2l->size, r->n_wires, (unsigned long long)r->n_wires * 8);
        goto done;
    }
    CZ_TRY(err, r1cs_count_terms(&nterms, cs_sec, r->n_constraints, dg), done);
    r->lc_start = cz_malloc((3 * (size_t)r->n_constraints + 1) * sizeof(size_t));
    r->terms = cz_malloc((nterms ? nterms : 1) * sizeof(g16_circom_term_t));
    if (!r->lc_start || !r->terms) {
        err = cz_fail(dg, CUZK_E_NOMEM, "out of memory for %zu terms", nterms);
        goto done;
    }
    for (uint32_t j = 0; j < r->n_constraints; j++) {
        for (int k = 0; k < 3; k++) {
            uint32_t cnt = cz_load_le32(cs_sec->data + pos);
            pos += 4;
            r->lc_start[3 * (size_t)j + (size_t)k] = t;
            for (uint32_t i = 0; i < cnt; i++, t++) {
                g16_circom_term_t *term = &r->terms[t];
                term->wire = cz_load_le32(cs_sec->data + pos);
                if (term->wire >= r->n_wires) {
                    err = cz_fail(dg, CUZK_E_FORMAT,
                                  "constraint %u refers to wire %u, only %u wires exist", j,
                                  term->wire, r->n_wires);
                    goto done;
                }
                if (fr_from_bytes(&term->coeff, cs_sec->data + pos + 4) != CUZK_OK) {
                    err = cz_fail(dg, CUZK_E_FORMAT,
                                  "constraint %u has a coefficient >= r (non-canonical)", j);
                    goto done;
                }
                pos += 4 + FR_NBYTES;
            }
        }
    }
    r->lc_start[3 * (size_t)r->n_constraints] = t;
    r->n_terms = t;
    *out = r;
    r = NULL;
done:
    g16_circom_r1cs_free(r);
    return err;
}

cuzk_err g16_circom_r1cs_load(g16_circom_r1cs_t **out, const char *path, cz_diag *dg)
{
    g16_file_t f;
    cuzk_err err;

    *out = NULL;
    err = g16_file_map(&f, path, dg);
    if (err != CUZK_OK) {
        return err;
    }
    err = g16_circom_r1cs_from_bytes(out, f.data, f.len, dg);
    if (err != CUZK_OK) {
        g16_diag_prefix(dg, path);
    }
    g16_file_unmap(&f);
    return err;
}

/* ---- .wtns ------------------------------------------------------------------------------------ */

cuzk_err g16_circom_wtns_from_bytes(fr_t **out, size_t *n, const uint8_t *buf, size_t len,
                                    cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const bin_section_t *hs, *vs;
    bin_file_t bf;
    fr_t *w = NULL;
    uint32_t count;

    *out = NULL;
    *n = 0;
    CZ_TRY(err, bin_parse(&bf, buf, len, "wtns", 2, dg), done);
    CZ_TRY(err, bin_find(&hs, &bf, 1, true, dg), done);
    CZ_TRY(err, bin_find(&vs, &bf, 2, true, dg), done);
    if (hs->size != 4 + FR_NBYTES + 4) {
        err = cz_fail(dg, CUZK_E_FORMAT, "header section has %llu bytes, expected %d",
                      (unsigned long long)hs->size, 4 + FR_NBYTES + 4);
        goto done;
    }
    CZ_TRY(err, check_field(hs->data, hs->size, dg), done);
    count = cz_load_le32(hs->data + 4 + FR_NBYTES);
    if (vs->size != (uint64_t)count * FR_NBYTES) {
        err = cz_fail(dg, CUZK_E_FORMAT, "values section has %llu bytes, %u values need %llu",
                      (unsigned long long)vs->size, count, (unsigned long long)count * FR_NBYTES);
        goto done;
    }
    w = cz_malloc(((size_t)count + 1) * sizeof(fr_t));
    if (!w) {
        err = cz_fail(dg, CUZK_E_NOMEM, "out of memory for %u witness values", count);
        goto done;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (fr_from_bytes(&w[i], vs->data + (size_t)i * FR_NBYTES) != CUZK_OK) {
            err = cz_fail(dg, CUZK_E_FORMAT, "witness value %u is >= r (non-canonical)", i);
            goto done;
        }
    }
    *out = w;
    *n = count;
    w = NULL;
done:
    cz_free(w);
    return err;
}

cuzk_err g16_circom_wtns_load(fr_t **out, size_t *n, const char *path, cz_diag *dg)
{
    g16_file_t f;
    cuzk_err err;

    *out = NULL;
    *n = 0;
    err = g16_file_map(&f, path, dg);
    if (err != CUZK_OK) {
        return err;
    }
    err = g16_circom_wtns_from_bytes(out, n, f.data, f.len, dg);
    if (err != CUZK_OK) {
        g16_diag_prefix(dg, path);
    }
    g16_file_unmap(&f);
    return err;
}

/* ---- replay --------------------------------------------------------------------------------------- */

/* The LC of terms [lo, hi) into *lc. */
static void build_lc(cs_t *cs, cs_lc_t *lc, const g16_circom_r1cs_t *r, const cs_var_t *vars,
                     size_t lo, size_t hi)
{
    *lc = cs_lc(cs);
    for (size_t t = lo; t < hi; t++) {
        cs_lc_add(cs, lc, &r->terms[t].coeff, vars[r->terms[t].wire]);
    }
}

cuzk_err g16_circom_synthesize(cs_t *cs, const g16_circom_r1cs_t *r, const fr_t *wit, size_t nwit,
                               cz_diag *dg)
{
    size_t npub = g16_circom_num_public(r);
    bool values = cs_has_values(cs);
    cs_var_t *vars;
    cuzk_err err = CUZK_OK;

    if (values) {
        if (!wit) {
            return cz_fail(dg, CUZK_E_INVAL, "a witness is required for this backend");
        }
        if (nwit != r->n_wires) {
            return cz_fail(dg, CUZK_E_INVAL, "the witness has %zu values, the circuit %u wires",
                           nwit, r->n_wires);
        }
        if (!fr_is_one(&wit[0])) {
            return cz_fail(dg, CUZK_E_INVAL, "witness value 0 (wire ONE) is not 1");
        }
    }
    vars = cz_malloc((size_t)r->n_wires * sizeof(cs_var_t));
    if (!vars) {
        return cz_fail(dg, CUZK_E_NOMEM, "out of memory for %u wires", r->n_wires);
    }
    vars[0] = CS_ONE;
    for (size_t i = 1; i < r->n_wires; i++) {
        const fr_t *v = values ? &wit[i] : NULL;
        if (i <= npub) {
            (void)cs_alloc_input(cs, &vars[i], v);
        } else {
            (void)cs_alloc(cs, &vars[i], v);
        }
    }
    if (cs_needs_lcs(cs)) {
        for (size_t j = 0; j < r->n_constraints && cs_status(cs) == CUZK_OK; j++) {
            cs_lc_t a, b, c;
            const size_t *ls = &r->lc_start[3 * j];

            build_lc(cs, &a, r, vars, ls[0], ls[1]);
            build_lc(cs, &b, r, vars, ls[1], ls[2]);
            build_lc(cs, &c, r, vars, ls[2], ls[3]);
            (void)cs_enforcef(cs, &a, &b, &c, "constraint %zu", j);
        }
    } else {
        for (size_t j = 0; j < r->n_constraints && cs_status(cs) == CUZK_OK; j++) {
            (void)cs_enforce(cs, NULL, NULL, NULL, NULL);
        }
    }
    cz_free(vars);
    err = cs_status(cs);
    if (err != CUZK_OK) {
        return cz_fail(dg, err, "replaying the circom circuit failed: %s", cuzk_strerror(err));
    }
    return CUZK_OK;
}
