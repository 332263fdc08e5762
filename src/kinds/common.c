/* common.c - what the Filecoin handlers share: circuit ids, parameter file names, the
 * counts of each production circuit (remembered per process) and the memory estimate.
 *
 * DESIGN
 *  The counts memo is the only mutable state: a fixed table of (kind, size) -> counts, filled
 *  on first use by a counter-backend synthesis of the blank circuit (about 0.1 s for 2 KiB, 4 s
 *  for a 32 GiB PoRep partition) that runs WITHOUT the memo lock; two threads may count the
 *  same circuit once each, and the second insert is then a no-op. The lock is held only to look
 *  up and insert.
 */
#include "kinds/internal.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/groth16.h"

const char *eng_fil_prefix(circ_kind kind)
{
    switch (kind) {
    case CIRC_POREP:
        return "porep";
    case CIRC_WINNING_POST:
        return "winning";
    case CIRC_WINDOW_POST:
        return "wpost";
    case CIRC_UPDATE:
        return "snap";
    default:
        return NULL;
    }
}

const char *eng_fil_size_name(uint64_t sector_bytes)
{
    const circ_sector_t *s = circ_sector_lookup(sector_bytes);
    return s ? s->name : "an unsupported size";
}

/* "2k", "8m", "32g". */
static bool size_suffix(char *out, size_t cap, uint64_t bytes)
{
    int n;
    if (bytes >= GIB && bytes % GIB == 0) {
        n = snprintf(out, cap, "%" PRIu64 "g", bytes / GIB);
    } else if (bytes >= MIB && bytes % MIB == 0) {
        n = snprintf(out, cap, "%" PRIu64 "m", bytes / MIB);
    } else if (bytes >= KIB && bytes % KIB == 0) {
        n = snprintf(out, cap, "%" PRIu64 "k", bytes / KIB);
    } else {
        return false;
    }
    return n > 0 && (size_t)n < cap;
}

bool eng_fil_circuit_id(char out[ENG_CIRCUIT_ID_MAX], circ_kind kind, uint64_t sector_bytes)
{
    const char *prefix = eng_fil_prefix(kind);
    char sz[32];

    if (!prefix || !circ_sector_lookup(sector_bytes) ||
        !size_suffix(sz, sizeof(sz), sector_bytes)) {
        return false;
    }
    int n = snprintf(out, ENG_CIRCUIT_ID_MAX, "%s-%s", prefix, sz);
    return n > 0 && n < ENG_CIRCUIT_ID_MAX;
}

bool eng_fil_parse_circuit_id(const char *id, circ_kind kind, uint64_t *sector_bytes)
{
    const char *prefix = eng_fil_prefix(kind);
    size_t pl;
    char expect[ENG_CIRCUIT_ID_MAX];

    if (!prefix || !id) {
        return false;
    }
    pl = strlen(prefix);
    if (strncmp(id, prefix, pl) != 0 || id[pl] != '-') {
        return false;
    }
    size_t count = 0;
    const circ_sector_t *sectors = circ_sectors(&count);
    for (size_t i = 0; i < count; i++) {
        /* The id is canonical: it must be exactly what eng_fil_circuit_id writes. */
        if (eng_fil_circuit_id(expect, kind, sectors[i].bytes) && strcmp(expect, id) == 0) {
            char name[CIRC_PARAM_NAME_MAX];
            if (circ_param_file_name(name, sizeof(name), kind, sectors[i].bytes,
                                     CIRC_PARAM_PARAMS) != CUZK_OK) {
                return false;
            }
            *sector_bytes = sectors[i].bytes;
            return true;
        }
    }
    return false;
}

bool eng_fil_srs_file(circ_kind kind, const char *circuit_id, char *name, size_t cap)
{
    uint64_t bytes;

    if (!eng_fil_parse_circuit_id(circuit_id, kind, &bytes)) {
        return false;
    }
    return circ_param_file_name(name, cap, kind, bytes, CIRC_PARAM_PARAMS) == CUZK_OK;
}

