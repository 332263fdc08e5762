/* cmd_circuit.c - cuzk-bench circuit-info: the shape of a Filecoin circuit (one partition) from
 * the counter backend - public inputs (ONE included), aux variables and the circuit's own
 * constraints (without the input constraints the prover appends) - its bellpepper shape digest
 * (digest backend, streamed with the counts as its expectation) and its official parameter file.
 * With --json: exactly one line {"inputs":N,"aux":N,"constraints":N,"digest":"HEX"}.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "circuits/circuits.h"
#include "r1cs/r1cs.h"

int cmd_circuit_info(int argc, char **argv);

static const char CMD[] = "circuit-info";

/* One blank synthesis into a fresh cs of the given constructor's kind. */
static cuzk_err synth(cs_t *cs, circ_kind kind, uint64_t bytes, uint32_t sectors, cz_pool *pool,
                      cz_diag *dg)
{
    cuzk_err err = circ_synth_blank(cs, kind, bytes, sectors, pool, dg);
    if (err != CUZK_OK) {
        return err;
    }
    return cs_finish(cs, dg);
}

int cmd_circuit_info(int argc, char **argv)
{
    const char *proof = NULL, *size = NULL;
    uint64_t sectors = 0, threads = 1;
    bool json = false, no_digest = false;
    const cli_opt_t opts[] = {
        CLI_OPT("proof", CLI_STR, &proof, "KIND",
                "porep | winning-post | window-post | snap | snap-poseidon", true),
        CLI_OPT("sector-size", CLI_STR, &size, "SIZE",
                "2KiB 4KiB 16KiB 32KiB 8MiB 16MiB 512MiB 1GiB 32GiB 64GiB", true),
        CLI_OPT("sectors", CLI_U64, &sectors, "N",
                "window-post: sectors per partition (default: the production count)", false),
        CLI_OPT("json", CLI_FLAG, &json, NULL,
                "print one line {\"inputs\":N,\"aux\":N,\"constraints\":N,\"digest\":\"HEX\"}",
                false),
        CLI_OPT("no-digest", CLI_FLAG, &no_digest, NULL,
                "skip the shape digest (text output only; it is the slow part)", false),
        CLI_OPT("threads", CLI_U64, &threads, "N",
                "cores for counting window/winning PoSt (0 = all; the digest is sequential)",
                false),
    };
    const char *about =
        "Prints the shape of one partition of a Filecoin circuit, synthesized blank: public\n"
        "inputs (ONE included), aux variables, the circuit's own constraints (the prover adds\n"
        "one per input), the bellpepper TestConstraintSystem shape digest, and the official\n"
        "parameter file name.";
    int rc = cli_parse(CMD, about, opts, ARRAY_LEN(opts), argc, argv);
    const circ_sector_t *sec;
    circ_kind kind;
    cs_t *cs = NULL;
    cs_counts_t counts;
    cz_pool *pool = NULL;
    cz_diag dg;
    cuzk_err err;
    char digest[65] = "", pname[CIRC_PARAM_NAME_MAX] = "";
    double t0, count_ms, digest_ms = 0;

    if (rc >= 0) {
        return rc;
    }
    cz_diag_init(&dg);
    if (!circ_kind_parse(&kind, proof)) {
        return cli_error(CMD,
                         "unknown --proof '%s' (porep, winning-post, window-post, snap, "
                         "snap-poseidon)",
                         proof);
    }
    sec = circ_sector_parse(size);
    if (!sec) {
        return cli_error(CMD,
                         "unsupported --sector-size '%s' (2KiB 4KiB 16KiB 32KiB 8MiB 16MiB "
                         "512MiB 1GiB 32GiB 64GiB)",
                         size);
    }
    if (sectors && kind != CIRC_WINDOW_POST) {
        return cli_error(CMD, "--sectors applies to window-post only");
    }
    if (sectors > UINT32_MAX) {
        return cli_error(CMD, "--sectors %" PRIu64 " is too large", sectors);
    }
    if (json && no_digest) {
        return cli_error(CMD, "--json always includes the digest");
    }
    if ((kind == CIRC_WINDOW_POST || kind == CIRC_WINNING_POST) && threads != 1 &&
        !cli_pool(CMD, threads, &pool)) {
        return CLI_EXIT_ERROR;
    }

    /* counts */
    t0 = cli_now_ms();
    err = cs_new_counter(&cs, &dg);
    if (err == CUZK_OK) {
        err = synth(cs, kind, sec->bytes, (uint32_t)sectors, pool, &dg);
    }
    if (err != CUZK_OK) {
        rc = cli_error_diag(CMD, err, &dg);
        goto done;
    }
    cs_get_counts(cs, &counts);
    cs_free(cs);
    cs = NULL;
    count_ms = cli_now_ms() - t0;

    /* digest: streamed, with the counts just measured as its expectation */
    if (!no_digest) {
        t0 = cli_now_ms();
        err = cs_new_digest(&cs, &counts, &dg);
        if (err == CUZK_OK) {
            err = synth(cs, kind, sec->bytes, (uint32_t)sectors, NULL, &dg);
        }
        if (err != CUZK_OK || !cs_digest_hex(cs, digest)) {
            rc = cli_error_diag(CMD, err != CUZK_OK ? err : CUZK_E_INVAL, &dg);
            goto done;
        }
        digest_ms = cli_now_ms() - t0;
    }

    if (json) {
        printf("{\"inputs\":%zu,\"aux\":%zu,\"constraints\":%zu,\"digest\":\"%s\"}\n",
               counts.num_inputs, counts.num_aux, counts.num_constraints, digest);
    } else {
        size_t m = counts.num_constraints + counts.num_inputs;
        unsigned log_n = 0;
        while ((UINT64_C(1) << log_n) < m) {
            log_n++;
        }
        printf("circuit=%s sector_size=%s", circ_kind_name(kind), sec->name);
        if (kind == CIRC_WINDOW_POST) {
            circ_post_cfg_t pc;
            if (circ_window_post_cfg(&pc, sec->bytes, (uint32_t)sectors)) {
                printf(" sectors=%" PRIu32 " challenges=%" PRIu32, pc.sector_count,
                       pc.challenge_count);
            }
        }
        printf("\ninputs=%zu aux=%zu constraints=%zu prover_constraints=%zu domain=2^%u\n",
               counts.num_inputs, counts.num_aux, counts.num_constraints, m, log_n);
        if (!no_digest) {
            printf("digest=%s\n", digest);
        }
        if (!(kind == CIRC_WINDOW_POST && sectors && sectors != sec->window_post_sectors) &&
            circ_param_file_name(pname, sizeof(pname), kind, sec->bytes, CIRC_PARAM_PARAMS) ==
                CUZK_OK) {
            bool published = sec->published &&
                             (kind != CIRC_UPDATE_POSEIDON || sec->bytes >= (UINT64_C(32) << 30));
            printf("params=%s%s\n", pname, published ? "" : " (not published)");
        }
        printf("count_ms=%.1f", count_ms);
        if (!no_digest) {
            printf(" digest_ms=%.1f", digest_ms);
        }
        printf("\n");
    }
    rc = CLI_EXIT_OK;
done:
    cs_free(cs);
    cz_pool_free(pool);
    return rc;
}
