/* cs.c - the backend-independent core: construction, the term arena, linear combinations
 * (append, merge, canonical order), allocation, enforce dispatch, namespaces, sticky errors,
 * extend, fork / join and finish.
 *
 * LCs append terms without looking for an existing one (O(1) per term); repeated variables
 * are merged only where a backend needs it (density, CSR rows, the digest), by a pairwise scan
 * for short LCs and a stamped hash table for long ones. The merged map equals bellpepper's
 * `Indexer` map: coefficients of a variable are summed, zero results are kept.
 */
#include "r1cs/r1cs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/alloc.h"
#include "common/bytes.h"
#include "r1cs/internal.h"

#define CS_ARENA_BLOCK_TERMS 4096 /* 160 KiB: covers every LC of a typical constraint */
#define CS_LC_MIN_CAP        4
#define CS_MERGE_SCAN_MAX    16 /* pairwise scan up to this many terms, hash beyond */

/* ------------------------------------------------------------------------------------------
 * Errors and vectors
 * ---------------------------------------------------------------------------------------- */

static void cs_set_err_va(cs_t *cs, cuzk_err code, const char *fmt, va_list ap) CZ_PRINTF(3, 0);

static void cs_set_err_va(cs_t *cs, cuzk_err code, const char *fmt, va_list ap)
{
    if (cs->err != CUZK_OK) {
        return;
    }
    cs->err = code;
    cs->diag.code = code;
    cs->diag.file = __FILE__;
    cs->diag.line = __LINE__;
    vsnprintf(cs->diag.msg, sizeof(cs->diag.msg), fmt, ap);
}

void cs_set_err(cs_t *cs, cuzk_err code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cs_set_err_va(cs, code, fmt, ap);
    va_end(ap);
}

cuzk_err cs_fail(cs_t *cs, cuzk_err code, const char *fmt, ...)
{
    va_list ap;
    CZ_CHECK(code != CUZK_OK);
    va_start(ap, fmt);
    cs_set_err_va(cs, code, fmt, ap);
    va_end(ap);
    return cs->err;
}

cuzk_err cs_status(const cs_t *cs)
{
    return cs->err;
}

bool cs_vec_reserve(void **p, size_t *cap, size_t need, size_t elem, bool zero)
{
    if (need <= *cap) {
        return true;
    }
    size_t ncap = *cap < 16 ? 16 : *cap;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) {
            ncap = need;
            break;
        }
        ncap *= 2;
    }
    if (ncap > SIZE_MAX / elem) {
        return false;
    }
    void *q = cz_realloc(*p, ncap * elem);
    if (!q) {
        return false;
    }
    if (zero) {
        memset((char *)q + *cap * elem, 0, (ncap - *cap) * elem);
    }
    *p = q;
    *cap = ncap;
    cs_advise_huge(q, ncap * elem);
    return true;
}

void cs_advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (bytes < 16 * huge) {
        return;
    }
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t hi = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (hi > lo) {
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
#else
    (void)p;
    (void)bytes;
#endif
}

/* ------------------------------------------------------------------------------------------
 * Term arena
 * ---------------------------------------------------------------------------------------- */

static cs_arena_block *arena_block_new(size_t cap)
{
    cs_arena_block *b = cz_malloc(sizeof(*b));
    if (!b) {
        return NULL;
    }
    b->terms = cz_malloc(cap * sizeof(cs_term_t));
    if (!b->terms) {
        cz_free(b);
        return NULL;
    }
    b->next = NULL;
    b->cap = cap;
    b->used = 0;
    return b;
}

/* n terms from the arena, or NULL (sticky E_NOMEM). */
static cs_term_t *arena_alloc(cs_t *cs, size_t n)
{
    cs_arena_block *b = cs->blk_cur;

    if (b && b->cap - b->used >= n) {
        cs_term_t *t = b->terms + b->used;
        b->used += n;
        return t;
    }
    /* Move on to the next retained block that fits, or insert a new one after the current. */
    while (b && b->next) {
        b = b->next;
        b->used = 0;
        if (b->cap >= n) {
            cs->blk_cur = b;
            b->used = n;
            return b->terms;
        }
    }
    size_t cap = n > CS_ARENA_BLOCK_TERMS ? n : CS_ARENA_BLOCK_TERMS;
    if (n > SIZE_MAX / (2 * sizeof(cs_term_t))) {
        cs_set_err(cs, CUZK_E_NOMEM, "linear combination of %zu terms", n);
        return NULL;
    }
    cs_arena_block *nb = arena_block_new(cap);
    if (!nb) {
        cs_set_err(cs, CUZK_E_NOMEM, "term arena: %zu terms", cap);
        return NULL;
    }
    if (b) {
        nb->next = b->next;
        b->next = nb;
    } else {
        cs->blk_first = nb;
    }
    cs->blk_cur = nb;
    nb->used = n;
    return nb->terms;
}

/* Frees nothing: every block is kept, the generation moves on and the bump pointer restarts. */
static void arena_reset(cs_t *cs)
{
    cs->blk_cur = cs->blk_first;
    if (cs->blk_cur) {
        cs->blk_cur->used = 0;
    }
    cs->gen++;
    if (cs->gen == 0) {
        cs->gen = 1; /* 0 marks heap LCs */
    }
}

/* ------------------------------------------------------------------------------------------
 * Linear combinations
 * ---------------------------------------------------------------------------------------- */

cs_lc_t cs_lc(cs_t *cs)
{
    cs_lc_t lc = {NULL, 0, 0, cs->gen, CS_LC_MERGED};
    cs_arena_block *b = cs->blk_cur;

    /* Most LCs have one to four terms: give them room now with a plain bump. */
    if (CZ_LIKELY(b && b->cap - b->used >= CS_LC_MIN_CAP)) {
        lc.terms = b->terms + b->used;
        lc.cap = CS_LC_MIN_CAP;
        b->used += CS_LC_MIN_CAP;
    }
    return lc;
}

cs_lc_t cs_lc_of(cs_t *cs, cs_var_t v)
{
    cs_lc_t lc = cs_lc(cs);
    cs_lc_add_var(cs, &lc, v);
    return lc;
}

void cs_lc_init(cs_lc_t *lc)
{
    lc->terms = NULL;
    lc->len = 0;
    lc->cap = 0;
    lc->gen = 0;
    lc->flags = CS_LC_MERGED;
}

