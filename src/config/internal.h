/* internal.h - what the configuration's three files share. Private to src/config/.
 *   config.c  the key table (name, type, default, bounds, flag, help) and its appliers: a value
 *             checked against its key and stored into srv_config; defaults; the engine's view.
 *   toml.c    the TOML value reader and the file reader around libinih.
 *   cli.c     command-line flags, --help and --print-config.
 */
#ifndef CUZK_CONFIG_INTERNAL_H
#define CUZK_CONFIG_INTERNAL_H

#include "config/config.h"

/* ---------------------------------------------------------------------------------------------
 * The table (config.c)
 * ------------------------------------------------------------------------------------------- */

typedef enum cfg_type {
    CT_STR,    /* string */
    CT_STRS,   /* string or array of strings */
    CT_U64,    /* non-negative integer */
    CT_BOOL,   /* true / false */
    CT_SIZE,   /* bytes: integer or "5GiB"; "auto" where auto_ok */
    CT_DUR,    /* milliseconds: integer seconds or "500ms", "30s", "5m", "1h" */
    CT_MODE,   /* permission bits: 0o660 or "0660" */
    CT_LEVEL,  /* log level name */
    CT_GPUS,   /* srv_gpu_sel: "auto", "none", [0, 1] or (flags) "0,1" */
    CT_IGNORED /* a Rust-daemon key that does not apply here: accepted, warned about */
} cfg_type;

typedef struct cfg_entry {
    const char *key; /* "section.name" */
    cfg_type type;
    size_t off; /* into srv_config */
    const char *dflt;
    uint64_t min, max;
    bool auto_ok;
    const char *flag; /* NULL: "--" + key with '.' and '_' turned into '-' */
    const char *help;
} cfg_entry;

/** The keys, in --help order (cfg_nentries of them, at most CFG_ENTRIES_MAX). */
extern const cfg_entry cfg_table[];
extern const size_t cfg_nentries;
#define CFG_ENTRIES_MAX 128

/** The entry of a file key ("section.name") or of a flag name (without "--"; never an ignored
 *  key); NULL when there is none. */
const cfg_entry *cfg_find_key(const char *key);
const cfg_entry *cfg_find_flag(const char *name);
/** The flag of an entry, without "--". */
void cfg_flag_name(const cfg_entry *e, char *out, size_t cap);

/* ---------------------------------------------------------------------------------------------
 * Values (toml.c)
 * ------------------------------------------------------------------------------------------- */

/** A value: a file's TOML value, or (raw) a command-line string. */
typedef enum cfg_vkind { CFG_V_STR, CFG_V_INT, CFG_V_BOOL, CFG_V_ARR } cfg_vkind;

typedef struct cfg_val {
    cfg_vkind kind;
    bool raw; /* a command-line string, interpreted according to the key's type */
    char *s;
    int64_t i;
    bool b;
    struct cfg_val *items;
    size_t n;
} cfg_val;

/** Frees what v owns and zeroes it. */
void cfg_val_clear(cfg_val *v);

/** Where a reader or applier writes its message: msg holds cap bytes. */
typedef struct cfg_perr {
    char *msg;
    size_t cap;
} cfg_perr;

/** Writes the message into e; returns false. */
bool cfg_fail(cfg_perr *e, const char *fmt, ...) CZ_PRINTF(2, 3);

/** Reads the TOML integer at *pp (decimal, 0x, 0o, 0b, '_' between digits), advancing *pp past
 *  it; false with the message in e. */
bool cfg_parse_int(const char **pp, cfg_val *v, cfg_perr *e);
/** Reads the whole text of a file's value (one TOML value, then nothing); false with the
 *  message in e. */
bool cfg_parse_file_value(const char *text, cfg_val *v, cfg_perr *e);

/* ---------------------------------------------------------------------------------------------
 * Applying a value (config.c)
 * ------------------------------------------------------------------------------------------- */

/** Checks v against e and stores it into cfg's field of e; `append` (string lists only): adds to
 *  the list instead of replacing it. False with the message in pe. */
bool cfg_apply(srv_config *cfg, const cfg_entry *e, const cfg_val *v, bool append, cfg_perr *pe);

#endif /* CUZK_CONFIG_INTERNAL_H */
