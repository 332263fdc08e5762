/* cli.c - the configuration on the command line: flags (two passes: the --config file first,
 * then every flag over it), --help (every key with its flag, default and bounds) and
 * --print-config (the effective configuration in the file format).
 */
#include "config/internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"

/* ---------------------------------------------------------------------------------------------
 * Command line
 * ------------------------------------------------------------------------------------------- */

cuzk_err srv_config_from_args(srv_config *cfg, int argc, char **argv, srv_cli_action *action,
                              cz_diag *dg)
{
    const char *config_path = NULL;
    char msg[400];
    cfg_perr pe = {msg, sizeof(msg)};
    bool listed[CFG_ENTRIES_MAX] = {false};

    *action = SRV_RUN;
    /* Pass 1: actions and the config file. */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            *action = SRV_HELP;
            return CUZK_OK;
        }
        if (!strcmp(a, "--version")) {
            *action = SRV_VERSION;
        } else if (!strcmp(a, "--print-config")) {
            *action = SRV_PRINT_CONFIG;
        } else if (!strcmp(a, "-c") || !strcmp(a, "--config")) {
            if (i + 1 >= argc) {
                return cz_fail(dg, CUZK_E_INVAL, "%s needs a file name", a);
            }
            config_path = argv[++i];
        } else if (!strncmp(a, "--config=", 9)) {
            config_path = a + 9;
        } else if (!strncmp(a, "--", 2)) {
            const char *eq = strchr(a, '=');
            char name[96];
            snprintf(name, sizeof(name), "%.*s", (int)(eq ? eq - a - 2 : (long)strlen(a) - 2),
                     a + 2);
            const cfg_entry *e = cfg_find_flag(name);
            if (!e) {
                return cz_fail(dg, CUZK_E_INVAL, "unknown flag %s (see --help)", a);
            }
            if (!eq && e->type != CT_BOOL) {
                i++; /* its value */
                if (i >= argc) {
                    return cz_fail(dg, CUZK_E_INVAL, "%s needs a value", a);
                }
            }
        } else {
            return cz_fail(dg, CUZK_E_INVAL, "unexpected argument \"%s\" (see --help)", a);
        }
    }
    if (config_path) {
        cuzk_err err = srv_config_load_file(cfg, config_path, dg);
        if (err != CUZK_OK) {
            return err;
        }
        char *copy = cz_strdup(config_path);
        if (!copy) {
            return cz_fail(dg, CUZK_E_NOMEM, "config path");
        }
        cz_free(cfg->config_path);
        cfg->config_path = copy;
    }
    /* Pass 2: flags override the file. */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-c") || !strcmp(a, "--config")) {
            i++;
            continue;
        }
        if (strncmp(a, "--", 2) != 0 || !strncmp(a, "--config=", 9) || !strcmp(a, "--version") ||
            !strcmp(a, "--print-config")) {
            continue;
        }
        const char *eq = strchr(a, '=');
        char name[96];
        snprintf(name, sizeof(name), "%.*s", (int)(eq ? eq - a - 2 : (long)strlen(a) - 2), a + 2);
        const cfg_entry *e = cfg_find_flag(name);
        const char *value = eq ? eq + 1 : e->type == CT_BOOL ? "true" : argv[++i];
        char *copy = cz_strdup(value);
        if (!copy) {
            return cz_fail(dg, CUZK_E_NOMEM, "flag value");
        }
        cfg_val v = {.kind = CFG_V_STR, .raw = true, .s = copy};
        size_t idx = (size_t)(e - cfg_table);
        bool ok = cfg_apply(cfg, e, &v, listed[idx], &pe);
        listed[idx] = true;
        cz_free(copy);
        if (!ok) {
            return cz_fail(dg, CUZK_E_INVAL, "--%s: %s", name, msg);
        }
    }
    return CUZK_OK;
}

/* ---------------------------------------------------------------------------------------------
 * --help and --print-config
 * ------------------------------------------------------------------------------------------- */

/* The placeholder of an entry's value in --help: a directory for the *_cache keys, else a word. */
static const char *value_word(const cfg_entry *e)
{
    size_t n = strlen(e->key);
    switch (e->type) {
    case CT_STRS:
        return "ADDR";
    case CT_STR:
        return n >= 6 && strcmp(e->key + n - 6, "_cache") == 0 ? "DIR" : "WORD";
    case CT_BOOL:
        return "[=BOOL]";
    case CT_SIZE:
        return "SIZE";
    case CT_DUR:
        return "DURATION";
    case CT_MODE:
        return "MODE";
    case CT_LEVEL:
        return "LEVEL";
    case CT_GPUS:
        return "auto|none|N,N";
    default:
        return "N";
    }
}

