/* r1cs.h - the rank-1 constraint system every circuit is written against, and its backends.
 *
 * Model (spec circuits.md 1, groth16.md 4.1-4.3): variables are Input(i) (public; Input(0) is
 * the constant ONE, allocated by the constructor before any circuit code runs) and Aux(j)
 * (private), each numbered from 0 in allocation order. cs_enforce(A, B, C) appends constraint
 * number j meaning <A,z> * <B,z> = <C,z>. A linear combination (LC) is a map variable ->
 * coefficient: adding a term for a variable already present ADDS the coefficients (a merged
 * coefficient of 0 keeps the term, which the prover ignores for density).
 *
 * Backends (one constructor each; the circuit code is the same for all):
 *   prover    evaluates a, b, c and the density bits at enforce time (groth16.md 4.2), appends
 *             the input constraints at cs_finish (4.3), hands out a cs_assignment_t.
 *   witness   records input and aux values only; LCs are not needed (cs_needs_lcs() is false)
 *             and a, b, c come later from recorded matrices (cs_r1cs_eval).
 *   counter   counts inputs (incl. ONE), aux and constraints in O(1) memory.
 *   digest    counter + bellpepper-core TestConstraintSystem::hash() shape digest.
 *   checker   evaluates every constraint; cs_finish returns CUZK_E_UNSAT naming the first
 *             unsatisfied constraint by its namespace path "ns1/ns2/label".
 *   recorder  builds A, B, C as CSR matrices (cs_r1cs_t) including the input-constraint rows.
 *   shape     the recorder's matrices in compact form (cs_shape_t, see "Compact shape").
 *
 * Errors are sticky: the first failure (out of memory, a missing value, a gadget's cs_fail)
 * is remembered, every later call does nothing and returns it, and cs_finish reports it. Gadget
 * code may therefore ignore the cuzk_err of cs_alloc / cs_enforce and check only at the end.
 *
 * Memory: LCs made by cs_lc() live in an arena owned by the cs; EVERY cs_enforce on that cs
 * resets the arena, after which such LCs are dead (using one aborts through CZ_CHECK). An LC
 * that must outlive a constraint (an accumulator such as MultiEq's, a Num carried across
 * rounds) is a heap LC: cs_lc_init() / cs_lc_clear(), reusable with cs_lc_reset(); it grows
 * geometrically and never shrinks, so reusing it costs no allocation.
 * Threads: one cs is used by one thread at a time. Parallel synthesis builds children on other
 * threads and concatenates them in order: cs_extend() for independent sub-circuits (they see
 * only ONE), cs_fork() / cs_join() for sub-circuits that use the parent's variables.
 * Values are Montgomery fr_t.
 *
 * Example: a bit b with b * (1 - b) = 0, skipping the work a backend ignores:
 *     cs_var_t b;
 *     cs_alloc(cs, &b, cs_has_values(cs) ? &value : NULL);
 *     if (cs_needs_lcs(cs)) {
 *         cs_lc_t A = cs_lc_of(cs, b), B = cs_lc_of(cs, CS_ONE);
 *         cs_lc_sub_var(cs, &B, b);
 *         cs_enforce(cs, &A, &B, NULL, "boolean");        // NULL: the empty LC
 *     } else {
 *         cs_enforce(cs, NULL, NULL, NULL, "boolean");
 *     }
 * Performance: give the prover a size hint (cs_counts_t from a counter run or pinned numbers):
 * without it a, b, c grow by doubling, which costs ~1.6x the time on large circuits.
 */
#ifndef CUZK_R1CS_R1CS_H
#define CUZK_R1CS_R1CS_H

#include <stdarg.h>
#include <stdatomic.h>

#include "common/common.h"
#include "common/pool.h"
#include "field/fr.h"

/** Opaque constraint system (one backend). */
typedef struct cs cs_t;

/* ---------------------------------------------------------------------------------------------
 * Variables
 * ------------------------------------------------------------------------------------------- */

/** A variable: bit 63 set for Aux, clear for Input; bits 0..60 the index. Compare with
 *  cs_var_eq; zero-initialised it is ONE. */
typedef struct cs_var {
    uint64_t bits;
} cs_var_t;

#define CS_VAR_AUX_BIT   (UINT64_C(1) << 63)
#define CS_VAR_INDEX_MAX ((UINT64_C(1) << 61) - 1)
/** Input(0), the constant one (a static initialiser can write {0}). */
#define CS_ONE           ((cs_var_t){0})

