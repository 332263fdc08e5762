/* cache.c - the sealed-sector directory (layout documented at seal_sector_save in seal.h):
 * a text sector.meta with identifiers and commitments, p_aux as rust-fil-proofs writes it,
 * the three trees (tree.c's CZTREE1 files), and either the dense layers + sealed replica or,
 * for a synthetic sector, its materialised columns.
 */
#include "seal/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/bytes.h"

#define META_FORMAT "cuzk-sector-1"

cuzk_err seal_write_file(const char *path, const void *buf, size_t len, cz_diag *dg)
{
    FILE *f = fopen(path, "wb");
    bool ok;

    if (!f) {
        return cz_fail(dg, CUZK_E_IO, "cannot create %s: %s", path, strerror(errno));
    }
    ok = len == 0 || fwrite(buf, 1, len, f) == len;
    if (fclose(f) != 0) {
        ok = false;
    }
    return ok ? CUZK_OK : cz_fail(dg, CUZK_E_IO, "cannot write %s", path);
}

cuzk_err seal_read_file_exact(const char *path, void *buf, size_t len, cz_diag *dg)
{
    FILE *f = fopen(path, "rb");
    cuzk_err err = CUZK_OK;

    if (!f) {
        return cz_fail(dg, CUZK_E_IO, "cannot open %s: %s", path, strerror(errno));
    }
    if ((len && fread(buf, 1, len, f) != len) || fgetc(f) != EOF) {
        err = cz_fail(dg, CUZK_E_FORMAT, "%s: expected exactly %zu bytes", path, len);
    }
    fclose(f);
    return err;
}

static void join(char *out, size_t cap, const char *dir, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

static void hex_line(FILE *f, const char *key, const uint8_t *b)
{
    char hex[65];
    cz_hex_encode(hex, b, 32);
    fprintf(f, "%s %s\n", key, hex);
}

static cuzk_err write_meta(const seal_sector *s, const char *path, cz_diag *dg)
{
    const seal_porep_config *c = &s->cfg;
    const seal_sector_info *in = &s->info;
    FILE *f = fopen(path, "w");
    bool ok;

    if (!f) {
        return cz_fail(dg, CUZK_E_IO, "cannot create %s: %s", path, strerror(errno));
    }
    fprintf(f, "format %s\n", META_FORMAT);
    if (c->registered_proof == SEAL_NOT_REGISTERED) {
        fprintf(f, "registered_proof none\n");
    } else {
        fprintf(f, "registered_proof %" PRIu32 "\n", c->registered_proof);
    }
    fprintf(f, "name %s\n", c->name);
    fprintf(f, "sector_size %" PRIu64 "\n", c->shape.sector_size);
    fprintf(f, "api %d\n", (int)c->api);
    fprintf(f, "kind %d\n", (int)c->kind);
    hex_line(f, "porep_id", c->porep_id);
    hex_line(f, "prover_id", in->ids.prover_id);
    fprintf(f, "sector_id %" PRIu64 "\n", in->ids.sector_id);
    hex_line(f, "ticket", in->ids.ticket);
    hex_line(f, "comm_d", in->comm_d);
    hex_line(f, "replica_id", in->replica_id);
    hex_line(f, "comm_c", in->comm_c);
    hex_line(f, "comm_r_last", in->comm_r_last);
    hex_line(f, "comm_r", in->comm_r);
    fprintf(f, "sparse %d\n", in->sparse ? 1 : 0);
    ok = !ferror(f);
    if (fclose(f) != 0) {
        ok = false;
    }
    return ok ? CUZK_OK : cz_fail(dg, CUZK_E_IO, "cannot write %s", path);
}

cuzk_err seal_sector_save(const seal_sector *s, const char *dir, cz_diag *dg)
{
    char path[4096], name[32];
    uint8_t paux[64];
    const seal_shape *sh = &s->cfg.shape;
    cuzk_err err;

    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        return cz_fail(dg, CUZK_E_IO, "cannot create directory %s: %s", dir, strerror(errno));
    }
    join(path, sizeof(path), dir, "sector.meta");
    CZ_TRY(err, write_meta(s, path, dg), done);
    memcpy(paux, s->info.comm_c, 32);
    memcpy(paux + 32, s->info.comm_r_last, 32);
    join(path, sizeof(path), dir, "p_aux");
    CZ_TRY(err, seal_write_file(path, paux, sizeof(paux), dg), done);
    join(path, sizeof(path), dir, "tree-d.dat");
    CZ_TRY(err, seal_tree_save(s->tree_d, path, dg), done);
    join(path, sizeof(path), dir, "tree-c.dat");
    CZ_TRY(err, seal_tree_save(s->tree_c, path, dg), done);
    join(path, sizeof(path), dir, "tree-r-last.dat");
    CZ_TRY(err, seal_tree_save(s->tree_r, path, dg), done);

    if (!s->info.sparse) {
        const seal_node *lab = s->labels.ptr;
        cz_buf rep = {0};
        for (uint32_t l = 1; l <= sh->layers; l++) {
            snprintf(name, sizeof(name), "layer-%u.dat", l);
            join(path, sizeof(path), dir, name);
            CZ_TRY(err,
                   seal_write_file(path, lab + (size_t)(l - 1) * sh->nodes, (size_t)sh->nodes * 32,
                                   dg),
                   done);
        }
        CZ_TRY(err, cz_buf_new(&rep, (size_t)sh->nodes * 32, dg), done);
        seal_node *r = rep.ptr;
        for (uint64_t v = 0; v < sh->nodes; v++) {
            seal_sector_replica(s, v, r[v].b);
        }
        join(path, sizeof(path), dir, "sealed.dat");
        err = seal_write_file(path, rep.ptr, rep.len, dg);
        cz_buf_free(&rep);
    } else {
        join(path, sizeof(path), dir, "columns.dat");
        FILE *f = fopen(path, "wb");
        uint64_t n = s->cols.n;
        bool ok = f && fwrite(&n, 8, 1, f) == 1;
        for (size_t i = 0; ok && i < s->cols.n; i++) {
            ok = fwrite(&s->cols.idx[i], 8, 1, f) == 1 &&
                 fwrite(s->cols.lab[i * sh->layers].b, 32, sh->layers, f) == sh->layers;
        }
        if (f && fclose(f) != 0) {
            ok = false;
        }
        if (!ok) {
            err = cz_fail(dg, CUZK_E_IO, "cannot write %s", path);
        }
    }
done:
    return err;
}