void srv_config_help(FILE *out, const char *argv0)
{
    fprintf(out,
            "usage: %s [--config FILE] [flags]\n\n"
            "Serves the cuzk.v1.ProvingEngine gRPC API (Curio's cuzk client works unchanged).\n"
            "Settings come from the built-in defaults, then the TOML file, then the flags.\n\n"
            "  -c, --config FILE           read settings from FILE (flags override it)\n"
            "  -h, --help                  show this help and exit\n"
            "      --version               show the version and exit\n"
            "      --print-config          print the effective settings as TOML and exit\n\n",
            argv0);
    for (size_t i = 0; i < cfg_nentries; i++) {
        const cfg_entry *e = &cfg_table[i];
        if (e->type == CT_IGNORED) {
            continue;
        }
        char flag[96], left[128];
        cfg_flag_name(e, flag, sizeof(flag));
        snprintf(left, sizeof(left), "--%s %s", flag, value_word(e));
        fprintf(out, "  %-36s %s\n", left, e->help);
        fprintf(out, "  %-36s file key %s; default %s", "", e->key, e->dflt);
        if (e->type == CT_U64) {
            fprintf(out, "; range %" PRIu64 "..%" PRIu64, e->min, e->max);
        }
        fprintf(out, "\n");
    }
    fprintf(out, "\nAccepted in the file for compatibility with the Rust cuzk daemon, ignored:\n");
    for (size_t i = 0; i < cfg_nentries; i++) {
        if (cfg_table[i].type == CT_IGNORED) {
            fprintf(out, "  %-34s %s\n", cfg_table[i].key, cfg_table[i].help);
        }
    }
}

static void print_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            fprintf(out, "\\%c", *p);
        } else if (*p < 0x20 || *p == 0x7f) {
            fprintf(out, "\\u%04x", *p);
        } else {
            fputc(*p, out);
        }
    }
    fputc('"', out);
}

static void print_ms(FILE *out, uint64_t ms)
{
    if (ms % 3600000 == 0 && ms) {
        fprintf(out, "\"%" PRIu64 "h\"", ms / 3600000);
    } else if (ms % 60000 == 0 && ms) {
        fprintf(out, "\"%" PRIu64 "m\"", ms / 60000);
    } else if (ms % 1000 == 0) {
        fprintf(out, "\"%" PRIu64 "s\"", ms / 1000);
    } else {
        fprintf(out, "\"%" PRIu64 "ms\"", ms);
    }
}

void srv_config_print(FILE *out, const srv_config *cfg)
{
    const char *base = (const char *)cfg;
    char section[64] = "";

    for (size_t i = 0; i < cfg_nentries; i++) {
        const cfg_entry *e = &cfg_table[i];
        if (e->type == CT_IGNORED) {
            continue;
        }
        const char *dot = strchr(e->key, '.');
        if ((size_t)(dot - e->key) != strlen(section) ||
            strncmp(section, e->key, (size_t)(dot - e->key)) != 0) {
            snprintf(section, sizeof(section), "%.*s", (int)(dot - e->key), e->key);
            fprintf(out, "%s[%s]\n", i ? "\n" : "", section);
        }
        fprintf(out, "%s = ", dot + 1);
        const void *field = base + e->off;
        switch (e->type) {
        case CT_STR:
        case CT_LEVEL:
            print_string(out, *(char *const *)field);
            break;
        case CT_STRS: {
            char *const *list = *(char **const *)field;
            size_t n = *(const size_t *)(const void *)(base + e->off + sizeof(char **));
            fputc('[', out);
            for (size_t k = 0; k < n; k++) {
                fprintf(out, "%s", k ? ", " : "");
                print_string(out, list[k]);
            }
            fputc(']', out);
            break;
        }
        case CT_BOOL:
            fprintf(out, "%s", *(const bool *)field ? "true" : "false");
            break;
        case CT_U64:
            fprintf(out, "%" PRIu64, *(const uint64_t *)field);
            break;
        case CT_SIZE: {
            uint64_t v = *(const uint64_t *)field;
            if (v == SRV_SIZE_AUTO) {
                fprintf(out, "\"auto\"");
            } else {
                fprintf(out, "%" PRIu64, v);
            }
            break;
        }
        case CT_DUR:
            print_ms(out, *(const uint64_t *)field);
            break;
        case CT_MODE:
            fprintf(out, "\"0%03" PRIo64 "\"", *(const uint64_t *)field);
            break;
        case CT_GPUS: {
            const srv_gpu_sel *sel = field;
            if (sel->mode == ENG_GPU_LIST) {
                fputc('[', out);
                for (size_t k = 0; k < sel->n; k++) {
                    fprintf(out, "%s%u", k ? ", " : "", sel->devices[k]);
                }
                fputc(']', out);
            } else {
                fprintf(out, "\"%s\"", sel->mode == ENG_GPU_NONE ? "none" : "auto");
            }
            break;
        }
        case CT_IGNORED:
            break;
        }
        fputc('\n', out);
    }
}
