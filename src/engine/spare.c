/* spare.c - assignments kept after their proofs for the next partitions of the same shape.
 *
 * A partition synthesized from a recorded shape writes its witness into [inputs | aux] (4.2 GB
 * for a 32 GiB PoRep partition) and, on the CPU path, a, b, c. Fresh memory costs the kernel's
 * page clearing on first touch (a quarter of the witness and products' CPU time at 512 MiB)
 * and, when freed, an munmap. So a proved partition's assignment is kept as a spare and the
 * next partition with the same counts writes into it (cs_new_witness_reuse,
 * cs_shape_eval_reuse).
 *
 * DESIGN
 *  slots:   ENG_SPARES, the oldest replaced by a newer assignment; only assignments with
 *           values (inputs and aux) are kept.
 *  budget:  a spare keeps cs_assignment_bytes of its partition's reservation in eng->mem_used
 *           (eng_spare_bytes_locked), so the budget still counts it; taking it back into a
 *           partition (whose own reservation covers an assignment) releases those bytes, and
 *           eng_mem_reserve_locked drops spares before it demotes parameters.
 *  lock:    eng->mu for every function here; memory is freed by the reaper (deferred).
 */
#include "engine/internal.h"

#include <string.h>

#include "common/log.h"

/* Moves slot i's assignment out into *out and releases its bytes from the budget. */
static void spare_remove_locked(eng_t *eng, unsigned i, cs_assignment_t *out)
{
    eng_spare *s = &eng->spares[i];

    *out = s->asg;
    eng_mem_release_locked(eng, s->bytes);
    memset(s, 0, sizeof(*s));
}

uint64_t eng_spare_bytes_locked(const eng_t *eng)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < ENG_SPARES; i++) {
        n += eng->spares[i].bytes;
    }
    return n;
}

uint64_t eng_spare_put_locked(eng_t *eng, cs_assignment_t *asg, uint64_t reserved, eng_defer *d)
{
    uint64_t bytes = cs_assignment_bytes(asg);

    if (!asg->inputs || !asg->aux || bytes == 0 || bytes > reserved) {
        return 0;
    }
    unsigned slot = ENG_SPARES;
    for (unsigned i = 0; i < ENG_SPARES && slot == ENG_SPARES; i++) {
        slot = eng->spares[i].bytes ? slot : i;
    }
    if (slot == ENG_SPARES) {
        eng_spare_drop_oldest_locked(eng, d);
        return eng_spare_put_locked(eng, asg, reserved, d); /* a slot is free now */
    }
    eng_spare *s = &eng->spares[slot];
    s->asg = *asg;
    s->bytes = bytes;
    s->since_ns = eng_now_ns();
    memset(asg, 0, sizeof(*asg));
    return bytes;
}

bool eng_spare_take_locked(eng_t *eng, const cs_counts_t *counts, cs_assignment_t *out)
{
    memset(out, 0, sizeof(*out));
    for (unsigned i = 0; i < ENG_SPARES; i++) {
        const eng_spare *s = &eng->spares[i];
        if (s->bytes && s->asg.num_inputs == counts->num_inputs &&
            s->asg.num_aux == counts->num_aux) {
            spare_remove_locked(eng, i, out);
            eng->m.spares_reused++;
            return true;
        }
    }
    return false;
}

bool eng_spare_drop_oldest_locked(eng_t *eng, eng_defer *d)
{
    unsigned slot = ENG_SPARES;

    for (unsigned i = 0; i < ENG_SPARES; i++) {
        if (eng->spares[i].bytes &&
            (slot == ENG_SPARES || eng->spares[i].since_ns < eng->spares[slot].since_ns)) {
            slot = i;
        }
    }
    if (slot == ENG_SPARES) {
        return false;
    }
    CZ_LOG(CZ_LOG_DEBUG, "event=spare_dropped bytes=%llu",
           (unsigned long long)eng->spares[slot].bytes);
    eng_defer_item it = {.kind = DEFER_FREE_ASG};
    spare_remove_locked(eng, slot, &it.asg);
    eng_defer_add(d, &it);
    return true;
}

void eng_spares_drop_all_locked(eng_t *eng, eng_defer *d)
{
    while (eng_spare_drop_oldest_locked(eng, d)) {
    }
}