static inline cs_var_t cs_var_input(uint64_t index)
{
    cs_var_t v = {index};
    return v;
}

static inline cs_var_t cs_var_aux(uint64_t index)
{
    cs_var_t v = {index | CS_VAR_AUX_BIT};
    return v;
}

static inline bool cs_var_is_aux(cs_var_t v)
{
    return (v.bits & CS_VAR_AUX_BIT) != 0;
}

static inline uint64_t cs_var_index(cs_var_t v)
{
    return v.bits & CS_VAR_INDEX_MAX;
}

static inline bool cs_var_eq(cs_var_t a, cs_var_t b)
{
    return a.bits == b.bits;
}

/* ---------------------------------------------------------------------------------------------
 * Linear combinations
 * ------------------------------------------------------------------------------------------- */

/** One term. `var` holds the cs_var_t bits plus two private flag bits (61: coeff is 1, 62:
 *  coeff is -1) used for fast evaluation; read the variable with cs_term_var(). `coeff` is
 *  always the full coefficient. Terms are unordered and may repeat a variable until merged. */
typedef struct cs_term {
    uint64_t var;
    fr_t coeff;
} cs_term_t;

#define CS_TERM_ONE_BIT  (UINT64_C(1) << 61)
#define CS_TERM_MONE_BIT (UINT64_C(1) << 62)

static inline cs_var_t cs_term_var(const cs_term_t *t)
{
    cs_var_t v = {t->var & ~(CS_TERM_ONE_BIT | CS_TERM_MONE_BIT)};
    return v;
}

/** A linear combination handle (a small value; copying it aliases the same terms). Build with
 *  cs_lc() (arena, dies at the next cs_enforce) or cs_lc_init() (heap, caller-owned). */
typedef struct cs_lc {
    cs_term_t *terms;
    size_t len;
    size_t cap;
    uint32_t gen;   /* arena generation it was made in; 0 for a heap LC */
    uint32_t flags; /* private */
} cs_lc_t;

/** An empty arena LC of `cs`: no allocation until the first term. Valid until the next
 *  cs_enforce on `cs`. */
cs_lc_t cs_lc(cs_t *cs);
/** Arena LC {v: 1}. */
cs_lc_t cs_lc_of(cs_t *cs, cs_var_t v);
/** An empty heap LC (caller-owned; release with cs_lc_clear). */
void cs_lc_init(cs_lc_t *lc);
/** Frees a heap LC's storage and leaves it empty; on an arena LC it just empties the handle. */
void cs_lc_clear(cs_lc_t *lc);
/** Empties `lc` keeping its storage (heap) or making it a fresh arena LC of `cs` (arena). */
void cs_lc_reset(cs_t *cs, cs_lc_t *lc);

/** lc += v */
void cs_lc_add_var(cs_t *cs, cs_lc_t *lc, cs_var_t v);
/** lc -= v */
void cs_lc_sub_var(cs_t *cs, cs_lc_t *lc, cs_var_t v);
/** lc += coeff * v (coeff borrowed) */
void cs_lc_add(cs_t *cs, cs_lc_t *lc, const fr_t *coeff, cs_var_t v);
/** lc -= coeff * v */
void cs_lc_sub(cs_t *cs, cs_lc_t *lc, const fr_t *coeff, cs_var_t v);
/** lc += coeff * other; coeff NULL means 1. `other` is unchanged and may be any LC. */
void cs_lc_add_lc(cs_t *cs, cs_lc_t *lc, const fr_t *coeff, const cs_lc_t *other);
/** lc -= other */
void cs_lc_sub_lc(cs_t *cs, cs_lc_t *lc, const cs_lc_t *other);

/** Merges repeated variables in place (same map, fewer terms); returns the number of distinct
 *  variables, zero-coefficient ones included. Enforce does this itself where it matters. */
size_t cs_lc_merge(cs_t *cs, cs_lc_t *lc);
/** The merged coefficient of `v` in `lc` into *out (0 when absent); true when `v` occurs. */
bool cs_lc_coeff(cs_t *cs, fr_t *out, const cs_lc_t *lc, cs_var_t v);
/** *out = <lc, z> with the values allocated so far; false (and *out = 0) when the backend
 *  keeps no values (cs_has_values() false). */
bool cs_lc_eval(cs_t *cs, fr_t *out, const cs_lc_t *lc);

/* ---------------------------------------------------------------------------------------------
 * The constraint system
 * ------------------------------------------------------------------------------------------- */

