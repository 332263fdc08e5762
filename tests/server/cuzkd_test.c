/* cuzkd_test.c - cuzkd with the "tk" test handler (tests/engine/test_kind.h) registered for
 * all four proof kinds, so that test_cuzkd.mjs can drive real proofs over gRPC. The handler's
 * parameters are generated into the daemon's --param-cache directory at start-up. The gate is
 * left open: requests use the handler's sleep_ms to hold a stage. Test use only. */
#include "engine/test_kind.h"
#include "server/server.h"

static tk_ctx *g_tk;

static cuzk_err register_tk(eng_t *eng, const srv_config *cfg, void *ctx, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    (void)ctx;
    CZ_TRY(err, tk_new(&g_tk, cfg->param_cache, dg), done);
    tk_open_gate(g_tk);
    CZ_TRY(err, eng_register_kind(eng, ENG_KIND_POREP, &tk_ops_batchable, g_tk, dg), done);
    CZ_TRY(err, eng_register_kind(eng, ENG_KIND_SNAP, &tk_ops_batchable, g_tk, dg), done);
    CZ_TRY(err, eng_register_kind(eng, ENG_KIND_WINDOW_POST, &tk_ops, g_tk, dg), done);
    CZ_TRY(err, eng_register_kind(eng, ENG_KIND_WINNING_POST, &tk_ops, g_tk, dg), done);
done:
    return err;
}

int main(int argc, char **argv)
{
    int rc = srv_main(argc, argv, register_tk, NULL);
    tk_free(g_tk);
    return rc;
}
