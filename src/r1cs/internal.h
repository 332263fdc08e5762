/* internal.h - what the r1cs backends share: the cs struct, the backend function table, the
 * term helpers (merge, canonical order, evaluation) and growable vectors. Not a public header.
 */
#ifndef CUZK_R1CS_INTERNAL_H
#define CUZK_R1CS_INTERNAL_H

#include "r1cs/r1cs.h"

#include <string.h>

#include "common/alloc.h"

/* A term's variable bits without the coefficient flags: inputs sort before aux, by index. */
#define CS_TERM_KEY_MASK (~(CS_TERM_ONE_BIT | CS_TERM_MONE_BIT))
#define CS_LC_MERGED     1u /* lc->flags: no variable repeats */

typedef enum {
    CS_KIND_PROVER,
    CS_KIND_WITNESS,
    CS_KIND_COUNTER,
    CS_KIND_DIGEST,
    CS_KIND_CHECKER,
    CS_KIND_RECORDER,
    CS_KIND_SHAPE,
} cs_kind;

/* The backend function table. The core (cs.c) keeps counts, values, the arena, namespaces and
 * the sticky error; a backend sees each constraint once and owns `cs->be`. */
typedef struct cs_ops {
    cs_kind kind;
    const char *name;
    bool needs_lcs, has_values, wants_labels, can_extend;
    /* Creates cs->be; `hint` may be NULL. `arg` is backend-specific (digest: expected counts). */
    cuzk_err (*init)(cs_t *cs, const cs_counts_t *hint, const void *arg);
    /* Sees constraint number cs->num_constraints (counted by the core afterwards). `fmt`/`ap`
     * are set for cs_enforcef (then label is NULL); `ap` may be consumed once. Failures go
     * through cs_set_err. NULL LC pointers mean empty. NULL for a backend that looks at no
     * constraint (the core only counts them). */
    void (*enforce)(cs_t *cs, cs_lc_t *a, cs_lc_t *b, cs_lc_t *c, const char *label,
                    const char *fmt, va_list *ap);
    cuzk_err (*finish)(cs_t *cs, cz_diag *dg);
    /* Called before the core appends the child's counts and values to the parent. */
    cuzk_err (*extend)(cs_t *parent, cs_t *child, cz_diag *dg);
    void (*destroy)(cs_t *cs);
    /* cs_fork with sizes, once before the children exist: reserve room for `constraints` more
     * rows after the parent's (children write into it). May be NULL. */
    cuzk_err (*fork_reserve)(cs_t *parent, size_t constraints);
    /* After init of a fork child whose bases and sizes the core has set. May be NULL. */
    cuzk_err (*fork)(cs_t *parent, cs_t *child);
    /* cs_join: called before the core appends the child's counts (and, when the child was not
     * placed, its values). parent->num_* are still the counts before the child. May be NULL. */
    cuzk_err (*join)(cs_t *parent, cs_t *child, cz_diag *dg);
} cs_ops;

/* A block of the term arena. */
typedef struct cs_arena_block {
    struct cs_arena_block *next;
    size_t cap, used;
    cs_term_t *terms;
} cs_arena_block;

/* One slot of the merge hash table (open addressing, stamped so it never needs clearing). */
typedef struct cs_merge_slot {
    uint64_t key;
    uint32_t stamp;
    uint32_t pos;
} cs_merge_slot;

struct cs {
    const cs_ops *ops;
    cuzk_err err;              /* sticky */
    cz_diag diag;              /* its detail */
    bool finished;             /* cs_finish called */
    bool consumed;             /* emptied by cs_extend into a parent */
    const atomic_bool *cancel; /* cs_set_cancel; NULL = never */
    size_t num_inputs, num_aux, num_constraints;

    /* Values (ops->has_values). */
    fr_t *in_vals, *aux_vals;
    size_t in_cap, aux_cap;

    /* Term arena for cs_lc(): reset by every enforce, generation-stamped. */
    cs_arena_block *blk_first, *blk_cur;
    uint32_t gen;

    /* Merge scratch (hash table for long LCs) and canonical-order scratch. */
    cs_merge_slot *mtab;
    size_t mtab_cap;
    uint32_t mstamp;
    cs_term_t *canon;
    size_t canon_cap;

    fr_t minus_one;

    /* Fork children (cs_fork). A child's own inputs, aux and constraints are numbered from
     * in_base, aux_base, c_base in the parent's numbering (in_vals / aux_vals hold only its own
     * values, without ONE); it reads the parent's variables Input(i < par_in) and
     * Aux(j < par_aux) from par_in_vals / par_aux_vals. Everything zero / NULL in a root cs, so
     * that the lookups below reduce to the plain ones. */
    cs_t *fork_parent;
    size_t fork_seq; /* position among the parent's forks */
    size_t in_base, aux_base, c_base;
    size_t par_in, par_aux;
    const fr_t *par_in_vals, *par_aux_vals;
    bool fork_sized;       /* fork_size is exact (checked at join) */
    bool vals_borrowed;    /* in_vals / aux_vals point into the parent's */
    cs_counts_t fork_size; /* own counts declared at fork (inputs without ONE) */