/** Counts as bellpepper's test constraint systems report them: inputs INCLUDING ONE, aux,
 *  and the circuit's own constraints WITHOUT the appended input constraints. Also used as a
 *  capacity hint. */
typedef struct cs_counts {
    size_t num_inputs;
    size_t num_aux;
    size_t num_constraints;
} cs_counts_t;

/** Constructors. Each allocates ONE = Input(0) with value 1 and returns an owned cs (free with
 *  cs_free). `hint` (borrowed, may be NULL) pre-sizes the value and a/b/c vectors so that a
 *  circuit of known shape synthesizes without reallocation. Errors: CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err cs_new_prover(cs_t **out, const cs_counts_t *hint, cz_diag *dg);
CZ_MUST_USE cuzk_err cs_new_witness(cs_t **out, const cs_counts_t *hint, cz_diag *dg);
struct cs_assignment; /* below */
/** A witness cs that writes its values into memory a previous proof used: it takes spare's
 *  inputs and aux vectors (spare->inputs / spare->aux, their capacity spare->num_inputs /
 *  spare->num_aux values; both set NULL and 0), growing them when the hint or the circuit needs
 *  more; spare's other buffers stay with it. Recycling an assignment of the same shape spares
 *  the page faults (and the kernel's clearing) of fresh value memory: a quarter of the witness
 *  and products' CPU time at 512 MiB in a profile. The spare's memory is owned by the cs (free
 *  with cs_free), then by the assignment cs_take_assignment makes. */
CZ_MUST_USE cuzk_err cs_new_witness_reuse(cs_t **out, const cs_counts_t *hint,
                                          struct cs_assignment *spare, cz_diag *dg);
CZ_MUST_USE cuzk_err cs_new_counter(cs_t **out, cz_diag *dg);
/** Shape digest. bellpepper hashes the three counts BEFORE the constraints, so either pass the
 *  expected counts (`expect`, from a counter run or the circuit's pinned numbers: the digest
 *  then streams in O(1) memory and cs_finish fails with CUZK_E_INVAL if the synthesized counts
 *  differ) or pass NULL (the byte stream is buffered in memory: small circuits only). */
CZ_MUST_USE cuzk_err cs_new_digest(cs_t **out, const cs_counts_t *expect, cz_diag *dg);
CZ_MUST_USE cuzk_err cs_new_checker(cs_t **out, cz_diag *dg);
CZ_MUST_USE cuzk_err cs_new_recorder(cs_t **out, cz_diag *dg);
/** A new empty cs of the same backend kind as `proto` (for parallel synthesis children).
 *  CUZK_E_INVAL when proto's kind cannot be extended (see cs_extend). */
CZ_MUST_USE cuzk_err cs_new_like(cs_t **out, const cs_t *proto, const cs_counts_t *hint,
                                 cz_diag *dg);
/** Frees the cs and everything it still owns; NULL does nothing. Heap LCs are not touched. */
void cs_free(cs_t *cs);

/** Backend name ("prover", "witness", "counter", "digest", "checker", "recorder", "shape"). */
const char *cs_kind_name(const cs_t *cs);
/** True when enforce looks at LCs (prover, digest, checker, recorders). When false, gadgets may
 *  skip building LCs and pass NULL to cs_enforce. */
bool cs_needs_lcs(const cs_t *cs);
/** True when the backend keeps values (prover, witness, checker): cs_alloc needs a value. */
bool cs_has_values(const cs_t *cs);
/** True when labels and namespace names are used (checker only). Build costly labels only
 *  when this is true, or use cs_enforcef / cs_push_nsf which format only when needed. */
bool cs_wants_labels(const cs_t *cs);
/** True when cs_extend and cs_fork accept this kind (all but digest). */
bool cs_can_extend(const cs_t *cs);
/** True when the backend looks at no constraint, labels included: it keeps counts (counter)
 *  and values (witness) only. A gadget may then allocate a run of bits with cs_alloc_bits and
 *  count their constraints with cs_enforce_blind, instead of n interleaved cs_alloc and
 *  cs_enforce(cs, NULL, NULL, NULL, ...) calls: the variables, values and counts are the
 *  same. */
bool cs_blind(const cs_t *cs);

/** Allocates the next Aux variable. `value` (borrowed) is required when cs_has_values(),
 *  ignored (may be NULL) otherwise; a missing value is a sticky CUZK_E_INVAL. */
