/* fuzz_config.c - libFuzzer target for the daemon's configuration parsers (server/config.h):
 * the TOML-subset reader (srv_config_load_string, and srv_config_load_file on the same bytes),
 * the command line (srv_config_from_args with the input's lines as arguments; --config is
 * skipped so that no path the input names is ever opened), and srv_parse_size /
 * srv_parse_duration_ms on the input as one string.
 * Properties: results are OK or the documented error codes with a message naming the source;
 * the file and string readers agree; an accepted configuration printed by srv_config_print
 * loads back without error into a configuration that prints identically (print is a fixed
 * point of load . print), and translates to an engine configuration or fails with E_INVAL;
 * an accepted size or duration v parses back from "<v>" (size) or "<v>ms" (duration) to v;
 * nothing leaks.
 */
#include "fuzz.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/log.h"
#include "config/config.h"

#define MAX_ARGS 64

static void quiet(cz_log_level level, const char *line, void *ctx)
{
    (void)level;
    (void)line;
    (void)ctx;
}

/* srv_config_print into an owned string (free()). */
static char *print_config(const srv_config *cfg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    FUZZ_CHECK(f != NULL);
    srv_config_print(f, cfg);
    FUZZ_CHECK(fclose(f) == 0 && text != NULL);
    return text;
}

static bool is_error_code(cuzk_err err)
{
    return err == CUZK_E_FORMAT || err == CUZK_E_INVAL || err == CUZK_E_IO;
}

/* An accepted configuration: print -> load -> print is stable, and the engine translation
 * works or refuses cleanly. */
static void check_accepted(const srv_config *cfg)
{
    srv_config again;
    eng_config_t ecfg;
    cz_diag dg;
    char *t1 = print_config(cfg), *t2;

    cz_diag_init(&dg);
    FUZZ_CHECK(srv_config_init(&again, NULL) == CUZK_OK);
    if (srv_config_load_string(&again, t1, "printed", &dg) != CUZK_OK) {
        fprintf(stderr, "printed configuration does not load back: %s\n%s", dg.msg, t1);
        FUZZ_CHECK(!"print . load round trip");
    }
    t2 = print_config(&again);
    FUZZ_CHECK(strcmp(t1, t2) == 0);
    cuzk_err err = srv_config_engine(cfg, &ecfg, NULL);
    FUZZ_CHECK(err == CUZK_OK || err == CUZK_E_INVAL);
    srv_config_clear(&again);
    free(t1);
    free(t2);
}

static void check_file(const uint8_t *data, size_t size, const char *text)
{
    srv_config a, b;
    cz_diag da, db;

    cz_diag_init(&da);
    cz_diag_init(&db);
    FUZZ_CHECK(srv_config_init(&a, NULL) == CUZK_OK);
    FUZZ_CHECK(srv_config_init(&b, NULL) == CUZK_OK);
    cuzk_err ea = srv_config_load_string(&a, text, "fuzz", &da);
    FUZZ_CHECK(ea == CUZK_OK || is_error_code(ea));
    if (ea != CUZK_OK) {
        FUZZ_CHECK(da.code == ea && strncmp(da.msg, "fuzz", 4) == 0);
    } else {
        fuzz_note_ok();
        check_accepted(&a);
    }
    if (memchr(data, 0, size) == NULL) { /* the file reader rejects NUL bytes on purpose */
        cuzk_err eb = srv_config_load_file(&b, fuzz_write_tmp(data, size), &db);
        FUZZ_CHECK(eb == ea);
        if (ea == CUZK_OK) {
            char *ta = print_config(&a), *tb = print_config(&b);
            FUZZ_CHECK(strcmp(ta, tb) == 0);
            free(ta);
            free(tb);
        }
    }
    srv_config_clear(&a);
    srv_config_clear(&b);
}

static void check_args(char *text)
{
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    srv_config cfg;
    srv_cli_action action;
    cz_diag dg;

    argv[argc++] = "cuzkd";
    for (char *p = text; *p && argc < MAX_ARGS;) {
        char *nl = strchr(p, '\n');
        if (nl) {
            *nl = '\0';
        }
        if (!strcmp(p, "-c") || !strncmp(p, "--config", 8)) {
            return; /* never open a file the input names */
        }
        argv[argc++] = p;
        if (!nl) {
            break;
        }
        p = nl + 1;
    }
    argv[argc] = NULL;
    cz_diag_init(&dg);
    FUZZ_CHECK(srv_config_init(&cfg, NULL) == CUZK_OK);
    cuzk_err err = srv_config_from_args(&cfg, argc, argv, &action, &dg);
    FUZZ_CHECK(err == CUZK_OK || err == CUZK_E_INVAL || err == CUZK_E_FORMAT);
    if (err == CUZK_OK && action == SRV_RUN) {
        fuzz_note_ok();
        check_accepted(&cfg);
    } else if (err != CUZK_OK) {
        FUZZ_CHECK(dg.code == err && dg.msg[0] != '\0');
    }
    srv_config_clear(&cfg);
}

static void check_units(const char *text)
{
    char buf[48];
    uint64_t v, w;

    if (srv_parse_size(text, &v)) {
        snprintf(buf, sizeof(buf), "%" PRIu64, v);
        FUZZ_CHECK(srv_parse_size(buf, &w) && w == v);
    }
    if (srv_parse_duration_ms(text, &v)) {
        snprintf(buf, sizeof(buf), "%" PRIu64 "ms", v);
        FUZZ_CHECK(srv_parse_duration_ms(buf, &w) && w == v);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool once;
    size_t live;
    char *text;

    if (!once) {
        once = true;
        cz_log_set_sink(quiet, NULL); /* keys of the Rust daemon are accepted with a warning */
        unsetenv("FIL_PROOFS_PARAMETER_CACHE");
    }
    live = fuzz_live_bytes();
    text = cz_malloc(size + 1);
    FUZZ_CHECK(text != NULL);
    memcpy(text, data, size);
    text[size] = '\0';
    check_file(data, size, text);
    check_units(text);
    check_args(text); /* last: splits text in place */
    cz_free(text);
    FUZZ_CHECK_NO_LEAK(live);
    return 0;
}