void cs_lc_clear(cs_lc_t *lc)
{
    if (lc->gen == 0) {
        cz_free(lc->terms);
    }
    lc->terms = NULL;
    lc->len = 0;
    lc->cap = 0;
    lc->flags = CS_LC_MERGED;
}

void cs_lc_reset(cs_t *cs, cs_lc_t *lc)
{
    if (lc->gen == 0) {
        lc->len = 0;
        lc->flags = CS_LC_MERGED;
    } else {
        *lc = cs_lc(cs);
    }
}

/* Makes room for `need` terms; false after a sticky error. */
static bool lc_reserve(cs_t *cs, cs_lc_t *lc, size_t need)
{
    if (CZ_LIKELY(need <= lc->cap)) {
        return true;
    }
    size_t ncap = lc->cap < CS_LC_MIN_CAP ? CS_LC_MIN_CAP : lc->cap * 2;
    if (ncap < need) {
        ncap = need;
    }
    if (cs->err != CUZK_OK) {
        return false;
    }
    if (lc->gen == 0) {
        size_t cap = lc->cap;
        if (!cs_vec_reserve((void **)&lc->terms, &cap, ncap, sizeof(cs_term_t), false)) {
            cs_set_err(cs, CUZK_E_NOMEM, "linear combination of %zu terms", ncap);
            return false;
        }
        lc->cap = cap;
        return true;
    }
    /* Arena LC: grow in place when it is the most recent allocation, else move. */
    cs_arena_block *b = cs->blk_cur;
    if (lc->terms && b && lc->terms + lc->cap == b->terms + b->used &&
        b->cap - b->used >= ncap - lc->cap) {
        b->used += ncap - lc->cap;
        lc->cap = ncap;
        return true;
    }
    cs_term_t *t = arena_alloc(cs, ncap);
    if (!t) {
        return false;
    }
    if (lc->len) {
        memcpy(t, lc->terms, lc->len * sizeof(cs_term_t));
    }
    lc->terms = t;
    lc->cap = ncap;
    return true;
}

static inline void lc_push(cs_t *cs, cs_lc_t *lc, cs_var_t v, uint64_t flags, const fr_t *coeff)
{
    uint64_t var = v.bits | flags;

    cs_lc_check_live(cs, lc);
    CZ_CHECK((v.bits & ~CS_TERM_KEY_MASK) == 0); /* an index beyond CS_VAR_INDEX_MAX */
    if (CZ_UNLIKELY(lc->len == lc->cap) && !lc_reserve(cs, lc, lc->len + 1)) {
        return;
    }
    cs_term_t *t = &lc->terms[lc->len];
    t->var = var;
    t->coeff = *coeff;
    lc->len++;
    if (lc->len > 1) {
        lc->flags &= ~CS_LC_MERGED;
    }
}

void cs_lc_add_var(cs_t *cs, cs_lc_t *lc, cs_var_t v)
{
    lc_push(cs, lc, v, CS_TERM_ONE_BIT, &FR_ONE);
}

void cs_lc_sub_var(cs_t *cs, cs_lc_t *lc, cs_var_t v)
{
    lc_push(cs, lc, v, CS_TERM_MONE_BIT, &cs->minus_one);
}

void cs_lc_add(cs_t *cs, cs_lc_t *lc, const fr_t *coeff, cs_var_t v)
{
    lc_push(cs, lc, v, cs_coeff_flags(cs, coeff), coeff);
}

void cs_lc_sub(cs_t *cs, cs_lc_t *lc, const fr_t *coeff, cs_var_t v)
{
    fr_t n;
    fr_neg(&n, coeff);
    lc_push(cs, lc, v, cs_coeff_flags(cs, &n), &n);
}

void cs_lc_add_lc(cs_t *cs, cs_lc_t *lc, const fr_t *coeff, const cs_lc_t *other)
{
    size_t n = other->len;
    uint64_t cflag = coeff ? cs_coeff_flags(cs, coeff) : CS_TERM_ONE_BIT;

    cs_lc_check_live(cs, lc);
    cs_lc_check_live(cs, other);
    if (n == 0 || !lc_reserve(cs, lc, lc->len + n)) {
        return;
    }
    /* `other` may be `lc` itself: read its terms only after the reserve, and only n of them. */
    const cs_term_t *src = other->terms;
    cs_term_t *dst = lc->terms + lc->len;
    for (size_t i = 0; i < n; i++) {
        cs_term_t t = src[i];
        if (cflag == CS_TERM_ONE_BIT) {
            /* copied as is */
        } else if (cflag == CS_TERM_MONE_BIT) {
            fr_neg(&t.coeff, &t.coeff);
            uint64_t f = t.var & (CS_TERM_ONE_BIT | CS_TERM_MONE_BIT);
            t.var &= CS_TERM_KEY_MASK;
            if (f == CS_TERM_ONE_BIT) {
                t.var |= CS_TERM_MONE_BIT;
            } else if (f == CS_TERM_MONE_BIT) {
                t.var |= CS_TERM_ONE_BIT;
            }
        } else {
            fr_mul(&t.coeff, &t.coeff, coeff);
            t.var = (t.var & CS_TERM_KEY_MASK) | cs_coeff_flags(cs, &t.coeff);
        }
        dst[i] = t;
    }
    lc->len += n;
    if (lc->len > 1) {
        lc->flags &= ~CS_LC_MERGED;
    }
}

void cs_lc_sub_lc(cs_t *cs, cs_lc_t *lc, const cs_lc_t *other)
{
    cs_lc_add_lc(cs, lc, &cs->minus_one, other);
}

/* t[dst] += t[src] (same variable). */
static inline void term_fold(const cs_t *cs, cs_term_t *dst, const cs_term_t *src)
{
    fr_add(&dst->coeff, &dst->coeff, &src->coeff);
    dst->var = cs_term_key(dst) | cs_coeff_flags(cs, &dst->coeff);
}

