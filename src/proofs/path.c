/* path.c - the location path that proofs/'s readers carry for their messages
 * ("vanilla_proofs.StackedDrg2KiBV1[partition 0][challenge 1].comm_d_proofs"): segments are
 * appended as a reader descends and cut off again on the way out. Not a Merkle path.
 */
#include "proofs/internal.h"

#include <stdarg.h>
#include <stdio.h>

size_t vp_path_push(vp_path *p, const char *fmt, ...)
{
    size_t mark = p->len;
    va_list ap;

    if (p->len < sizeof(p->s) - 1) {
        va_start(ap, fmt);
        int n = vsnprintf(p->s + p->len, sizeof(p->s) - p->len, fmt, ap);
        va_end(ap);
        if (n > 0) {
            p->len += (size_t)n;
            if (p->len > sizeof(p->s) - 1) {
                p->len = sizeof(p->s) - 1;
            }
        }
    }
    return mark;
}

void vp_path_pop(vp_path *p, size_t mark)
{
    p->len = mark;
    p->s[mark] = '\0';
}