void eng_fil_copy32(uint8_t out[32], const eng_bytes_t *b)
{
    if (b->len == 32) {
        memcpy(out, b->ptr, 32);
    } else {
        memset(out, 0, 32);
    }
}

/* ---- counts memo ------------------------------------------------------------------------- */

#define MEMO_CAP 64

typedef struct memo_entry {
    circ_kind kind;
    uint64_t bytes;
    cs_counts_t counts;
} memo_entry;

static pthread_mutex_t memo_mu = PTHREAD_MUTEX_INITIALIZER;
static memo_entry memo[MEMO_CAP];
static size_t memo_len;

static bool memo_find(circ_kind kind, uint64_t bytes, cs_counts_t *out)
{
    bool found = false;
    pthread_mutex_lock(&memo_mu);
    for (size_t i = 0; i < memo_len; i++) {
        if (memo[i].kind == kind && memo[i].bytes == bytes) {
            *out = memo[i].counts;
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&memo_mu);
    return found;
}

static void memo_insert(circ_kind kind, uint64_t bytes, const cs_counts_t *c)
{
    pthread_mutex_lock(&memo_mu);
    bool present = false;
    for (size_t i = 0; i < memo_len; i++) {
        present |= memo[i].kind == kind && memo[i].bytes == bytes;
    }
    if (!present && memo_len < MEMO_CAP) {
        memo[memo_len].kind = kind;
        memo[memo_len].bytes = bytes;
        memo[memo_len].counts = *c;
        memo_len++;
    }
    pthread_mutex_unlock(&memo_mu);
}

/* The counts of a circuit, counted once per process (on the pool: the 32 GiB WindowPoSt
 * circuit's 125M constraints take 12 s on one core). */
static cuzk_err circuit_counts(cs_counts_t *out, circ_kind kind, uint64_t bytes, cz_pool *pool,
                               cz_diag *dg)
{
    cs_t *cs = NULL;
    cuzk_err err;

    if (memo_find(kind, bytes, out)) {
        return CUZK_OK;
    }
    err = cs_new_counter(&cs, dg);
    if (err == CUZK_OK) {
        err = circ_synth_blank(cs, kind, bytes, 0, pool, dg);
    }
    if (err == CUZK_OK) {
        cs_get_counts(cs, out);
        err = cs_finish(cs, dg);
    }
    cs_free(cs);
    if (err == CUZK_OK) {
        memo_insert(kind, bytes, out);
    }
    return err;
}

static uint64_t next_pow2(uint64_t x)
{
    uint64_t n = 1;
    while (n < x) {
        n <<= 1;
    }
    return n;
}

cuzk_err eng_fil_plan_circuit(eng_plan_t *plan, circ_kind kind, uint64_t sector_bytes, cz_diag *dg)
{
    cs_counts_t c;
    cuzk_err err;

    if (!eng_fil_circuit_id(plan->circuit_id, kind, sector_bytes)) {
        return cz_fail(dg, CUZK_E_INVAL, "no %s circuit for sector size %" PRIu64,
                       circ_kind_name(kind), sector_bytes);
    }
    err = circuit_counts(&c, kind, sector_bytes, plan->pool, dg);
    if (err != CUZK_OK) {
        return err;
    }
    plan->shape = c;
    /* The prover assignment: a, b, c per constraint (input constraints included) and the
     * values; then g16_prove's work space: a, b, c grown to the domain n, the n/2 twiddles
     * and the MSM scratch (bounded by one element per domain point). */
    uint64_t m = (uint64_t)c.num_constraints + c.num_inputs;
    uint64_t n = next_pow2(m);
    uint64_t fr = sizeof(fr_t);
    uint64_t asg = fr * (3 * m + c.num_aux + c.num_inputs) + m / 2; /* densities: bits */
    uint64_t work = fr * (3 * n + n / 2 + n);
    plan->partition_mem_bytes = (size_t)(asg + work + 16 * MIB);
    return CUZK_OK;
}