static bool merge_hash(cs_t *cs, cs_lc_t *lc)
{
    size_t n = lc->len;
    size_t cap = 16;
    unsigned bits = 4;

    while (cap < 2 * n) {
        cap *= 2;
        bits++;
    }
    if (cap > cs->mtab_cap) {
        cs_merge_slot *t = cz_calloc(cap, sizeof(*t));
        if (!t) {
            cs_set_err(cs, CUZK_E_NOMEM, "merge table of %zu slots", cap);
            return false;
        }
        cz_free(cs->mtab);
        cs->mtab = t;
        cs->mtab_cap = cap;
        cs->mstamp = 0;
    }
    if (++cs->mstamp == 0) {
        memset(cs->mtab, 0, cs->mtab_cap * sizeof(*cs->mtab));
        cs->mstamp = 1;
    }
    uint32_t stamp = cs->mstamp;
    size_t mask = cap - 1;
    cs_term_t *t = lc->terms;
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t key = cs_term_key(&t[i]);
        size_t h = (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - bits));
        for (;;) {
            cs_merge_slot *s = &cs->mtab[h];
            if (s->stamp != stamp) {
                s->stamp = stamp;
                s->key = key;
                s->pos = (uint32_t)out;
                t[out++] = t[i];
                break;
            }
            if (s->key == key) {
                term_fold(cs, &t[s->pos], &t[i]);
                break;
            }
            h = (h + 1) & mask;
        }
    }
    lc->len = out;
    return true;
}

size_t cs_lc_merge(cs_t *cs, cs_lc_t *lc)
{
    if (lc->flags & CS_LC_MERGED) {
        return lc->len;
    }
    cs_lc_check_live(cs, lc);
    size_t n = lc->len;
    cs_term_t *t = lc->terms;
    /* Terms added in allocation order (bits being packed, ONE then aux) cannot repeat. */
    size_t k = 1;
    while (k < n && cs_term_key(&t[k - 1]) < cs_term_key(&t[k])) {
        k++;
    }
    if (k >= n) {
        lc->flags |= CS_LC_MERGED;
        return n;
    }
    if (n > CS_MERGE_SCAN_MAX && n <= UINT32_MAX) {
        if (!merge_hash(cs, lc)) {
            return lc->len;
        }
    } else {
        size_t out = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t key = cs_term_key(&t[i]);
            size_t j = 0;
            while (j < out && cs_term_key(&t[j]) != key) {
                j++;
            }
            if (j < out) {
                term_fold(cs, &t[j], &t[i]);
            } else {
                t[out++] = t[i];
            }
        }
        lc->len = out;
    }
    lc->flags |= CS_LC_MERGED;
    return lc->len;
}

bool cs_lc_coeff(cs_t *cs, fr_t *out, const cs_lc_t *lc, cs_var_t v)
{
    bool found = false;

    cs_lc_check_live(cs, lc);
    *out = FR_ZERO;
    for (size_t i = 0; i < lc->len; i++) {
        if (cs_term_key(&lc->terms[i]) == v.bits) {
            fr_add(out, out, &lc->terms[i].coeff);
            found = true;
        }
    }
    return found;
}

bool cs_lc_eval_values(cs_t *cs, fr_t *out, const cs_lc_t *lc)
{
    fr_t acc = FR_ZERO;

    if (lc) {
        for (size_t i = 0; i < lc->len; i++) {
            const fr_t *v = cs_key_value(cs, cs_term_key(&lc->terms[i]));
            if (!v) {
                *out = FR_ZERO;
                return false;
            }
            cs_term_accumulate(&acc, &lc->terms[i], v);
        }
    }
    *out = acc;
    return true;
}

bool cs_lc_eval(cs_t *cs, fr_t *out, const cs_lc_t *lc)
{
    cs_lc_check_live(cs, lc);
    if (!cs->ops->has_values) {
        *out = FR_ZERO;
        return false;
    }
    return cs_lc_eval_values(cs, out, lc);
}

static int term_cmp(const void *a, const void *b)
{
    uint64_t x = cs_term_key(a), y = cs_term_key(b);
    return (x > y) - (x < y);
}

size_t cs_lc_canonical(cs_t *cs, cs_lc_t *lc, const cs_term_t **terms)
{
    *terms = cs->canon;
    if (!lc || lc->len == 0) {
        return 0;
    }
    cs_lc_check_live(cs, lc);
    cs_lc_merge(cs, lc);
    if (cs->err != CUZK_OK) {
        return SIZE_MAX;
    }
    if (!cs_vec_reserve((void **)&cs->canon, &cs->canon_cap, lc->len, sizeof(cs_term_t), false)) {
        cs_set_err(cs, CUZK_E_NOMEM, "canonical LC of %zu terms", lc->len);
        return SIZE_MAX;
    }
    cs_term_t *c = cs->canon;
    size_t n = 0;
    for (size_t i = 0; i < lc->len; i++) {
        if (!cs_fr_is_zero(&lc->terms[i].coeff)) {
            c[n++] = lc->terms[i];
        }
    }
    if (n <= 32) {
        for (size_t i = 1; i < n; i++) {
            cs_term_t x = c[i];
            uint64_t k = cs_term_key(&x);
            size_t j = i;
            while (j > 0 && cs_term_key(&c[j - 1]) > k) {
                c[j] = c[j - 1];
                j--;
            }
            c[j] = x;
        }
    } else {
        qsort(c, n, sizeof(cs_term_t), term_cmp);
    }
    *terms = c;
    return n;
}

/* ------------------------------------------------------------------------------------------
 * Construction
 * ---------------------------------------------------------------------------------------- */

/* A zeroed cs of `ops` with the core's initial state (no backend, no ONE); NULL without
 * memory. */
static cs_t *cs_core_new(const cs_ops *ops)
{
    cs_t *cs = cz_calloc(1, sizeof(*cs));

    if (!cs) {
        return NULL;
    }
    cs->ops = ops;
    cs->gen = 1;
    cz_diag_init(&cs->diag);
    fr_neg(&cs->minus_one, &FR_ONE);
    return cs;
}

cuzk_err cs_new_with(cs_t **out, const cs_ops *ops, const cs_counts_t *hint, const void *arg,
                     cz_diag *dg)
{
    return cs_new_with_values(out, ops, hint, arg, NULL, dg);
}