    /* A parent with children forked and not yet joined or freed. */
    size_t forks_open, fork_issued, fork_next;
    fr_t *fork_snap; /* the parent's values as the children of an unsized fork read them */

    /* Namespaces: depth always; the joined path only when ops->wants_labels. */
    size_t ns_depth;
    char *path;
    size_t path_len, path_cap;
    size_t *ns_marks;
    size_t ns_marks_cap;

    void *be; /* backend state */
};

/* Records the first error (later ones are ignored) with a formatted message. */
void cs_set_err(cs_t *cs, cuzk_err code, const char *fmt, ...) CZ_PRINTF(3, 4);

/* Grows *p (elements of `elem` bytes, capacity *cap) to hold at least `need`; geometric.
 * New space is zeroed when `zero`. False on overflow or out of memory (*p untouched). */
bool cs_vec_reserve(void **p, size_t *cap, size_t need, size_t elem, bool zero);

/* Advises transparent huge pages for the 2 MiB-aligned interior of a buffer of 4 MiB or more
 * (a, b, c and the value vectors of a 130M-constraint circuit are gigabytes: 4 KiB page faults
 * would otherwise cost as much as the evaluation). */
void cs_advise_huge(void *p, size_t bytes);

static inline uint64_t cs_term_key(const cs_term_t *t)
{
    return t->var & CS_TERM_KEY_MASK;
}

static inline bool cs_fr_is_zero(const fr_t *a)
{
    return (a->l[0] | a->l[1] | a->l[2] | a->l[3]) == 0;
}

/* The fast-path flag of a coefficient: CS_TERM_ONE_BIT, CS_TERM_MONE_BIT or 0. */
static inline uint64_t cs_coeff_flags(const cs_t *cs, const fr_t *c)
{
    if (memcmp(c, &FR_ONE, sizeof(*c)) == 0) {
        return CS_TERM_ONE_BIT;
    }
    if (memcmp(c, &cs->minus_one, sizeof(*c)) == 0) {
        return CS_TERM_MONE_BIT;
    }
    return 0;
}

/* True when `key` (flags stripped) names a variable this cs may use: one of its own or, in a
 * fork child, one the parent had at the fork. */
static inline bool cs_key_allocated(const cs_t *cs, uint64_t key)
{
    uint64_t idx = key & CS_VAR_INDEX_MAX;
    if (key & CS_VAR_AUX_BIT) {
        return idx - (uint64_t)cs->aux_base < (uint64_t)cs->num_aux || idx < (uint64_t)cs->par_aux;
    }
    return idx - (uint64_t)cs->in_base < (uint64_t)cs->num_inputs || idx < (uint64_t)cs->par_in;
}

/* The value of the variable `key` (flags stripped), or NULL (and a sticky error naming
 * constraint `what`) when it was never allocated. Needs ops->has_values. Own variables come
 * first (idx - base wraps around for a parent's variable, which is below the base). */
static inline const fr_t *cs_key_value(cs_t *cs, uint64_t key)
{
    uint64_t idx = key & CS_VAR_INDEX_MAX;
    if (key & CS_VAR_AUX_BIT) {
        uint64_t rel = idx - (uint64_t)cs->aux_base;
        if (CZ_LIKELY(rel < (uint64_t)cs->num_aux)) {
            return &cs->aux_vals[rel];
        }
        if (idx < (uint64_t)cs->par_aux) {
            return &cs->par_aux_vals[idx];
        }
    } else {
        uint64_t rel = idx - (uint64_t)cs->in_base;
        if (CZ_LIKELY(rel < (uint64_t)cs->num_inputs)) {
            return &cs->in_vals[rel];
        }
        if (idx < (uint64_t)cs->par_in) {
            return &cs->par_in_vals[idx];
        }
    }
    cs_set_err(cs, CUZK_E_INVAL, "constraint %zu uses unallocated variable %s(%llu)",
               cs->num_constraints, (key & CS_VAR_AUX_BIT) ? "Aux" : "Input",
               (unsigned long long)idx);
    return NULL;
}