/* ---- loading ----------------------------------------------------------------------------- */

typedef struct meta {
    char registered[32], name[64];
    uint64_t sector_size, sector_id;
    int api, kind, sparse;
    uint8_t porep_id[32], prover_id[32], ticket[32];
    uint8_t comm_d[32], replica_id[32], comm_c[32], comm_r_last[32], comm_r[32];
    unsigned seen;
} meta;

static cuzk_err parse_meta(meta *m, const char *path, cz_diag *dg)
{
    static const struct {
        const char *key;
        size_t off;
    } hexkeys[] = {
        {"porep_id", offsetof(meta, porep_id)},       {"prover_id", offsetof(meta, prover_id)},
        {"ticket", offsetof(meta, ticket)},           {"comm_d", offsetof(meta, comm_d)},
        {"replica_id", offsetof(meta, replica_id)},   {"comm_c", offsetof(meta, comm_c)},
        {"comm_r_last", offsetof(meta, comm_r_last)}, {"comm_r", offsetof(meta, comm_r)},
    };
    FILE *f = fopen(path, "r");
    char line[512], key[64], val[400];
    unsigned lineno = 0;
    cuzk_err err = CUZK_OK;

    memset(m, 0, sizeof(*m));
    if (!f) {
        return cz_fail(dg, CUZK_E_IO, "cannot open %s: %s", path, strerror(errno));
    }
    while (fgets(line, sizeof(line), f)) {
        lineno++;
        if (sscanf(line, "%63s %399s", key, val) != 2) {
            err = cz_fail(dg, CUZK_E_FORMAT, "%s:%u: expected 'key value'", path, lineno);
            goto done;
        }
        bool ok = true, known = true;
        if (strcmp(key, "format") == 0) {
            ok = strcmp(val, META_FORMAT) == 0;
        } else if (strcmp(key, "registered_proof") == 0) {
            ok = strlen(val) < sizeof(m->registered);
            if (ok) {
                strcpy(m->registered, val);
            }
        } else if (strcmp(key, "name") == 0) {
            ok = strlen(val) < sizeof(m->name);
            if (ok) {
                strcpy(m->name, val);
            }
        } else if (strcmp(key, "sector_size") == 0) {
            ok = sscanf(val, "%" SCNu64, &m->sector_size) == 1;
        } else if (strcmp(key, "sector_id") == 0) {
            ok = sscanf(val, "%" SCNu64, &m->sector_id) == 1;
        } else if (strcmp(key, "api") == 0) {
            ok = sscanf(val, "%d", &m->api) == 1 && m->api >= 0 && m->api <= 2;
        } else if (strcmp(key, "kind") == 0) {
            ok = sscanf(val, "%d", &m->kind) == 1 && m->kind >= 0 && m->kind <= 2;
        } else if (strcmp(key, "sparse") == 0) {
            ok = sscanf(val, "%d", &m->sparse) == 1 && (m->sparse == 0 || m->sparse == 1);
        } else {
            known = false;
            for (size_t i = 0; i < ARRAY_LEN(hexkeys); i++) {
                if (strcmp(key, hexkeys[i].key) == 0) {
                    known = true;
                    ok = cz_hex_decode((uint8_t *)m + hexkeys[i].off, 32, val);
                }
            }
        }
        if (!known) {
            err = cz_fail(dg, CUZK_E_FORMAT, "%s:%u: unknown key '%s'", path, lineno, key);
            goto done;
        }
        if (!ok) {
            err = cz_fail(dg, CUZK_E_FORMAT, "%s:%u: bad value for %s", path, lineno, key);
            goto done;
        }
        m->seen++;
    }
    if (m->seen != 16) {
        err = cz_fail(dg, CUZK_E_FORMAT, "%s: expected 16 keys, found %u", path, m->seen);
    }
done:
    fclose(f);
    return err;
}