cuzk_err cs_new_with_values(cs_t **out, const cs_ops *ops, const cs_counts_t *hint, const void *arg,
                            cs_assignment_t *spare, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    cs_t *cs = cs_core_new(ops);

    *out = NULL;
    if (!cs) {
        return cz_fail(dg, CUZK_E_NOMEM, "cs_new(%s)", ops->name);
    }
    if (ops->has_values && spare) {
        /* the spare's value vectors, already faulted in: their capacity is their count */
        cs->in_vals = spare->inputs;
        cs->in_cap = spare->inputs ? spare->num_inputs : 0;
        cs->aux_vals = spare->aux;
        cs->aux_cap = spare->aux ? spare->num_aux : 0;
        spare->inputs = spare->aux = NULL;
        spare->num_inputs = spare->num_aux = 0;
    }
    if (ops->has_values && hint) {
        size_t ni = hint->num_inputs ? hint->num_inputs : 1;
        if (!cs_vec_reserve((void **)&cs->in_vals, &cs->in_cap, ni, sizeof(fr_t), false) ||
            !cs_vec_reserve((void **)&cs->aux_vals, &cs->aux_cap, hint->num_aux, sizeof(fr_t),
                            false)) {
            err = cz_fail(dg, CUZK_E_NOMEM, "cs_new(%s): values for %zu inputs, %zu aux", ops->name,
                          hint->num_inputs, hint->num_aux);
            goto done;
        }
    }
    if (ops->init) {
        CZ_TRY(err, ops->init(cs, hint, arg), fail_init);
    }
    /* ONE = Input(0), allocated before any circuit code (circuits.md 1.2). */
    cs_var_t one;
    CZ_TRY(err, cs_alloc_input(cs, &one, &FR_ONE), fail_init);
    *out = cs;
    cs = NULL;
    goto done;
fail_init:
    if (cs->err != CUZK_OK) {
        err = cz_fail(dg, cs->err, "cs_new(%s): %s", ops->name, cs->diag.msg);
    } else {
        err = cz_fail(dg, err, "cs_new(%s)", ops->name);
    }
done:
    cs_free(cs);
    return err;
}

cuzk_err cs_new_like(cs_t **out, const cs_t *proto, const cs_counts_t *hint, cz_diag *dg)
{
    *out = NULL;
    if (!proto->ops->can_extend) {
        return cz_fail(dg, CUZK_E_INVAL, "cs_new_like: a %s cs cannot be extended",
                       proto->ops->name);
    }
    cuzk_err err = cs_new_with(out, proto->ops, hint, NULL, dg);
    if (err == CUZK_OK) {
        (*out)->cancel = proto->cancel;
    }
    return err;
}

/* One child of `parent`'s open fork is gone (joined or freed); the last one takes the value
 * snapshot with it. */
static void fork_release(cs_t *parent)
{
    CZ_CHECK(parent->forks_open > 0);
    parent->forks_open--;
    if (parent->forks_open == 0) {
        cz_free(parent->fork_snap);
        parent->fork_snap = NULL;
    }
}

void cs_free(cs_t *cs)
{
    if (!cs) {
        return;
    }
    /* Children are joined or freed before their parent (they may point into it). */
    CZ_CHECK(cs->forks_open == 0);
    if (cs->fork_parent && !cs->consumed) {
        /* A dropped child leaves a hole in the parent's numbering: its result is void. */
        cs_set_err(cs->fork_parent, CUZK_E_INVAL, "fork child %zu freed without cs_join",
                   cs->fork_seq);
        fork_release(cs->fork_parent);
    }
    if (cs->ops->destroy) {
        cs->ops->destroy(cs);
    }
    if (!cs->vals_borrowed) {
        cz_free(cs->in_vals);
        cz_free(cs->aux_vals);
    }
    cz_free(cs->fork_snap);
    cs_arena_block *b = cs->blk_first;
    while (b) {
        cs_arena_block *next = b->next;
        cz_free(b->terms);
        cz_free(b);
        b = next;
    }
    cz_free(cs->mtab);
    cz_free(cs->canon);
    cz_free(cs->path);
    cz_free(cs->ns_marks);
    cz_free(cs);
}

const char *cs_kind_name(const cs_t *cs)
{
    return cs->ops->name;
}

bool cs_needs_lcs(const cs_t *cs)
{
    return cs->ops->needs_lcs;
}

bool cs_has_values(const cs_t *cs)
{
    return cs->ops->has_values;
}

bool cs_wants_labels(const cs_t *cs)
{
    return cs->ops->wants_labels;
}

bool cs_blind(const cs_t *cs)
{
    return !cs->ops->needs_lcs && !cs->ops->wants_labels && !cs->ops->enforce;
}

bool cs_can_extend(const cs_t *cs)
{
    return cs->ops->can_extend;
}

void cs_get_counts(const cs_t *cs, cs_counts_t *out)
{
    out->num_inputs = cs->num_inputs;
    out->num_aux = cs->num_aux;
    out->num_constraints = cs->num_constraints;
}

/* ------------------------------------------------------------------------------------------
 * Allocation and constraints
 * ---------------------------------------------------------------------------------------- */

/* Synthesis may go on: not finished, not emptied into a parent, no children forked and still
 * out (they may point into this cs's storage). */
static inline void cs_check_open(const cs_t *cs)
{
    CZ_CHECK(!cs->finished && !cs->consumed && cs->forks_open == 0);
}

/* Makes room for value number `need` - 1 of a value vector; false after a sticky error. A
 * placed fork child writes into the parent's storage and cannot grow beyond its declared size. */
static bool vals_grow(cs_t *cs, fr_t **vals, size_t *cap, size_t need, const char *what)
{
    if (cs->vals_borrowed) {
        cs_set_err(cs, CUZK_E_INVAL, "fork child %zu: more %s than the %zu declared", cs->fork_seq,
                   what, *cap);
        return false;
    }
    if (!cs_vec_reserve((void **)vals, cap, need, sizeof(fr_t), false)) {
        cs_set_err(cs, CUZK_E_NOMEM, "%s values: %zu", what, need);
        return false;
    }
    return true;
}