/* acc += coefficient * value of one term (flags select the fast paths). */
static inline void cs_term_accumulate(fr_t *acc, const cs_term_t *t, const fr_t *val)
{
    if (t->var & CS_TERM_ONE_BIT) {
        fr_add(acc, acc, val);
    } else if (t->var & CS_TERM_MONE_BIT) {
        fr_sub(acc, acc, val);
    } else if (cs_fr_is_zero(val)) {
        /* Boolean-heavy circuits: most values are 0 or 1, skip the multiplication. */
    } else if (memcmp(val, &FR_ONE, sizeof(*val)) == 0) {
        fr_add(acc, acc, &t->coeff);
    } else {
        fr_t tmp;
        fr_mul(&tmp, &t->coeff, val);
        fr_add(acc, acc, &tmp);
    }
}

/* *out = <lc, values>, duplicates and zero terms included (evaluation is linear). False after
 * recording a sticky error for an unallocated variable. lc may be NULL (empty). */
bool cs_lc_eval_values(cs_t *cs, fr_t *out, const cs_lc_t *lc);

/* Merged, zero-free terms of `lc` sorted inputs first then aux, by index, in cs->canon (valid
 * until the next call). Returns the count; SIZE_MAX after a sticky out-of-memory error. */
size_t cs_lc_canonical(cs_t *cs, cs_lc_t *lc, const cs_term_t **terms);

/* Checks that an arena LC belongs to the current generation (aborts otherwise). */
static inline void cs_lc_check_live(const cs_t *cs, const cs_lc_t *lc)
{
    CZ_CHECK(lc->gen == 0 || lc->gen == cs->gen);
}

/* Backend tables. */
extern const cs_ops cs_ops_prover;
extern const cs_ops cs_ops_witness;
extern const cs_ops cs_ops_counter;
extern const cs_ops cs_ops_digest;
extern const cs_ops cs_ops_checker;
extern const cs_ops cs_ops_recorder;
extern const cs_ops cs_ops_shape;

/* Creates a cs of `ops` (the core constructor behind cs_new_*). */
cuzk_err cs_new_with(cs_t **out, const cs_ops *ops, const cs_counts_t *hint, const void *arg,
                     cz_diag *dg);
/* The same, the value-keeping backends taking spare's inputs and aux vectors (see
 * cs_new_witness_reuse); spare may be NULL. */
cuzk_err cs_new_with_values(cs_t **out, const cs_ops *ops, const cs_counts_t *hint, const void *arg,
                            cs_assignment_t *spare, cz_diag *dg);

/* Bit vectors under construction: `cap` words allocated (zeroed), length implied by the owner.
 * Setting a bit beyond cap grows the vector. */
typedef struct cs_bits {
    uint64_t *words;
    size_t cap;
    size_t popcount;
} cs_bits;

static inline bool cs_bits_set(cs_bits *bv, uint64_t i)
{
    size_t w = (size_t)(i / 64);
    if (CZ_UNLIKELY(w >= bv->cap)) {
        if (!cs_vec_reserve((void **)&bv->words, &bv->cap, w + 1, sizeof(uint64_t), true)) {
            return false;
        }
    }
    uint64_t bit = UINT64_C(1) << (i % 64);
    if (!(bv->words[w] & bit)) {
        bv->words[w] |= bit;
        bv->popcount++;
    }
    return true;
}

/* Moves `bits` into a cs_bitvec_t of exactly `len` bits (at least one word allocated). */
bool cs_bits_finish(cs_bits *bits, cs_bitvec_t *out, size_t len);
/* Sets in dst bit (offset + i - from) for every set bit i >= from of src. */
bool cs_bits_append(cs_bits *dst, size_t offset, const cs_bits *src, size_t from);
/* dst |= src << offset for the bits i < len of src, a word at a time (popcount kept). */
bool cs_bits_or_at(cs_bits *dst, size_t offset, const cs_bits *src, size_t len);

/* The three densities of a shape from its A and B columns (r1cs.h cs_shape_t), replacing any it
 * had; false without memory (the shape's densities are then empty). */
bool cs_shape_densities(cs_shape_t *s);

/* XXH64 of `len` bytes (xxhash.h 0.8's algorithm; shape file checksums). */
uint64_t cs_xxh64(const void *data, size_t len, uint64_t seed);

/* Value kinds for the products (shape_eval.c): kinds[i] for i < ni + na, w = inputs || aux, is
 * CS_VK_ZERO, CS_VK_ONE or CS_VK_OTHER. `portable` takes the limb loop even where the SSE2 one
 * exists (tests compare the two). Over `pool` when non-NULL. */
enum { CS_VK_ZERO, CS_VK_ONE, CS_VK_OTHER };
void cs_value_kinds(uint8_t *kinds, const fr_t *inputs, size_t ni, const fr_t *aux, size_t na,
                    bool portable, cz_pool *pool);

#endif /* CUZK_R1CS_INTERNAL_H */