cuzk_err cs_alloc(cs_t *cs, cs_var_t *out, const fr_t *value);
/** Allocates n Aux variables, out[i] with the value bits[i] (0 or 1), as n calls of cs_alloc
 *  (consecutive indices). A placed fork child without room for all n takes none (sticky
 *  CUZK_E_INVAL). */
cuzk_err cs_alloc_bits(cs_t *cs, cs_var_t *out, const bool *bits, size_t n);
/** Counts n constraints with empty LCs, as n calls of cs_enforce(cs, NULL, NULL, NULL, ...);
 *  for a blind backend only (cs_blind, checked). */
cuzk_err cs_enforce_blind(cs_t *cs, size_t n);
/** Allocates the next Input variable (public input), same rules. */
cuzk_err cs_alloc_input(cs_t *cs, cs_var_t *out, const fr_t *value);
/** The value of an allocated variable; false when the backend keeps none. */
bool cs_value(const cs_t *cs, fr_t *out, cs_var_t v);

/** Appends constraint <a,z> * <b,z> = <c,z>. NULL means the empty LC. The LCs may be merged in
 *  place (same map); arena LCs of `cs` are dead afterwards, heap LCs stay valid. `label`
 *  (borrowed, may be NULL) is the constraint's name inside the current namespace. */
cuzk_err cs_enforce(cs_t *cs, cs_lc_t *a, cs_lc_t *b, cs_lc_t *c, const char *label);
/** Same with a printf-style label, formatted only if the checker needs it. */
cuzk_err cs_enforcef(cs_t *cs, cs_lc_t *a, cs_lc_t *b, cs_lc_t *c, const char *fmt, ...)
    CZ_PRINTF(5, 6);

/** Namespaces (checker names only; elsewhere a depth counter). Names must not contain '/'. */
void cs_push_ns(cs_t *cs, const char *name);
void cs_push_nsf(cs_t *cs, const char *fmt, ...) CZ_PRINTF(2, 3);
void cs_pop_ns(cs_t *cs);

/** Makes synthesis stoppable: `flag` (retained; NULL = never) is looked at every 4096
 *  constraints, and once it is true the cs fails with a sticky CUZK_E_CANCELLED, so a long
 *  synthesis ends within a few thousand constraints of a cancel. Children made by cs_fork and
 *  cs_new_like afterwards inherit it. */
void cs_set_cancel(cs_t *cs, const atomic_bool *flag);

/** Records a gadget's failure (sticky) and returns `code`; the message reaches cs_finish's dg. */
cuzk_err cs_fail(cs_t *cs, cuzk_err code, const char *fmt, ...) CZ_PRINTF(3, 4);
/** The sticky error (CUZK_OK while none). */
cuzk_err cs_status(const cs_t *cs);

/** Counts so far (see cs_counts_t; never includes the input constraints). */
void cs_get_counts(const cs_t *cs, cs_counts_t *out);

/** Ends synthesis: prover/recorder append the input constraints (groth16.md 4.3), digest
 *  finalizes, checker reports. Returns the sticky error if any, CUZK_E_UNSAT from the checker
 *  (dg names the constraint), CUZK_E_INVAL from a digest whose declared counts differ. After
 *  cs_finish only the result accessors and cs_free may be called. */
CZ_MUST_USE cuzk_err cs_finish(cs_t *cs, cz_diag *dg);

/** Parallel synthesis (groth16.md 4.2 `extend`): appends everything `child` synthesized to
 *  `parent` as if it had been synthesized sequentially at this point. `child` is a separate cs
 *  of the same kind (cs_new_like), not finished, whose ONE is dropped; its other inputs, its
 *  aux and its constraints follow the parent's. Variables the child handed out keep child
 *  indices: rebase them yourself (aux j -> parent num_aux before the call + j; input i >= 1 ->
 *  parent num_inputs before the call + i - 1) if the parent uses them later.
 *  Supported: prover, witness, counter, checker (first failure kept in order, its path
 *  prefixed with the parent's namespace), recorder, shape. Not supported: digest
 *  (CUZK_E_INVAL; the digest streams over absolute indices, synthesize sequentially instead).
 *  The child is emptied and must then only be freed. A child's sticky error becomes the
 *  parent's. */
CZ_MUST_USE cuzk_err cs_extend(cs_t *parent, cs_t *child, cz_diag *dg);