cuzk_err cs_alloc(cs_t *cs, cs_var_t *out, const fr_t *value)
{
    cs_check_open(cs);
    *out = cs_var_aux(cs->aux_base + cs->num_aux);
    if (CZ_UNLIKELY(cs->err != CUZK_OK)) {
        return cs->err;
    }
    if (cs->ops->has_values) {
        if (CZ_UNLIKELY(!value)) {
            cs_set_err(cs, CUZK_E_INVAL, "%s cs: value missing for Aux(%zu)", cs->ops->name,
                       cs->aux_base + cs->num_aux);
            return cs->err;
        }
        if (CZ_UNLIKELY(cs->num_aux == cs->aux_cap) &&
            !vals_grow(cs, &cs->aux_vals, &cs->aux_cap, cs->num_aux + 1, "aux")) {
            return cs->err;
        }
        cs->aux_vals[cs->num_aux] = *value;
    }
    CZ_CHECK(cs->aux_base + cs->num_aux < CS_VAR_INDEX_MAX);
    cs->num_aux++;
    return CUZK_OK;
}

cuzk_err cs_alloc_bits(cs_t *cs, cs_var_t *out, const bool *bits, size_t n)
{
    cs_check_open(cs);
    size_t at = cs->aux_base + cs->num_aux;
    bool ok = cs->err == CUZK_OK;
    if (ok && cs->ops->has_values && CZ_UNLIKELY(cs->num_aux + n > cs->aux_cap)) {
        ok = vals_grow(cs, &cs->aux_vals, &cs->aux_cap, cs->num_aux + n, "aux");
    }
    if (CZ_UNLIKELY(!ok)) {
        for (size_t i = 0; i < n; i++) {
            out[i] = cs_var_aux(at); /* as cs_alloc after a sticky error */
        }
        return cs->err;
    }
    if (cs->ops->has_values) {
        fr_t *v = cs->aux_vals + cs->num_aux;
        for (size_t i = 0; i < n; i++) {
            v[i] = bits[i] ? FR_ONE : FR_ZERO;
        }
    }
    CZ_CHECK(at + n <= CS_VAR_INDEX_MAX);
    for (size_t i = 0; i < n; i++) {
        out[i] = cs_var_aux(at + i);
    }
    cs->num_aux += n;
    return CUZK_OK;
}

cuzk_err cs_alloc_input(cs_t *cs, cs_var_t *out, const fr_t *value)
{
    cs_check_open(cs);
    *out = cs_var_input(cs->in_base + cs->num_inputs);
    if (CZ_UNLIKELY(cs->err != CUZK_OK)) {
        return cs->err;
    }
    if (cs->ops->has_values) {
        if (CZ_UNLIKELY(!value)) {
            cs_set_err(cs, CUZK_E_INVAL, "%s cs: value missing for Input(%zu)", cs->ops->name,
                       cs->in_base + cs->num_inputs);
            return cs->err;
        }
        if (cs->num_inputs == cs->in_cap &&
            !vals_grow(cs, &cs->in_vals, &cs->in_cap, cs->num_inputs + 1, "input")) {
            return cs->err;
        }
        cs->in_vals[cs->num_inputs] = *value;
    }
    CZ_CHECK(cs->in_base + cs->num_inputs < CS_VAR_INDEX_MAX);
    cs->num_inputs++;
    return CUZK_OK;
}

bool cs_value(const cs_t *cs, fr_t *out, cs_var_t v)
{
    uint64_t idx = cs_var_index(v);

    if (!cs->ops->has_values || cs->consumed || (!cs->fork_parent && !cs->in_vals)) {
        return false; /* no values kept, or already moved out by cs_take_assignment */
    }
    CZ_CHECK(cs_key_allocated(cs, v.bits));
    if (cs_var_is_aux(v)) {
        uint64_t rel = idx - (uint64_t)cs->aux_base;
        *out = rel < cs->num_aux ? cs->aux_vals[rel] : cs->par_aux_vals[idx];
    } else {
        uint64_t rel = idx - (uint64_t)cs->in_base;
        *out = rel < cs->num_inputs ? cs->in_vals[rel] : cs->par_in_vals[idx];
    }
    return true;
}

/* Before counting constraints num_constraints .. + n - 1: the cancel flag is looked at when one
 * of them is a multiple of 4096 (a sticky CUZK_E_CANCELLED when set). */
static void check_cancel(cs_t *cs, size_t n)
{
    size_t first = cs->num_constraints, last = first + n - 1;
    bool due = (first & 4095) == 0 || (first >> 12) != (last >> 12);

    if (CZ_UNLIKELY(cs->cancel && due) && atomic_load_explicit(cs->cancel, memory_order_relaxed) &&
        cs->err == CUZK_OK) {
        cs_set_err(cs, CUZK_E_CANCELLED, "synthesis cancelled");
    }
}

static cuzk_err enforce_common(cs_t *cs, cs_lc_t *a, cs_lc_t *b, cs_lc_t *c, const char *label,
                               const char *fmt, va_list *ap)
{
    cs_check_open(cs);
    if (a) {
        cs_lc_check_live(cs, a);
    }
    if (b) {
        cs_lc_check_live(cs, b);
    }
    if (c) {
        cs_lc_check_live(cs, c);
    }
    check_cancel(cs, 1);
    if (CZ_LIKELY(cs->err == CUZK_OK)) {
        if (cs->ops->enforce) {
            cs->ops->enforce(cs, a, b, c, label, fmt, ap);
        }
        cs->num_constraints++;
    }
    arena_reset(cs);
    return cs->err;
}

cuzk_err cs_enforce_blind(cs_t *cs, size_t n)
{
    cs_check_open(cs);
    CZ_CHECK(cs_blind(cs));
    if (n == 0) {
        return cs->err;
    }
    check_cancel(cs, n);
    if (CZ_LIKELY(cs->err == CUZK_OK)) {
        cs->num_constraints += n;
    }
    arena_reset(cs);
    return cs->err;
}

void cs_set_cancel(cs_t *cs, const atomic_bool *flag)
{
    cs->cancel = flag;
}

cuzk_err cs_enforce(cs_t *cs, cs_lc_t *a, cs_lc_t *b, cs_lc_t *c, const char *label)
{
    return enforce_common(cs, a, b, c, label, NULL, NULL);
}

cuzk_err cs_enforcef(cs_t *cs, cs_lc_t *a, cs_lc_t *b, cs_lc_t *c, const char *fmt, ...)
{
    cuzk_err err;
    va_list ap;

    va_start(ap, fmt);
    err = enforce_common(cs, a, b, c, NULL, fmt, &ap);
    va_end(ap);
    return err;
}