cuzk_err seal_sector_load(seal_sector **out, const char *dir, cz_pool *pool, cz_diag *dg)
{
    char path[4096], name[32];
    meta m;
    seal_porep_config cfg;
    seal_ids ids;
    seal_tree_shape shape_d, shape_r;
    seal_sector *s = NULL;
    uint8_t root[32], comm_r[32];
    cuzk_err err;

    (void)pool;
    *out = NULL;
    join(path, sizeof(path), dir, "sector.meta");
    CZ_TRY(err, parse_meta(&m, path, dg), fail);
    if (strcmp(m.registered, "none") == 0) {
        if (!seal_porep_config_custom(&cfg, m.sector_size, (seal_api)m.api, (seal_porep_kind)m.kind,
                                      m.porep_id)) {
            err = cz_fail(dg, CUZK_E_FORMAT, "%s: unsupported sector size %" PRIu64, path,
                          m.sector_size);
            goto fail;
        }
    } else {
        char *end;
        unsigned long id = strtoul(m.registered, &end, 10);
        if (*end || !seal_porep_config_for_id(&cfg, (uint32_t)id) ||
            cfg.shape.sector_size != m.sector_size || (int)cfg.api != m.api ||
            (int)cfg.kind != m.kind || memcmp(cfg.porep_id, m.porep_id, 32) != 0) {
            err = cz_fail(dg, CUZK_E_FORMAT,
                          "%s: registered_proof %s does not match the "
                          "stored configuration",
                          path, m.registered);
            goto fail;
        }
    }
    memcpy(ids.prover_id, m.prover_id, 32);
    ids.sector_id = m.sector_id;
    memcpy(ids.ticket, m.ticket, 32);

    s = cz_calloc(1, sizeof(*s));
    if (!s) {
        err = cz_fail(dg, CUZK_E_NOMEM, "sector");
        goto fail;
    }
    s->cfg = cfg;
    s->info.ids = ids;
    s->info.sparse = m.sparse != 0;
    memcpy(s->info.replica_id, m.replica_id, 32);
    seal_graph_init(&s->graph, cfg.shape.nodes, cfg.porep_id, cfg.api);
    seal_tree_shape_d(&shape_d, cfg.shape.nodes);
    seal_tree_shape_r(&shape_r, &cfg.shape);

    join(path, sizeof(path), dir, "tree-d.dat");
    CZ_TRY(err, seal_tree_load(&s->tree_d, &shape_d, path, dg), fail);
    join(path, sizeof(path), dir, "tree-c.dat");
    CZ_TRY(err, seal_tree_load(&s->tree_c, &shape_r, path, dg), fail);
    join(path, sizeof(path), dir, "tree-r-last.dat");
    CZ_TRY(err, seal_tree_load(&s->tree_r, &shape_r, path, dg), fail);
    if (seal_tree_is_sparse(s->tree_d) != s->info.sparse ||
        seal_tree_is_sparse(s->tree_c) != s->info.sparse ||
        seal_tree_is_sparse(s->tree_r) != s->info.sparse) {
        err = cz_fail(dg, CUZK_E_FORMAT, "%s: tree files do not match sparse=%d", dir, m.sparse);
        goto fail;
    }

    const uint32_t L = cfg.shape.layers;
    if (!s->info.sparse) {
        CZ_TRY(err, cz_buf_new(&s->labels, (size_t)L * cfg.shape.nodes * 32, dg), fail);
        for (uint32_t l = 1; l <= L; l++) {
            snprintf(name, sizeof(name), "layer-%u.dat", l);
            join(path, sizeof(path), dir, name);
            CZ_TRY(err,
                   seal_read_file_exact(
                       path, (uint8_t *)s->labels.ptr + (size_t)(l - 1) * cfg.shape.nodes * 32,
                       (size_t)cfg.shape.nodes * 32, dg),
                   fail);
        }
    } else {
        join(path, sizeof(path), dir, "columns.dat");
        FILE *f = fopen(path, "rb");
        uint64_t n = 0;
        bool ok = f && fread(&n, 8, 1, f) == 1 && n <= cfg.shape.nodes && n < ((uint64_t)1 << 32);
        if (ok) {
            s->cols.idx = cz_malloc((size_t)(n ? n : 1) * 8);
            s->cols.lab = cz_malloc((size_t)(n ? n : 1) * L * 32);
            ok = s->cols.idx && s->cols.lab;
        }
        for (size_t i = 0; ok && i < n; i++) {
            ok = fread(&s->cols.idx[i], 8, 1, f) == 1 &&
                 fread(s->cols.lab[i * L].b, 32, L, f) == L && s->cols.idx[i] < cfg.shape.nodes &&
                 (i == 0 || s->cols.idx[i] > s->cols.idx[i - 1]);
            s->cols.n = ok ? i + 1 : s->cols.n;
        }
        ok = ok && fgetc(f) == EOF;
        if (f) {
            fclose(f);
        }
        if (!ok) {
            err = cz_fail(dg, CUZK_E_FORMAT, "%s: malformed columns file", path);
            goto fail;
        }
    }

    /* the stored commitments must be those of the trees */
    seal_tree_root(s->tree_d, root);
    memcpy(s->info.comm_d, root, 32);
    seal_tree_root(s->tree_c, s->info.comm_c);
    seal_tree_root(s->tree_r, s->info.comm_r_last);
    seal_comm_r(comm_r, s->info.comm_c, s->info.comm_r_last);
    memcpy(s->info.comm_r, comm_r, 32);
    seal_replica_id(root, ids.prover_id, ids.sector_id, ids.ticket, s->info.comm_d, cfg.porep_id);
    if (memcmp(m.comm_d, s->info.comm_d, 32) != 0 || memcmp(m.comm_c, s->info.comm_c, 32) != 0 ||
        memcmp(m.comm_r_last, s->info.comm_r_last, 32) != 0 ||
        memcmp(m.comm_r, s->info.comm_r, 32) != 0 || memcmp(root, m.replica_id, 32) != 0) {
        err = cz_fail(dg, CUZK_E_FORMAT, "%s: stored commitments do not match the trees", dir);
        goto fail;
    }
    *out = s;
    return CUZK_OK;
fail:
    seal_sector_free(s);
    return err;
}
