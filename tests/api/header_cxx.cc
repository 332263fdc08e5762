// header_cxx.cc - <cuzk/cuzk.h> alone in a C++11 translation unit (-std=c++11 -Wall -Wextra
// -Werror -pedantic): the same computation as header_c.c, so layouts and constants agree.
#include <cuzk/cuzk.h>

#include <cstring>

extern "C" int header_cxx(void);

int header_cxx(void)
{
    cuzk_request req = cuzk_request();
    cuzk_job job;
    cuzk_proof proof = cuzk_proof();
    cuzk_status st;
    cuzk_diag dg;
    cuzk_engine *engine = nullptr;
    cuzk_err err = CUZK_E_NOT_FOUND;
    cuzk_kind kind = CUZK_KIND_WINNING_POST;
    cuzk_priority prio = CUZK_PRIORITY_CRITICAL;
    cuzk_job_status status = CUZK_JOB_PENDING;

    req.kind = static_cast<uint32_t>(kind);
    req.priority = static_cast<uint32_t>(prio);
    proof.status = static_cast<uint32_t>(status);
    std::memset(&job, 0, sizeof(job));
    std::memset(&st, 0, sizeof(st));
    std::memset(&dg, 0, sizeof(dg));
    (void)engine;
    return static_cast<int>(err) + static_cast<int>(sizeof(job.id)) +
           static_cast<int>(sizeof(st.pending) / sizeof(st.pending[0])) +
           static_cast<int>(sizeof(dg.message)) + CUZK_PROOF_BYTES +
           static_cast<int>(req.kind) - static_cast<int>(proof.status);
}