/** Parallel synthesis of sub-circuits that use the parent's variables (a PoRep partition's
 *  challenges share comm_d, comm_c, comm_r_last and the replica_id bits). Makes n children of
 *  `parent`'s kind; child k may read and use every variable the parent had at this call (by
 *  the parent's cs_var_t, values included) and allocates its own inputs and aux, numbered where
 *  they land in the parent when child k is synthesized in order after children 0..k-1. Each
 *  child goes to one thread; cs_join(parent, child) then appends children 0, 1, ... in fork
 *  order, giving exactly the sequential result (same constraints, variables, values, a, b, c
 *  and densities). A child gets no ONE of its own (ONE is the parent's Input(0)), and
 *  cs_get_counts on a child reports only what it added.
 *  sizes: NULL, or n exact counts, sizes[k] = what child k will add (inputs without ONE). With
 *  sizes, child k's variables carry their final parent numbers (no rebasing, ever), and the
 *  value-keeping backends (prover, witness, checker) write child k's values, and the prover its
 *  a, b, c, straight into room the fork reserves in the parent: cs_join copies nothing. A child
 *  that outgrows its size fails (sticky CUZK_E_INVAL), one that stays below fails at cs_join.
 *  Without sizes, children keep their own vectors (copied at cs_join), read the parent's values
 *  from a snapshot taken here, and number their variables from the parent's counts at the
 *  fork: rebase what they hand back (aux j -> j + parent num_aux at the join - num_aux at the
 *  fork; inputs alike). Kinds: as cs_extend (digest: CUZK_E_INVAL).
 *  Contract (CZ_CHECK): from cs_fork until every child is joined or freed, the parent may only
 *  be read or used for cs_join (no alloc, enforce, namespace, fork, extend, finish or free);
 *  children are joined in fork order, joined or freed on the parent's thread, and never
 *  finished, forked or extended. A child freed without cs_join voids the parent (sticky
 *  CUZK_E_INVAL). On failure no child exists (children[] all NULL). Errors: CUZK_E_INVAL (kind,
 *  sizes overflow), CUZK_E_NOMEM, the parent's sticky error. */
CZ_MUST_USE cuzk_err cs_fork(cs_t *parent, cs_t **children, size_t n, const cs_counts_t *sizes,
                             cz_diag *dg);
/** Appends fork child `child` to `parent` (see cs_fork) and consumes it (then only cs_free it).
 *  Its sticky error, a size that differs from the declared one, or a sibling left out before it
 *  (with sizes) becomes the parent's sticky error and is returned; so is an earlier error of the
 *  parent. The checker keeps the first failure in order, its path prefixed with the parent's
 *  current namespace. */
CZ_MUST_USE cuzk_err cs_join(cs_t *parent, cs_t *child, cz_diag *dg);

/* ---------------------------------------------------------------------------------------------
 * Results (plain data)
 * ------------------------------------------------------------------------------------------- */

/** Bit i = bit (i % 64) of words[i / 64], LSB first; ceil(len / 64) words; unused high bits 0.
 *  popcount = number of set bits. Layout of bitvec::BitVec<usize, Lsb0> on 64-bit hosts. */
typedef struct cs_bitvec {
    uint64_t *words;
    size_t len;
    size_t popcount;
} cs_bitvec_t;

static inline bool cs_bitvec_get(const cs_bitvec_t *bv, size_t i)
{
    return (bv->words[i / 64] >> (i % 64)) & 1;
}
/** Frees words (cz_free) and zeroes the struct. */
void cs_bitvec_clear(cs_bitvec_t *bv);

/** The prover's output (bellperson ProvingAssignment). Owned buffers from cz_malloc. */
typedef struct cs_assignment {
    fr_t *a, *b, *c; /* one value per constraint, INCLUDING the appended input constraints */
    size_t m;        /* = num_constraints + num_inputs (0 from the witness backend) */
    fr_t *inputs;    /* ONE included, Montgomery */
    size_t num_inputs;
    fr_t *aux;
    size_t num_aux;
    cs_bitvec_t a_aux_density, b_input_density, b_aux_density;
} cs_assignment_t;

/** Frees every buffer and zeroes the struct; a zeroed struct is accepted. */
void cs_assignment_clear(cs_assignment_t *asg);

/** Bytes of the vectors asg holds: a, b, c (m values each) when present, inputs, aux and the
 *  three densities' words. */
size_t cs_assignment_bytes(const cs_assignment_t *asg);

/** After cs_finish on a prover (everything) or witness (inputs and aux; a, b, c NULL, m 0 and
 *  empty densities) cs: moves the result into *out (ownership to the caller). CUZK_E_INVAL for
 *  another kind, before cs_finish, or when already taken. */