/* ------------------------------------------------------------------------------------------
 * Namespaces
 * ---------------------------------------------------------------------------------------- */

static void ns_push_str(cs_t *cs, const char *name, size_t n)
{
    if (cs->err != CUZK_OK) {
        return;
    }
    if (memchr(name, '/', n)) {
        cs_set_err(cs, CUZK_E_INVAL, "namespace name \"%.*s\" contains '/'", (int)n, name);
        return;
    }
    if (!cs_vec_reserve((void **)&cs->ns_marks, &cs->ns_marks_cap, cs->ns_depth, sizeof(size_t),
                        false) ||
        !cs_vec_reserve((void **)&cs->path, &cs->path_cap, cs->path_len + n + 2, 1, false)) {
        cs_set_err(cs, CUZK_E_NOMEM, "namespace path");
        return;
    }
    cs->ns_marks[cs->ns_depth - 1] = cs->path_len;
    if (cs->path_len > 0) {
        cs->path[cs->path_len++] = '/';
    }
    memcpy(cs->path + cs->path_len, name, n);
    cs->path_len += n;
    cs->path[cs->path_len] = '\0';
}

void cs_push_ns(cs_t *cs, const char *name)
{
    cs_check_open(cs);
    cs->ns_depth++;
    if (cs->ops->wants_labels) {
        ns_push_str(cs, name, strlen(name));
    }
}

