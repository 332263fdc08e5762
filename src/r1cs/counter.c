/* counter.c - the shape counter and the shape digest.
 *
 * The counter keeps only the core's three counts. The digest reproduces bellpepper-core's
 * TestConstraintSystem::hash() (crates/bellpepper-core/src/util_cs/test_cs.rs): ONE Blake2s-256
 * state fed with
 *     u64be(num_inputs incl. ONE) || u64be(num_aux) || u64be(num_constraints)
 * and then, for every constraint and each of its A, B, C in that order (`hash_lc`):
 *     u64be(number of terms after merging and dropping zero coefficients)
 *     per term, inputs before aux, each by index:  'I' or 'A' || u64be(index) || coeff as 32
 *     big-endian canonical bytes
 * The output is the 32-byte digest (bellpepper prints it as lower-case hex). The counts
 * include neither the appended input constraints nor anything else the prover adds.
 * Because the counts come first, either they are declared up front (streaming, checked at
 * finish) or the per-constraint bytes are buffered until the counts are known.
 */
#include "r1cs/internal.h"

#include "common/bytes.h"
#include "hash/blake2.h"

const cs_ops cs_ops_counter = {
    .kind = CS_KIND_COUNTER,
    .name = "counter",
    .needs_lcs = false,
    .has_values = false,
    .wants_labels = false,
    .can_extend = true,
    .init = NULL,
    .enforce = NULL, /* the core counts */
    .finish = NULL,
    .extend = NULL,
    .destroy = NULL,
    .fork_reserve = NULL,
    .fork = NULL,
    .join = NULL, /* the core adds the counts */
};

cuzk_err cs_new_counter(cs_t **out, cz_diag *dg)
{
    return cs_new_with(out, &cs_ops_counter, NULL, NULL, dg);
}

typedef struct digest {
    blake2s_ctx_t h;
    bool streaming;     /* counts declared and already hashed */
    cs_counts_t expect; /* when streaming */
    uint8_t *buf;       /* otherwise: the per-constraint bytes */
    size_t len, cap;
    bool done;
    uint8_t out[32];
} digest;

static void digest_counts(blake2s_ctx_t *h, const cs_counts_t *n)
{
    uint8_t b[24];
    cz_store_be64(b, (uint64_t)n->num_inputs);
    cz_store_be64(b + 8, (uint64_t)n->num_aux);
    cz_store_be64(b + 16, (uint64_t)n->num_constraints);
    blake2s_update(h, b, sizeof(b));
}

static cuzk_err digest_init(cs_t *cs, const cs_counts_t *hint, const void *arg)
{
    const cs_counts_t *expect = arg;
    digest *d = cz_calloc(1, sizeof(*d));

    (void)hint;
    if (!d) {
        return CUZK_E_NOMEM;
    }
    cs->be = d;
    blake2s_init(&d->h, 32);
    if (expect) {
        d->streaming = true;
        d->expect = *expect;
        digest_counts(&d->h, expect);
    }
    return CUZK_OK;
}

static void digest_destroy(cs_t *cs)
{
    digest *d = cs->be;
    if (d) {
        cz_free(d->buf);
        cz_free(d);
        cs->be = NULL;
    }
}

static void digest_put(cs_t *cs, digest *d, const uint8_t *p, size_t n)
{
    if (d->streaming) {
        blake2s_update(&d->h, p, n);
        return;
    }
    if (!cs_vec_reserve((void **)&d->buf, &d->cap, d->len + n, 1, false)) {
        cs_set_err(cs, CUZK_E_NOMEM, "digest buffer of %zu bytes (declare the counts to stream)",
                   d->len + n);
        return;
    }
    memcpy(d->buf + d->len, p, n);
    d->len += n;
}

static void digest_lc(cs_t *cs, digest *d, cs_lc_t *lc)
{
    const cs_term_t *t;
    size_t n = cs_lc_canonical(cs, lc, &t);
    uint8_t b[41];

    if (n == SIZE_MAX) {
        return;
    }
    cz_store_be64(b, (uint64_t)n);
    digest_put(cs, d, b, 8);
    for (size_t i = 0; i < n; i++) {
        uint64_t key = cs_term_key(&t[i]);
        fr_repr_t r;
        b[0] = (key & CS_VAR_AUX_BIT) ? 'A' : 'I';
        cz_store_be64(b + 1, key & CS_VAR_INDEX_MAX);
        fr_to_repr(&r, &t[i].coeff);
        for (int k = 0; k < 4; k++) {
            cz_store_be64(b + 9 + 8 * k, r.l[3 - k]);
        }
        digest_put(cs, d, b, sizeof(b));
    }
}

static void digest_enforce(cs_t *cs, cs_lc_t *a, cs_lc_t *b, cs_lc_t *c, const char *label,
                           const char *fmt, va_list *ap)
{
    digest *d = cs->be;

    (void)label;
    (void)fmt;
    (void)ap;
    digest_lc(cs, d, a);
    digest_lc(cs, d, b);
    digest_lc(cs, d, c);
}

static cuzk_err digest_finish(cs_t *cs, cz_diag *dg)
{
    digest *d = cs->be;
    cs_counts_t got;

    cs_get_counts(cs, &got);
    if (d->streaming) {
        if (got.num_inputs != d->expect.num_inputs || got.num_aux != d->expect.num_aux ||
            got.num_constraints != d->expect.num_constraints) {
            return cz_fail(dg, CUZK_E_INVAL,
                           "shape digest: declared counts (inputs %zu, aux %zu, constraints %zu) "
                           "differ from the synthesized ones (%zu, %zu, %zu)",
                           d->expect.num_inputs, d->expect.num_aux, d->expect.num_constraints,
                           got.num_inputs, got.num_aux, got.num_constraints);
        }
    } else {
        digest_counts(&d->h, &got);
        if (d->len) {
            blake2s_update(&d->h, d->buf, d->len);
        }
        cz_free(d->buf);
        d->buf = NULL;
        d->len = d->cap = 0;
    }
    blake2s_final(&d->h, d->out);
    d->done = true;
    return CUZK_OK;
}

const cs_ops cs_ops_digest = {
    .kind = CS_KIND_DIGEST,
    .name = "digest",
    .needs_lcs = true,
    .has_values = false,
    .wants_labels = false,
    .can_extend = false,
    .init = digest_init,
    .enforce = digest_enforce,
    .finish = digest_finish,
    .extend = NULL,
    .destroy = digest_destroy,
};

cuzk_err cs_new_digest(cs_t **out, const cs_counts_t *expect, cz_diag *dg)
{
    return cs_new_with(out, &cs_ops_digest, NULL, expect, dg);
}

bool cs_digest(const cs_t *cs, uint8_t out[32])
{
    if (cs->ops != &cs_ops_digest) {
        return false;
    }
    const digest *d = cs->be;
    if (!d->done) {
        return false;
    }
    memcpy(out, d->out, 32);
    return true;
}