CZ_MUST_USE cuzk_err cs_take_assignment(cs_t *cs, cs_assignment_t *out, cz_diag *dg);

/** CSR matrix; rows = constraints including the input-constraint rows. */
typedef struct cs_matrix {
    size_t rows, nnz;
    size_t *row_ptr; /* rows + 1 entries */
    uint64_t *col;   /* unified column space: [0, num_inputs) inputs, then num_inputs + aux index;
                        each row sorted by column */
    fr_t *val;       /* merged coefficients, zero ones dropped (Montgomery) */
} cs_matrix_t;

typedef struct cs_r1cs {
    size_t num_inputs, num_aux, num_constraints; /* circuit's own (as cs_counts_t) */
    cs_matrix_t A, B, C;
} cs_r1cs_t;

void cs_matrix_clear(cs_matrix_t *m);
void cs_r1cs_clear(cs_r1cs_t *r);

/** After cs_finish on a recorder: moves the matrices into *out. Same errors as above. */
CZ_MUST_USE cuzk_err cs_take_r1cs(cs_t *cs, cs_r1cs_t *out, cz_diag *dg);

/** out[r] = sum over row r of val * w[col], w = (inputs || aux) (the caller provides
 *  m->rows outputs; borrowed inputs). Splits rows over `pool` when non-NULL. */
void cs_matrix_mul(const cs_matrix_t *m, fr_t *out, const fr_t *inputs, size_t num_inputs,
                   const fr_t *aux, cz_pool *pool);

/** Witness-only mode: from an assignment holding inputs and aux (the witness backend's)
 *  computes a = A w, b = B w, c = C w (allocated, m = rows) and the three densities from the
 *  matrices' column sets, giving exactly what the prover backend produces. CUZK_E_INVAL when
 *  the counts do not match `r1cs` or a, b, c are already present; CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err cs_r1cs_eval(const cs_r1cs_t *r1cs, cs_assignment_t *asg, cz_pool *pool,
                                  cz_diag *dg);

/* ---------------------------------------------------------------------------------------------
 * Compact shape: the pre-compiled constraint evaluator
 *
 * A circuit's shape (A, B, C and the densities) is the same for every proof of its kind and
 * size; only the witness changes. Recorded once in the compact form below (32-bit columns and
 * row pointers, 16-bit indices into a dictionary of distinct coefficients: 6 bytes per non-zero
 * plus 12 per row, against 40 and 8 for cs_matrix_t), it turns each proof's synthesis into the
 * witness backend plus three sparse products (cs_shape_eval). The arrays are plain data that a
 * GPU kernel may read as they are.
 * ------------------------------------------------------------------------------------------- */

/** Dictionary entries every shape holds at these indices, so that an evaluator adds or
 *  subtracts without multiplying. */
#define CS_SHAPE_COEF_ONE       0 /* dict[0] = 1 */
#define CS_SHAPE_COEF_MINUS_ONE 1 /* dict[1] = -1 */
/** Most dictionary entries a shape may hold (coef is 16 bits). */
#define CS_SHAPE_DICT_MAX       65536

/** One matrix of a shape, CSR: the rows, columns and order of the recorder's cs_matrix_t (rows
 *  = constraints INCLUDING the input-constraint rows; merged coefficients, zero ones dropped). */
typedef struct cs_shape_matrix {
    size_t rows, nnz;  /* nnz < 2^32 */
    uint32_t *row_ptr; /* rows + 1 entries: row_ptr[0] = 0, non-decreasing, row_ptr[rows] = nnz */
    uint32_t *col;     /* unified column space as cs_matrix_t: [0, num_inputs) inputs, then
                          num_inputs + aux index; strictly increasing within a row */
    uint16_t *coef;    /* index into the shape's dict (< dict_len) */
} cs_shape_matrix_t;

/** A compact shape. Fill it with cs_take_shape, cs_shape_from_r1cs or cs_shape_load; release it
 *  with cs_shape_clear. Readers treat every array as read-only. */
typedef struct cs_shape {
    size_t num_inputs, num_aux, num_constraints; /* circuit's own (as cs_counts_t) */
    cs_shape_matrix_t A, B, C;
    fr_t *dict;      /* distinct non-zero coefficients, Montgomery; dict[0] = 1, dict[1] = -1 */
    size_t dict_len; /* 2 .. CS_SHAPE_DICT_MAX */
    /* As the prover backend makes them: aux with a non-zero merged coefficient in some A row,
     * inputs and aux likewise in B (num_aux, num_inputs, num_aux bits). */
    cs_bitvec_t a_aux_density, b_input_density, b_aux_density;
    void *block;      /* private: the one buffer a loaded shape's arrays live in, else NULL */
    size_t block_len; /* private */
} cs_shape_t;