void cs_push_nsf(cs_t *cs, const char *fmt, ...)
{
    cs_check_open(cs);
    cs->ns_depth++;
    if (cs->ops->wants_labels) {
        char buf[256];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        if (n < 0) {
            n = 0;
        }
        ns_push_str(cs, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
    }
}

void cs_pop_ns(cs_t *cs)
{
    cs_check_open(cs);
    CZ_CHECK(cs->ns_depth > 0);
    cs->ns_depth--;
    if (cs->ops->wants_labels && cs->ns_depth < cs->ns_marks_cap && cs->path) {
        cs->path_len = cs->ns_marks[cs->ns_depth];
        cs->path[cs->path_len] = '\0';
    }
}

/* ------------------------------------------------------------------------------------------
 * Finish and extend
 * ---------------------------------------------------------------------------------------- */

cuzk_err cs_finish(cs_t *cs, cz_diag *dg)
{
    cs_check_open(cs);
    CZ_CHECK(!cs->fork_parent); /* a fork child ends in cs_join */
    cs->finished = true;
    if (cs->err == CUZK_OK && cs->ops->finish) {
        cuzk_err err = cs->ops->finish(cs, dg);
        if (err != CUZK_OK) {
            return err;
        }
    }
    if (cs->err != CUZK_OK) {
        return cz_fail(dg, cs->err, "%s cs: %s", cs->ops->name, cs->diag.msg);
    }
    return CUZK_OK;
}

cuzk_err cs_extend(cs_t *parent, cs_t *child, cz_diag *dg)
{
    cuzk_err err;

    cs_check_open(parent);
    cs_check_open(child);
    CZ_CHECK(parent != child);
    CZ_CHECK(parent->ops == child->ops);
    CZ_CHECK(!parent->fork_parent && !child->fork_parent); /* forks end in cs_join */
    if (!parent->ops->can_extend) {
        return cz_fail(dg, CUZK_E_INVAL, "cs_extend: a %s cs cannot be extended",
                       parent->ops->name);
    }
    if (parent->err != CUZK_OK) {
        return parent->err;
    }
    if (child->err != CUZK_OK) {
        cs_set_err(parent, child->err, "%s", child->diag.msg);
        child->consumed = true;
        return parent->err;
    }
    size_t extra_in = child->num_inputs - 1; /* the child's ONE is dropped */
    if (parent->ops->has_values) {
        if (!cs_vec_reserve((void **)&parent->in_vals, &parent->in_cap,
                            parent->num_inputs + extra_in, sizeof(fr_t), false) ||
            !cs_vec_reserve((void **)&parent->aux_vals, &parent->aux_cap,
                            parent->num_aux + child->num_aux, sizeof(fr_t), false)) {
            cs_set_err(parent, CUZK_E_NOMEM, "cs_extend: values");
            return cz_fail(dg, CUZK_E_NOMEM, "cs_extend: values");
        }
    }
    if (parent->ops->extend) {
        err = parent->ops->extend(parent, child, dg);
        if (err != CUZK_OK) {
            cs_set_err(parent, err, "cs_extend failed");
            return err;
        }
    }
    if (parent->ops->has_values) {
        if (extra_in) {
            memcpy(parent->in_vals + parent->num_inputs, child->in_vals + 1,
                   extra_in * sizeof(fr_t));
        }
        if (child->num_aux) {
            memcpy(parent->aux_vals + parent->num_aux, child->aux_vals,
                   child->num_aux * sizeof(fr_t));
        }
    }
    parent->num_inputs += extra_in;
    parent->num_aux += child->num_aux;
    parent->num_constraints += child->num_constraints;
    child->consumed = true;
    return CUZK_OK;
}

/* ------------------------------------------------------------------------------------------
 * Fork and join
 *
 * A child of cs_fork numbers its own variables and constraints where they will sit in the
 * parent once every earlier sibling is joined (sizes given) or right after the parent's
 * (sizes unknown; cs_join then shifts them by what the earlier siblings added). Variables
 * below the parent's counts at the fork are the parent's: the child reads their values but
 * never writes them, and its density bits for them are ORed into the parent's at the join.
 * With sizes, a child of a value-keeping backend writes its values (and the prover's a, b, c)
 * straight into the room the fork reserved in the parent, so joining copies nothing. Without
 * sizes it keeps its own vectors and reads the parent's values from a snapshot, because the
 * joins of earlier siblings may move the parent's vectors while it still runs.
 * ---------------------------------------------------------------------------------------- */

/* total += add, false on overflow. */
static bool size_add(size_t *total, size_t add)
{
    if (add > SIZE_MAX - *total) {
        return false;
    }
    *total += add;
    return true;
}

cuzk_err cs_fork(cs_t *parent, cs_t **children, size_t n, const cs_counts_t *sizes, cz_diag *dg)
{
    const cs_ops *ops = parent->ops;
    cuzk_err err = CUZK_OK;
    size_t tot_in = 0, tot_aux = 0, tot_c = 0, made = 0;
    size_t off_in = 0, off_aux = 0, off_c = 0;
    fr_t *snap = NULL;
    bool placed = sizes && ops->has_values;

    cs_check_open(parent);
    CZ_CHECK(!parent->fork_parent); /* no nested forks */
    CZ_CHECK(n == 0 || children);
    for (size_t k = 0; k < n; k++) {
        children[k] = NULL;
    }
    if (!ops->can_extend) {
        return cz_fail(dg, CUZK_E_INVAL, "cs_fork: a %s cs cannot be forked", ops->name);
    }
    if (parent->err != CUZK_OK) {
        return cz_fail(dg, parent->err, "cs_fork: %s", parent->diag.msg);
    }
    if (n == 0) {
        return CUZK_OK;
    }
    for (size_t k = 0; sizes && k < n; k++) {
        if (!size_add(&tot_in, sizes[k].num_inputs) || !size_add(&tot_aux, sizes[k].num_aux) ||
            !size_add(&tot_c, sizes[k].num_constraints)) {
            return cz_fail(dg, CUZK_E_INVAL, "cs_fork: declared sizes overflow");
        }
    }
    if (sizes && (tot_in > CS_VAR_INDEX_MAX - parent->num_inputs ||
                  tot_aux > CS_VAR_INDEX_MAX - parent->num_aux)) {
        return cz_fail(dg, CUZK_E_INVAL, "cs_fork: declared sizes overflow");
    }
    if (placed) {
        if (!cs_vec_reserve((void **)&parent->in_vals, &parent->in_cap, parent->num_inputs + tot_in,
                            sizeof(fr_t), false) ||
            !cs_vec_reserve((void **)&parent->aux_vals, &parent->aux_cap, parent->num_aux + tot_aux,
                            sizeof(fr_t), false) ||
            (ops->fork_reserve && ops->fork_reserve(parent, tot_c) != CUZK_OK)) {
            return cz_fail(dg, CUZK_E_NOMEM,
                           "cs_fork: room for %zu inputs, %zu aux, %zu constraints", tot_in,
                           tot_aux, tot_c);
        }
    } else if (ops->has_values) {
        size_t nv = parent->num_inputs + parent->num_aux;
        snap = cz_malloc(nv * sizeof(fr_t));
        if (!snap) {
            return cz_fail(dg, CUZK_E_NOMEM, "cs_fork: snapshot of %zu values", nv);
        }
        memcpy(snap, parent->in_vals, parent->num_inputs * sizeof(fr_t));
        if (parent->num_aux) {
            memcpy(snap + parent->num_inputs, parent->aux_vals, parent->num_aux * sizeof(fr_t));
        }
    }
    for (; made < n; made++) {
        cs_t *c = cs_core_new(ops);
        if (!c) {
            err = cz_fail(dg, CUZK_E_NOMEM, "cs_fork: child %zu", made);
            goto fail;
        }
        children[made] = c;
        c->fork_parent = parent;
        c->cancel = parent->cancel;
        c->fork_seq = parent->fork_issued + made;
        c->par_in = parent->num_inputs;
        c->par_aux = parent->num_aux;
        c->in_base = parent->num_inputs + off_in;
        c->aux_base = parent->num_aux + off_aux;
        c->c_base = parent->num_constraints + off_c;
        if (ops->has_values) {
            c->par_in_vals = placed ? parent->in_vals : snap;
            c->par_aux_vals = placed ? parent->aux_vals : snap + parent->num_inputs;
        }
        if (sizes) {
            c->fork_sized = true;
            c->fork_size = sizes[made];
            off_in += sizes[made].num_inputs;
            off_aux += sizes[made].num_aux;
            off_c += sizes[made].num_constraints;
        }
        if (placed) {
            /* A child that declares no inputs or no aux gets no pointer (the parent's vector
             * may not exist yet); its first allocation fails as any overflow does. */
            c->vals_borrowed = true;
            c->in_cap = c->fork_size.num_inputs;
            c->in_vals = c->in_cap ? parent->in_vals + c->in_base : NULL;
            c->aux_cap = c->fork_size.num_aux;
            c->aux_vals = c->aux_cap ? parent->aux_vals + c->aux_base : NULL;
        }
        if ((ops->init && ops->init(c, NULL, NULL) != CUZK_OK) ||
            (ops->fork && ops->fork(parent, c) != CUZK_OK)) {
            err = cz_fail(dg, CUZK_E_NOMEM, "cs_fork: child %zu", made);
            made++;
            goto fail;
        }
    }
    parent->fork_snap = snap;
    parent->forks_open = n;
    parent->fork_next = parent->fork_issued;
    parent->fork_issued += n;
    return CUZK_OK;
fail:
    for (size_t k = 0; k < made; k++) {
        if (children[k]) {
            children[k]->fork_parent = NULL; /* never registered with the parent */
            cs_free(children[k]);
            children[k] = NULL;
        }
    }
    cz_free(snap);
    return err;
}

cuzk_err cs_join(cs_t *parent, cs_t *child, cz_diag *dg)
{
    const cs_counts_t *want = &child->fork_size;
    cuzk_err err;

    CZ_CHECK(child->fork_parent == parent && !child->consumed && !child->finished);
    CZ_CHECK(child->fork_seq >= parent->fork_next); /* fork order */
    parent->fork_next = child->fork_seq + 1;
    child->consumed = true;
    fork_release(parent);
    if (parent->err != CUZK_OK) {
        return cz_fail(dg, parent->err, "cs_join: %s", parent->diag.msg);
    }
    if (child->err != CUZK_OK) {
        cs_set_err(parent, child->err, "%s", child->diag.msg);
        return cz_fail(dg, child->err, "cs_join: %s", child->diag.msg);
    }
    if (child->fork_sized) {
        if (child->num_inputs != want->num_inputs || child->num_aux != want->num_aux ||
            child->num_constraints != want->num_constraints) {
            cs_set_err(parent, CUZK_E_INVAL,
                       "cs_join: fork child %zu synthesized %zu inputs, %zu aux, %zu constraints; "
                       "%zu, %zu, %zu declared",
                       child->fork_seq, child->num_inputs, child->num_aux, child->num_constraints,
                       want->num_inputs, want->num_aux, want->num_constraints);
            return cz_fail(dg, CUZK_E_INVAL, "%s", parent->diag.msg);
        }
        if (parent->num_inputs != child->in_base || parent->num_aux != child->aux_base ||
            parent->num_constraints != child->c_base) {
            cs_set_err(parent, CUZK_E_INVAL,
                       "cs_join: fork child %zu joined out of place (an earlier sibling was not "
                       "joined)",
                       child->fork_seq);
            return cz_fail(dg, CUZK_E_INVAL, "%s", parent->diag.msg);
        }
    }
    if (parent->ops->has_values && !child->vals_borrowed) {
        if (!cs_vec_reserve((void **)&parent->in_vals, &parent->in_cap,
                            parent->num_inputs + child->num_inputs, sizeof(fr_t), false) ||
            !cs_vec_reserve((void **)&parent->aux_vals, &parent->aux_cap,
                            parent->num_aux + child->num_aux, sizeof(fr_t), false)) {
            cs_set_err(parent, CUZK_E_NOMEM, "cs_join: values");
            return cz_fail(dg, CUZK_E_NOMEM, "cs_join: values");
        }
        if (child->num_inputs) {
            memcpy(parent->in_vals + parent->num_inputs, child->in_vals,
                   child->num_inputs * sizeof(fr_t));
        }
        if (child->num_aux) {
            memcpy(parent->aux_vals + parent->num_aux, child->aux_vals,
                   child->num_aux * sizeof(fr_t));
        }
    }
    if (parent->ops->join) {
        err = parent->ops->join(parent, child, dg);
        if (err != CUZK_OK) {
            cs_set_err(parent, err, "cs_join failed");
            return err;
        }
    }
    parent->num_inputs += child->num_inputs;
    parent->num_aux += child->num_aux;
    parent->num_constraints += child->num_constraints;
    return CUZK_OK;
}

/* ------------------------------------------------------------------------------------------
 * Plain result structures
 * ---------------------------------------------------------------------------------------- */

void cs_bitvec_clear(cs_bitvec_t *bv)
{
    cz_free(bv->words);
    memset(bv, 0, sizeof(*bv));
}

bool cs_bits_finish(cs_bits *bits, cs_bitvec_t *out, size_t len)
{
    size_t words = (len + 63) / 64;
    if (words == 0) {
        words = 1;
    }
    if (!cs_vec_reserve((void **)&bits->words, &bits->cap, words, sizeof(uint64_t), true)) {
        return false;
    }
    out->words = bits->words;
    out->len = len;
    out->popcount = bits->popcount;
    bits->words = NULL;
    bits->cap = 0;
    bits->popcount = 0;
    return true;
}

bool cs_bits_append(cs_bits *dst, size_t offset, const cs_bits *src, size_t from)
{
    for (size_t w = 0; w < src->cap; w++) {
        uint64_t x = src->words[w];
        while (x) {
            unsigned b = (unsigned)__builtin_ctzll(x);
            x &= x - 1;
            size_t i = w * 64 + b;
            if (i >= from && !cs_bits_set(dst, offset + (i - from))) {
                return false;
            }
        }
    }
    return true;
}

bool cs_bits_or_at(cs_bits *dst, size_t offset, const cs_bits *src, size_t len)
{
    size_t sw = (len + 63) / 64, base = offset / 64;
    unsigned shift = (unsigned)(offset % 64);

    if (sw > src->cap) {
        sw = src->cap; /* the bits beyond src's storage are all clear */
    }
    while (sw > 0 && src->words[sw - 1] == 0) {
        sw--;
    }
    if (sw == 0) {
        return true;
    }
    if (!cs_vec_reserve((void **)&dst->words, &dst->cap, base + sw + 1, sizeof(uint64_t), true)) {
        return false;
    }
    for (size_t w = 0; w < sw; w++) {
        uint64_t x = src->words[w];
        if (w == (len - 1) / 64 && len % 64) {
            x &= (UINT64_C(1) << (len % 64)) - 1;
        }
        if (!x) {
            continue;
        }
        uint64_t *d = &dst->words[base + w];
        uint64_t lo = x << shift, old = d[0];
        d[0] = old | lo;
        dst->popcount += (size_t)__builtin_popcountll(d[0] ^ old);
        if (shift) {
            uint64_t hi = x >> (64 - shift);
            old = d[1];
            d[1] = old | hi;
            dst->popcount += (size_t)__builtin_popcountll(d[1] ^ old);
        }
    }
    return true;
}

void cs_assignment_clear(cs_assignment_t *asg)
{
    cz_free(asg->a);
    cz_free(asg->b);
    cz_free(asg->c);
    cz_free(asg->inputs);
    cz_free(asg->aux);
    cs_bitvec_clear(&asg->a_aux_density);
    cs_bitvec_clear(&asg->b_input_density);
    cs_bitvec_clear(&asg->b_aux_density);
    memset(asg, 0, sizeof(*asg));
}

size_t cs_assignment_bytes(const cs_assignment_t *asg)
{
    const cs_bitvec_t *bits[3] = {&asg->a_aux_density, &asg->b_input_density, &asg->b_aux_density};
    const fr_t *abc[3] = {asg->a, asg->b, asg->c};
    size_t n = (asg->inputs ? asg->num_inputs : 0) + (asg->aux ? asg->num_aux : 0);

    for (int k = 0; k < 3; k++) {
        n += abc[k] ? asg->m : 0;
    }
    n *= sizeof(fr_t);
    for (int k = 0; k < 3; k++) {
        n += bits[k]->words ? (bits[k]->len + 63) / 64 * sizeof(uint64_t) : 0;
    }
    return n;
}

void cs_matrix_clear(cs_matrix_t *m)
{
    cz_free(m->row_ptr);
    cz_free(m->col);
    cz_free(m->val);
    memset(m, 0, sizeof(*m));
}

void cs_r1cs_clear(cs_r1cs_t *r)
{
    cs_matrix_clear(&r->A);
    cs_matrix_clear(&r->B);
    cs_matrix_clear(&r->C);
    memset(r, 0, sizeof(*r));
}

bool cs_digest_hex(const cs_t *cs, char out[65])
{
    uint8_t d[32];
    if (!cs_digest(cs, d)) {
        out[0] = '\0';
        return false;
    }
    cz_hex_encode(out, d, 32);
    return true;
}
