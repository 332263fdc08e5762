/* header_c.c - <cuzk/cuzk.h> alone in a C11 translation unit, built with -std=c11 -Wall
 * -Wextra -Werror -pedantic and the project's stricter warnings (tests/api/CMakeLists.txt); it
 * uses every type and constant so that each must be declared. main also calls the C++ half
 * (header_cxx.cc) and checks that the library matches the header. */
#include <cuzk/cuzk.h>

#include <stdio.h>
#include <string.h>

int header_cxx(void);

static int header_c(void)
{
    cuzk_request req = {0};
    cuzk_job job;
    cuzk_proof proof = {0};
    cuzk_status st;
    cuzk_diag dg;
    cuzk_engine *engine = NULL;
    cuzk_err err = CUZK_E_NOT_FOUND;
    cuzk_kind kind = CUZK_KIND_WINNING_POST;
    cuzk_priority prio = CUZK_PRIORITY_CRITICAL;
    cuzk_job_status status = CUZK_JOB_PENDING;

    req.kind = (uint32_t)kind;
    req.priority = (uint32_t)prio;
    proof.status = (uint32_t)status;
    memset(&job, 0, sizeof(job));
    memset(&st, 0, sizeof(st));
    memset(&dg, 0, sizeof(dg));
    (void)engine;
    return (int)err + (int)sizeof(job.id) + (int)sizeof(st.pending) / (int)sizeof(st.pending[0]) +
           (int)sizeof(dg.message) + CUZK_PROOF_BYTES + (int)req.kind - (int)proof.status;
}

int main(void)
{
    int c = header_c(), cxx = header_cxx();
    if (c != cxx) {
        fprintf(stderr, "C and C++ disagree: %d %d\n", c, cxx);
        return 1;
    }
    if (cuzk_api_version() != CUZK_API_VERSION) {
        fprintf(stderr, "library API %u, header %d\n", (unsigned)cuzk_api_version(),
                CUZK_API_VERSION);
        return 1;
    }
    printf("cuzk %s API %u: the header compiles alone in C11 and C++11\n", cuzk_version(),
           (unsigned)cuzk_api_version());
    return 0;
}