/** Frees everything the shape owns and zeroes it; a zeroed shape is accepted. */
void cs_shape_clear(cs_shape_t *s);
/** Bytes of memory the shape holds (matrices, dictionary, densities). */
size_t cs_shape_bytes(const cs_shape_t *s);
/** True when two shapes are the same (counts, matrices, dictionary in order, densities). */
bool cs_shape_eq(const cs_shape_t *x, const cs_shape_t *y);

/** A recorder (backend name "shape") that builds the compact shape directly, never the
 *  32-byte-value CSR: the same rows as cs_new_recorder's, each coefficient replaced by its index
 *  in a dictionary kept in order of first use (constraint by constraint, A then B then C, the
 *  input-constraint rows last). Extends and forks like the recorder, and parallel synthesis
 *  gives exactly the sequential shape (dictionary order included). `hint` (borrowed, may be
 *  NULL) pre-sizes the row pointers. Returns an owned cs (cs_free). Errors: CUZK_E_NOMEM.
 *  Sticky CUZK_E_INVAL (reported by cs_finish) when the dictionary would pass
 *  CS_SHAPE_DICT_MAX entries, a matrix 2^32 - 1 non-zeros, an index 2^31 - 1, or num_inputs +
 *  num_aux 2^32. */
CZ_MUST_USE cuzk_err cs_new_shape_recorder(cs_t **out, const cs_counts_t *hint, cz_diag *dg);
/** After cs_finish on a shape recorder: moves the shape into *out (returns owned: release with
 *  cs_shape_clear). CUZK_E_INVAL for another kind, before cs_finish, or when already taken. */
CZ_MUST_USE cuzk_err cs_take_shape(cs_t *cs, cs_shape_t *out, cz_diag *dg);
/** The compact form of a recorded R1CS (borrowed): exactly what the shape recorder gives for the
 *  same synthesis. *out returns owned. CUZK_E_INVAL over the limits above; CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err cs_shape_from_r1cs(cs_shape_t *out, const cs_r1cs_t *r1cs, cz_diag *dg);

/** out[r] = sum over row r of dict[coef] * w[col], w = (inputs || aux): coef index 0 adds,
 *  1 subtracts, others multiply (the caller provides m->rows outputs; everything borrowed).
 *  Splits rows over `pool` when non-NULL; allocates nothing. */
void cs_shape_matrix_mul(const cs_shape_matrix_t *m, const fr_t *dict, fr_t *out,
                         const fr_t *inputs, size_t num_inputs, const fr_t *aux, cz_pool *pool);
/** Bytes of the scratch cs_shape_mul takes: one per value of w and four per dictionary
 *  entry. */
size_t cs_shape_mul_scratch_bytes(const cs_shape_t *shape);
/** a = A w, b = B w, c = C w into caller buffers of shape->A.rows elements each (borrowed;
 *  an engine keeps them from one proof to the next, so that no page is faulted in per proof),
 *  w = (inputs || aux) with the shape's counts, in one pass over the rows split over `pool`.
 *  `scratch` (cs_shape_mul_scratch_bytes, borrowed, any alignment of malloc) lets rows of
 *  Boolean values be summed from a byte per value: first a pass over w marks each value 0, 1
 *  or other. NULL works without it, slower. Allocates nothing. The densities are the shape's
 *  own. */
void cs_shape_mul(const cs_shape_t *shape, fr_t *a, fr_t *b, fr_t *c, const fr_t *inputs,
                  const fr_t *aux, void *scratch, cz_pool *pool);
/** Witness-only mode with a compact shape, the contract of cs_r1cs_eval: from an assignment
 *  holding inputs and aux (the witness backend's) computes a, b, c (allocated, m = rows) in one
 *  pass over the rows split over `pool`, and copies the shape's densities: exactly the prover
 *  backend's assignment. CUZK_E_INVAL when the counts do not match or a, b, c are already
 *  present; CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err cs_shape_eval(const cs_shape_t *shape, cs_assignment_t *asg, cz_pool *pool,
                                   cz_diag *dg);
/** The same without the products: sets m and copies the shape's densities into an assignment
 *  holding inputs and aux only, leaving a, b, c NULL, for a prover that computes them itself
 *  from the shape (the GPU prover with g16_prove_opts_t.gpu_shape). Errors as cs_shape_eval. */
CZ_MUST_USE cuzk_err cs_shape_assign(const cs_shape_t *shape, cs_assignment_t *asg, cz_diag *dg);
/** The products alone, for an assignment cs_shape_assign prepared (m and densities set, a, b,
 *  c NULL): allocates a, b, c and computes them over `pool`. cs_shape_eval is cs_shape_assign
 *  followed by this. Errors: CUZK_E_INVAL (not such an assignment), CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err cs_shape_products(const cs_shape_t *shape, cs_assignment_t *asg, cz_pool *pool,
                                       cz_diag *dg);
/** cs_shape_eval and cs_shape_products writing a, b, c into a previous proof's vectors: those
 *  of `spare` (taken, set NULL; m set 0 once none is left) when spare->m equals the rows,
 *  fresh ones otherwise. spare may be NULL; its other buffers stay with it. With
 *  cs_new_witness_reuse, a proof of a shape already proved then allocates nothing large. */
CZ_MUST_USE cuzk_err cs_shape_eval_reuse(const cs_shape_t *shape, cs_assignment_t *asg,
                                         cs_assignment_t *spare, cz_pool *pool, cz_diag *dg);
CZ_MUST_USE cuzk_err cs_shape_products_reuse(const cs_shape_t *shape, cs_assignment_t *asg,
                                             cs_assignment_t *spare, cz_pool *pool, cz_diag *dg);

/** Shape files (docs/formats.md "Compact shape"): little-endian header with magic, version,
 *  counts, lengths, the caller's key (opaque bytes naming the circuit shape, e.g. kind, size and
 *  API version) and a header checksum, then the dictionary and arrays, then nothing; the payload
 *  is covered by a 64-bit checksum (XXH64 of 16 MiB blocks). Densities are not stored: load
 *  derives them from the columns. */
#define CS_SHAPE_FILE_VERSION 1
#define CS_SHAPE_KEY_MAX      4096

/** Writes `shape` (borrowed) to `path` under `key` (key_len bytes, 1 .. CS_SHAPE_KEY_MAX,
 *  borrowed) through a temporary file renamed into place, so a crash never leaves a partial
 *  file at `path`. Hashes over `pool` when non-NULL. Errors: CUZK_E_INVAL (key length),
 *  CUZK_E_IO. */
CZ_MUST_USE cuzk_err cs_shape_save(const cs_shape_t *shape, const char *path, const void *key,
                                   size_t key_len, cz_pool *pool, cz_diag *dg);
/** Reads a shape file written under `key` into *out (returns owned: cs_shape_clear), with one
 *  read into one buffer; checksums and validation (every row pointer, column and coefficient
 *  index, the dictionary) run over `pool` when non-NULL. A file that is truncated, has trailing
 *  bytes, fails a checksum, holds an index out of range, has another version or was written
 *  under another key is refused with CUZK_E_FORMAT and a message naming `path` and the fault;
 *  *out is then zeroed. Other errors: CUZK_E_IO (open, read), CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err cs_shape_load(cs_shape_t *out, const char *path, const void *key,
                                   size_t key_len, cz_pool *pool, cz_diag *dg);

/** A 64-bit fingerprint of the shape: XXH64 over its counts, seeded with the payload checksum
 *  of its file form (hashed over `pool` when non-NULL). Equal shapes (cs_shape_eq) have equal
 *  fingerprints; any change of a count, row, column, coefficient or dictionary entry changes
 *  it except with probability about 2^-64. It names a circuit structure for caches (e.g. a
 *  parameter stamp); it is no defence against someone who crafts a collision.
 *  Errors: CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err cs_shape_fingerprint(const cs_shape_t *s, uint64_t *out, cz_pool *pool,
                                          cz_diag *dg);

/** Checker after cs_finish: the first unsatisfied constraint's path and index; NULL when all
 *  are satisfied (or for another kind). The string lives until cs_free. */
const char *cs_unsat_path(const cs_t *cs, size_t *index);

/** Digest after a successful cs_finish: the 32-byte Blake2s-256 shape digest (false for
 *  another kind or before finish); cs_digest_hex writes bellpepper's lower-case hex string. */
bool cs_digest(const cs_t *cs, uint8_t out[32]);
bool cs_digest_hex(const cs_t *cs, char out[65]);

#endif /* CUZK_R1CS_R1CS_H */
