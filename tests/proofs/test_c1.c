/* test_c1.c - the PoRep C1 output: generation from 2 KiB sectors of every API version and
 * challenge kind, native verification and its failure messages, the JSON writer checked with
 * jansson (an independent parser: keys, order, "_h":null, values), JSON round trips in Rust
 * order, in re-ordered/indented form and with unknown keys, Curio's base64 wrapper, bincode,
 * negative inputs (truncation, trailing bytes, wrong types and lengths) naming the field, and
 * PoRep public inputs against the indices inside the proofs.
 */
#include "proofs_test_util.h"

#include "proofs/internal.h"

#include "common/base64.h"

#include <jansson.h>
#include <stdlib.h>

/* ---- helpers ----------------------------------------------------------------------------- */

static void gen_c1(vp_c1 *c1, uint32_t id, cz_prng *g, seal_sector **keep)
{
    seal_porep_config cfg;
    uint8_t seed[32];
    seal_sector *s;

    CHECK(seal_porep_config_for_id(&cfg, id));
    s = tu_seal(&cfg, g);
    tu_random_fr(seed, g);
    CHECK_OK(vp_gen_porep_c1(c1, s, seed, NULL, NULL));
    if (keep) {
        *keep = s;
    } else {
        seal_sector_free(s);
    }
}

static void check_c1_equal(const vp_c1 *a, const vp_c1 *b)
{
    CHECK_EQ_U64(a->cfg.registered_proof, b->cfg.registered_proof);
    CHECK_EQ_U64(a->partitions, b->partitions);
    CHECK_EQ_U64(a->challenges, b->challenges);
    CHECK_MEM_EQ(a->comm_r, b->comm_r, 32);
    CHECK_MEM_EQ(a->comm_d, b->comm_d, 32);
    CHECK_MEM_EQ(a->replica_id, b->replica_id, 32);
    CHECK_MEM_EQ(a->seed, b->seed, 32);
    CHECK_MEM_EQ(a->ticket, b->ticket, 32);
    for (size_t i = 0; i < (size_t)a->partitions * a->challenges; i++) {
        CHECK_MSG(memcmp(&a->proofs[i], &b->proofs[i], sizeof(vp_porep_proof)) == 0,
                  "challenge proof %zu differs", i);
    }
}

static char *to_json(const vp_c1 *c1, size_t *len)
{
    char *s = NULL;
    CHECK_OK(vp_c1_to_json(c1, &s, len, NULL));
    CHECK(strlen(s) == *len);
    return s;
}

/* ---- generation and verification --------------------------------------------------------- */

TEST(c1_2kib_all_kinds_generate_and_verify)
{
    /* V1 (0), V1_1 (5), synthetic (10), non-interactive (15: 13 partitions x 2) */
    static const uint32_t ids[] = {0, 5, 10, 15};
    cz_prng *g = test_prng();

    for (size_t t = 0; t < ARRAY_LEN(ids); t++) {
        vp_c1 c1, back;
        seal_sector *s;
        size_t len;
        gen_c1(&c1, ids[t], g, &s);
        CHECK_EQ_U64(c1.partitions, ids[t] == 15 ? 13 : 1);
        CHECK_EQ_U64(c1.challenges, 2);
        CHECK_OK(vp_c1_verify(&c1, &seal_sector_get_info(s)->ids, NULL));
        char *json = to_json(&c1, &len);
        CHECK_OK(vp_c1_from_json(&back, json, len, NULL));
        check_c1_equal(&c1, &back);
        CHECK_OK(vp_c1_verify(&back, NULL, NULL));
        /* the writer is deterministic: the round trip reproduces the bytes */
        size_t len2;
        char *json2 = to_json(&back, &len2);
        CHECK_EQ_U64(len2, len);
        CHECK_MEM_EQ(json2, json, len);
        cz_free(json);
        cz_free(json2);
        vp_c1_clear(&back);
        vp_c1_clear(&c1);
        seal_sector_free(s);
    }
}

TEST(c1_compound_test_shapes)
{
    /* 4 KiB (Sub, sub arity 2), 16 KiB (Sub 8), 32 KiB (Top): in memory and bincode only,
     * since no registered proof (and no JSON variant) exists for these sizes */
    static const uint64_t sizes[] = {4096, 16384, 32768};
    cz_prng *g = test_prng();

    for (size_t t = 0; t < ARRAY_LEN(sizes); t++) {
        seal_porep_config cfg;
        uint8_t pid[32], seed[32];
        vp_c1 c1, back;
        uint8_t *bin;
        size_t len;
        char *json;
        cz_prng_bytes(g, pid, 32);
        CHECK(seal_porep_config_custom(&cfg, sizes[t], SEAL_API_V1_1, SEAL_POREP_INTERACTIVE, pid));
        seal_sector *s = tu_seal(&cfg, g);
        tu_random_fr(seed, g);
        CHECK_OK(vp_gen_porep_c1(&c1, s, seed, NULL, NULL));
        CHECK_EQ_U64(c1.proofs[0].comm_r_last_proof.kind,
                     sizes[t] == 32768 ? SEAL_PROOF_TOP : SEAL_PROOF_SUB);
        CHECK_ERR(vp_c1_to_json(&c1, &json, &len, NULL), CUZK_E_INVAL);
        CHECK_OK(vp_c1_to_bincode(&c1, &bin, &len, NULL));
        CHECK_OK(vp_c1_from_bincode(&back, &cfg, bin, len, NULL));
        check_c1_equal(&c1, &back);
        CHECK_OK(vp_c1_verify(&back, NULL, NULL));
        cz_free(bin);
        vp_c1_clear(&back);
        vp_c1_clear(&c1);
        seal_sector_free(s);
    }
}

TEST(c1_verify_names_the_failure)
{
    cz_prng *g = test_prng();
    vp_c1 c1;
    seal_sector *s;
    cz_diag dg;
    seal_ids other;

    gen_c1(&c1, 5, g, &s);
    vp_porep_proof *p = &c1.proofs[1];
    vp_porep_proof save = *p;
    cz_pool *pool = NULL;
    cz_diag pdg;
    CHECK_OK(cz_pool_new(&pool, 2, "test-c1", NULL));

#define EXPECT_FAIL(needle)                                                                        \
    do {                                                                                           \
        cz_diag_init(&dg);                                                                         \
        CHECK_ERR(vp_c1_verify(&c1, NULL, &dg), CUZK_E_FORMAT);                                    \
        CHECK_MSG(strstr(dg.msg, (needle)) != NULL, "\"%s\" lacks \"%s\"", dg.msg, (needle));      \
        cz_diag_init(&pdg);                                                                        \
        CHECK_ERR(vp_c1_verify_pool(&c1, NULL, pool, &pdg), CUZK_E_FORMAT);                        \
        CHECK_STR_EQ(pdg.msg, dg.msg); /* in parallel: the same first failure */                   \
        *p = save;                                                                                 \
        CHECK_OK(vp_c1_verify(&c1, NULL, NULL));                                                   \
    } while (0)

    p->c_x.rows[0].b[3] ^= 1;
    EXPECT_FAIL("challenge 1");
    p->drg_parents[2].rows[1].b[0] ^= 1;
    EXPECT_FAIL("drg_parents[2]");
    p->exp_parents[7].index ^= 1;
    EXPECT_FAIL("exp_parents[7]");
    p->comm_d_proof.sib[3].b[0] ^= 1;
    EXPECT_FAIL("comm_d_proofs does not hash");
    p->comm_r_last_proof.leaf.b[0] ^= 1;
    EXPECT_FAIL("comm_r_last_proof");
    p->labeling[1].parents[20].b[0] ^= 1;
    EXPECT_FAIL("labeling_proofs[1].parents");
    p->labeling[0].layer_index = 2;
    EXPECT_FAIL("labeling_proofs[0]");
    p->encoding.node++;
    EXPECT_FAIL("encoding_proof");
    memset(p->c_x.rows[1].b, 0xff, 32);
    EXPECT_FAIL("not a valid Fr");
#undef EXPECT_FAIL
    /* the seed decides the challenges */
    c1.seed[0] ^= 1;
    cz_diag_init(&dg);
    CHECK_ERR(vp_c1_verify(&c1, NULL, &dg), CUZK_E_FORMAT);
    CHECK(strstr(dg.msg, "partition 0 challenge 0") != NULL);
    c1.seed[0] ^= 1;
    /* comm_r */
    c1.comm_r[0] ^= 1;
    CHECK_ERR(vp_c1_verify(&c1, NULL, NULL), CUZK_E_FORMAT);
    c1.comm_r[0] ^= 1;
    /* zero seed refused as by C2 */
    uint8_t seed[32];
    memcpy(seed, c1.seed, 32);
    memset(c1.seed, 0, 32);
    CHECK_ERR(vp_c1_verify(&c1, NULL, NULL), CUZK_E_FORMAT);
    memcpy(c1.seed, seed, 32);
    /* replica_id against other ids */
    other = seal_sector_get_info(s)->ids;
    other.sector_id++;
    cz_diag_init(&dg);
    CHECK_ERR(vp_c1_verify(&c1, &other, &dg), CUZK_E_FORMAT);
    CHECK(strstr(dg.msg, "replica_id") != NULL);
    CHECK_OK(vp_c1_verify(&c1, &seal_sector_get_info(s)->ids, NULL));
    CHECK_OK(vp_c1_verify_pool(&c1, &seal_sector_get_info(s)->ids, pool, NULL));
    vp_c1_clear(&c1);
    seal_sector_free(s);

    /* 13 partitions x 2 challenges, two of them tampered: in parallel too, the first in
     * (partition, challenge) order is named. */
    gen_c1(&c1, 15, g, &s);
    CHECK_OK(vp_c1_verify_pool(&c1, NULL, pool, NULL));
    c1.proofs[20].c_x.rows[1].b[2] ^= 1;
    c1.proofs[5].c_x.rows[1].b[2] ^= 1;
    cz_diag_init(&dg);
    cz_diag_init(&pdg);
    CHECK_ERR(vp_c1_verify(&c1, NULL, &dg), CUZK_E_FORMAT);
    CHECK_ERR(vp_c1_verify_pool(&c1, NULL, pool, &pdg), CUZK_E_FORMAT);
    CHECK_MSG(strstr(dg.msg, "partition 2 challenge 1") != NULL, "%s", dg.msg);
    CHECK_STR_EQ(pdg.msg, dg.msg);
    /* a range of partitions: only its own are verified */
    CHECK_OK(vp_c1_verify_partitions(&c1, NULL, 0, 2, pool, NULL));
    CHECK_OK(vp_c1_verify_partitions(&c1, NULL, 11, 13, NULL, NULL));
    CHECK_OK(vp_c1_verify_partitions(&c1, NULL, 4, 4, pool, NULL));
    cz_diag_init(&dg);
    CHECK_ERR(vp_c1_verify_partitions(&c1, NULL, 2, 3, NULL, &dg), CUZK_E_FORMAT);
    CHECK_MSG(strstr(dg.msg, "partition 2 challenge 1") != NULL, "%s", dg.msg);
    cz_diag_init(&dg);
    CHECK_ERR(vp_c1_verify_partitions(&c1, NULL, 3, 13, pool, &dg), CUZK_E_FORMAT);
    CHECK_MSG(strstr(dg.msg, "partition 10 challenge 0") != NULL, "%s", dg.msg);
    /* the checks of the whole output apply to any range, those of a partition to its own */
    c1.comm_r[0] ^= 1;
    CHECK_ERR(vp_c1_verify_partitions(&c1, NULL, 11, 13, NULL, NULL), CUZK_E_FORMAT);
    CHECK_OK(vp_c1_verify_partitions(&c1, NULL, 4, 4, NULL, NULL));
    c1.comm_r[0] ^= 1;
    memset(c1.comm_d, 0, 32);
    CHECK_ERR(vp_c1_verify_partitions(&c1, NULL, 4, 4, NULL, NULL), CUZK_E_FORMAT);
    vp_c1_clear(&c1);
    seal_sector_free(s);
    cz_pool_free(pool);
}

/* ---- the JSON writer seen by jansson ----------------------------------------------------- */

static void check_json_node(json_t *v, const uint8_t want[32])
{
    CHECK(json_is_array(v) && json_array_size(v) == 32);
    for (size_t i = 0; i < 32; i++) {
        json_t *x = json_array_get(v, i);
        CHECK(json_is_integer(x) && json_integer_value(x) == want[i]);
    }
}

static void check_json_merkle(json_t *m, const seal_merkle_proof *p)
{
    static const char *const kinds[3] = {"Single", "Sub", "Top"};
    json_t *data = json_object_get(m, "data");
    CHECK(json_is_object(m) && json_object_size(m) == 1 && json_is_object(data));
    CHECK(json_object_size(data) == 1);
    json_t *v = json_object_get(data, kinds[p->kind]);
    CHECK(json_is_object(v));
    check_json_node(json_object_get(v, "root"), p->root.b);
    check_json_node(json_object_get(v, "leaf"), p->leaf.b);
    json_t *base = json_object_get(v, p->kind == SEAL_PROOF_SINGLE ? "path" : "base_proof");
    CHECK(json_is_object(base));
    json_t *elems = json_object_get(base, "path"); /* InclusionPath is not transparent */
    CHECK(json_is_array(elems) && json_array_size(elems) == p->nbase);
    const seal_node *sib = p->sib;
    for (uint32_t j = 0; j < p->nbase; j++) {
        json_t *e = json_array_get(elems, j);
        json_t *h = json_object_get(e, "hashes");
        CHECK(json_object_size(e) == 2 && json_is_array(h));
        CHECK_EQ_U64(json_array_size(h), p->arity[j] - 1u);
        for (size_t k = 0; k < json_array_size(h); k++) {
            check_json_node(json_array_get(h, k), (sib++)->b);
        }
        CHECK_EQ_U64(json_integer_value(json_object_get(e, "index")), p->index[j]);
    }
}

static void check_json_column(json_t *c, const vp_column_proof *cp)
{
    json_t *col = json_object_get(c, "column");
    CHECK(json_object_size(c) == 2 && json_object_size(col) == 3);
    CHECK_EQ_U64(json_integer_value(json_object_get(col, "index")), cp->index);
    json_t *h = json_object_get(col, "_h");
    CHECK(h != NULL && json_is_null(h)); /* PhantomData is emitted as null */
    json_t *rows = json_object_get(col, "rows");
    CHECK_EQ_U64(json_array_size(rows), cp->nrows);
    for (uint32_t l = 0; l < cp->nrows; l++) {
        check_json_node(json_array_get(rows, l), cp->rows[l].b);
    }
    check_json_merkle(json_object_get(c, "inclusion_proof"), &cp->inclusion);
}

static void check_json_labeling(json_t *l, const vp_labeling_proof *lp)
{
    CHECK(json_object_size(l) == 3); /* LabelingProof's _h is serde(skip) */
    json_t *par = json_object_get(l, "parents");
    CHECK_EQ_U64(json_array_size(par), 37);
    for (int i = 0; i < 37; i++) {
        check_json_node(json_array_get(par, (size_t)i), lp->parents[i].b);
    }
    CHECK_EQ_U64(json_integer_value(json_object_get(l, "layer_index")), lp->layer_index);
    CHECK_EQ_U64(json_integer_value(json_object_get(l, "node")), lp->node);
}

TEST(c1_json_structure_checked_by_jansson)
{
    cz_prng *g = test_prng();
    vp_c1 c1;
    size_t len;
    json_error_t je;

    gen_c1(&c1, 5, g, NULL);
    char *s = to_json(&c1, &len);
    /* compact: no whitespace outside strings */
    CHECK(strchr(s, ' ') == NULL && strchr(s, '\n') == NULL);
    /* Rust field order at the top level and in one proof */
    const char *order[] = {"\"registered_proof\"", "\"vanilla_proofs\"", "\"comm_r\"", "\"comm_d\"",
                           "\"replica_id\"",       "\"seed\"",           "\"ticket\""};
    const char *prev = s;
    for (size_t i = 1; i < ARRAY_LEN(order); i++) {
        const char *at = strstr(s, order[i]);
        CHECK(at != NULL && at > prev);
        prev = at;
    }
    CHECK(strncmp(s,
                  "{\"registered_proof\":\"StackedDrg2KiBV1_1\",\"vanilla_proofs\":{"
                  "\"StackedDrg2KiBV1\":[[{\"comm_d_proofs\":{\"data\":{\"Single\":{\"root\":",
                  120) == 0);

    json_t *root = json_loadb(s, len, JSON_STRICT, &je);
    CHECK_MSG(root != NULL, "jansson: %s at %d", je.text, je.position);
    CHECK_EQ_U64(json_object_size(root), 7);
    CHECK_STR_EQ(json_string_value(json_object_get(root, "registered_proof")),
                 "StackedDrg2KiBV1_1");
    check_json_node(json_object_get(root, "comm_r"), c1.comm_r);
    check_json_node(json_object_get(root, "comm_d"), c1.comm_d);
    check_json_node(json_object_get(root, "replica_id"), c1.replica_id);
    check_json_node(json_object_get(root, "seed"), c1.seed);
    check_json_node(json_object_get(root, "ticket"), c1.ticket);
    json_t *vp = json_object_get(root, "vanilla_proofs");
    CHECK(json_object_size(vp) == 1);
    json_t *parts = json_object_get(vp, "StackedDrg2KiBV1");
    CHECK_EQ_U64(json_array_size(parts), 1);
    json_t *chs = json_array_get(parts, 0);
    CHECK_EQ_U64(json_array_size(chs), 2);
    for (size_t i = 0; i < 2; i++) {
        const vp_porep_proof *p = vp_c1_proof(&c1, 0, (uint32_t)i);
        json_t *pj = json_array_get(chs, i);
        CHECK_EQ_U64(json_object_size(pj), 5);
        check_json_merkle(json_object_get(pj, "comm_d_proofs"), &p->comm_d_proof);
        check_json_merkle(json_object_get(pj, "comm_r_last_proof"), &p->comm_r_last_proof);
        json_t *rc = json_object_get(pj, "replica_column_proofs");
        check_json_column(json_object_get(rc, "c_x"), &p->c_x);
        json_t *drg = json_object_get(rc, "drg_parents"), *exp = json_object_get(rc, "exp_parents");
        CHECK_EQ_U64(json_array_size(drg), 6);
        CHECK_EQ_U64(json_array_size(exp), 8);
        for (size_t j = 0; j < 6; j++) {
            check_json_column(json_array_get(drg, j), &p->drg_parents[j]);
        }
        for (size_t j = 0; j < 8; j++) {
            check_json_column(json_array_get(exp, j), &p->exp_parents[j]);
        }
        json_t *lps = json_object_get(pj, "labeling_proofs");
        CHECK_EQ_U64(json_array_size(lps), 2);
        for (size_t l = 0; l < 2; l++) {
            check_json_labeling(json_array_get(lps, l), &p->labeling[l]);
        }
        check_json_labeling(json_object_get(pj, "encoding_proof"), &p->encoding);
    }
    json_decref(root);
    cz_free(s);
    vp_c1_clear(&c1);
}

/* Adds an unknown key to every struct object, recursively (not to the externally tagged enum
 * objects "vanilla_proofs" and "data", which serde requires to hold exactly one variant). */
static void add_unknown_keys(json_t *v, int *n, bool is_enum)
{
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x)
        {
            add_unknown_keys(x, n, strcmp(k, "vanilla_proofs") == 0 || strcmp(k, "data") == 0);
        }
        if (!is_enum && (*n)++ % 3 == 0) {
            json_object_set_new(v, "zz_unknown", json_pack("{s:[i,s,n]}", "x", 1, "y"));
        }
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            add_unknown_keys(json_array_get(v, i), n, false);
        }
    }
}

/* Removes every "_h" key. */
static void drop_h(json_t *v)
{
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_del(v, "_h");
        json_object_foreach(v, k, x)
        {
            drop_h(x);
        }
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            drop_h(json_array_get(v, i));
        }
    }
}

TEST(c1_json_key_order_whitespace_unknown_keys)
{
    cz_prng *g = test_prng();
    vp_c1 c1, back;
    size_t len;
    json_error_t je;

    gen_c1(&c1, 5, g, NULL);
    char *s = to_json(&c1, &len);
    json_t *root = json_loadb(s, len, 0, &je);
    CHECK(root != NULL);

    /* sorted keys (Go's order differs from Rust's) and pretty printing */
    char *sorted = json_dumps(root, JSON_SORT_KEYS | JSON_INDENT(3));
    CHECK(sorted != NULL);
    CHECK(strstr(sorted, "\"comm_d\"") < strstr(sorted, "\"registered_proof\""));
    CHECK_OK(vp_c1_from_json(&back, sorted, strlen(sorted), NULL));
    check_c1_equal(&c1, &back);
    vp_c1_clear(&back);
    free(sorted);

    /* unknown keys everywhere */
    int n = 0;
    add_unknown_keys(root, &n, false);
    char *extra = json_dumps(root, JSON_COMPACT);
    CHECK_OK(vp_c1_from_json(&back, extra, strlen(extra), NULL));
    check_c1_equal(&c1, &back);
    vp_c1_clear(&back);
    free(extra);

    /* "_h" absent */
    drop_h(root);
    char *noh = json_dumps(root, JSON_COMPACT);
    CHECK(strstr(noh, "_h") == NULL);
    CHECK_OK(vp_c1_from_json(&back, noh, strlen(noh), NULL));
    check_c1_equal(&c1, &back);
    vp_c1_clear(&back);
    free(noh);

    json_decref(root);
    cz_free(s);
    vp_c1_clear(&c1);
}

/* ---- malformed JSON ---------------------------------------------------------------------- */

/* Replaces the first occurrence of `from` after `after` (or from the start) with `to`. */
static char *edit(const char *s, const char *after, const char *from, const char *to)
{
    const char *base = after ? strstr(s, after) : s;
    CHECK(base != NULL);
    const char *at = strstr(base, from);
    CHECK_MSG(at != NULL, "edit: \"%s\" not found", from);
    size_t n = strlen(s) - strlen(from) + strlen(to);
    char *o = cz_malloc(n + 1);
    CHECK(o != NULL);
    size_t pre = (size_t)(at - s);
    memcpy(o, s, pre);
    strcpy(o + pre, to);
    strcat(o, at + strlen(from));
    return o;
}

static void expect_c1_error(const char *json, const char *needle)
{
    vp_c1 c1;
    cz_diag dg;
    cz_diag_init(&dg);
    CHECK_ERR(vp_c1_from_json(&c1, json, strlen(json), &dg), CUZK_E_FORMAT);
    CHECK_MSG(strstr(dg.msg, needle) != NULL, "message \"%s\" lacks \"%s\"", dg.msg, needle);
    CHECK(c1.proofs == NULL);
}

TEST(c1_json_negative)
{
    cz_prng *g = test_prng();
    vp_c1 c1, back;
    size_t len;
    char *e;

    gen_c1(&c1, 5, g, NULL);
    char *s = to_json(&c1, &len);

    /* every truncation fails cleanly (sampled densely near the start and the end) */
    for (size_t cut = 0; cut < len; cut += (cut < 2000 || cut > len - 2000) ? 1 : 997) {
        cz_diag dg;
        cz_diag_init(&dg);
        CHECK_ERR(vp_c1_from_json(&back, s, cut, &dg), CUZK_E_FORMAT);
        CHECK(dg.msg[0] != '\0');
    }
    /* trailing bytes */
    e = cz_malloc(len + 3);
    CHECK(e != NULL);
    memcpy(e, s, len);
    strcpy(e + len, " x");
    expect_c1_error(e, "trailing data");
    cz_free(e);
    /* wrong types */
    e = edit(s, NULL, "\"registered_proof\":\"StackedDrg2KiBV1_1\"", "\"registered_proof\":5");
    expect_c1_error(e, "registered_proof: expected a string");
    cz_free(e);
    e = edit(s, "\"comm_r\":[", "[", "\"abc\",[");
    expect_c1_error(e, "comm_r");
    cz_free(e);
    e = edit(s, "\"layer_index\":", "\"layer_index\":1", "\"layer_index\":\"1\"");
    expect_c1_error(e, "[partition 0][challenge 0].labeling_proofs[0].layer_index: expected a "
                       "non-negative integer");
    cz_free(e);
    e = edit(s, "\"node\":", "\"node\":", "\"node\":-");
    expect_c1_error(e, "labeling_proofs[0].node");
    cz_free(e);
    e = edit(s, "\"index\":", "\"index\":", "\"index\":1.5,\"x\":");
    expect_c1_error(e, "fraction");
    cz_free(e);
    /* wrong lengths */
    e = edit(s, "\"seed\":[", "[", "[1,");
    expect_c1_error(e, "seed: expected 32 bytes, found more");
    cz_free(e);
    e = edit(s, "\"ticket\":[", "[", "[300,");
    expect_c1_error(e, "not 0..255");
    cz_free(e);
    e = edit(s, "\"comm_r_last_proof\"", "\"hashes\":[",
             "\"hashes\":[[0,0,0,0,0,0,0,0,0,0,0,0,0,"
             "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],");
    expect_c1_error(e, "comm_r_last_proof.data.Single.path.path[0].hashes: expected 7 hashes, "
                       "found more");
    cz_free(e);
    e = edit(s, "\"parents\":[", "[",
             "[[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
             "0,0,0,0,0],");
    expect_c1_error(e, "labeling_proofs[0].parents: expected 37 parents, found more");
    cz_free(e);
    e = edit(s, "\"drg_parents\":[", "\"drg_parents\":[", "\"drg_parents\":[],\"y\":[");
    expect_c1_error(e, "drg_parents: expected 6 column proofs, found 0");
    cz_free(e);
    /* a path element too many: index out of range */
    e = edit(s, "\"comm_d_proofs\"", "\"index\":", "\"index\":7,\"z\":");
    expect_c1_error(e, "index 7 out of range for arity 2");
    cz_free(e);
    /* wrong variants and registered proofs */
    e = edit(s, NULL, "\"Single\"", "\"Sub\"");
    expect_c1_error(e, "variant Sub does not fit");
    cz_free(e);
    e = edit(s, NULL, "StackedDrg2KiBV1_1", "StackedDrg8MiBV1_1");
    expect_c1_error(e, "is for 8388608-byte sectors");
    cz_free(e);
    e = edit(s, NULL, "StackedDrg2KiBV1_1", "StackedDrg2KiBV9");
    expect_c1_error(e, "unknown registered proof");
    cz_free(e);
    e = edit(s, NULL, "\"StackedDrg2KiBV1\":", "\"StackedDrg4KiBV1\":");
    expect_c1_error(e, "unknown VanillaSealProof variant");
    cz_free(e);
    e = edit(s, NULL, "StackedDrg2KiBV1_1", "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep");
    expect_c1_error(e, "1 partitions x 2 challenges");
    cz_free(e);
    /* missing and duplicate fields */
    e = edit(s, NULL, "\"seed\":", "\"seedx\":");
    expect_c1_error(e, "missing field \"seed\"");
    cz_free(e);
    e = edit(s, NULL, "\"ticket\":", "\"seed\":");
    expect_c1_error(e, "duplicate field \"seed\"");
    cz_free(e);
    e = edit(s, NULL, "\"_h\":null", "\"_h\":1");
    expect_c1_error(e, "_h: expected null");
    cz_free(e);
    e = edit(s, NULL, "\"encoding_proof\":", "\"encoding_proofx\":");
    expect_c1_error(e, "[challenge 0]: missing field \"encoding_proof\"");
    cz_free(e);
    /* syntax */
    e = edit(s, NULL, "]]},\"comm_r\"", "],]},\"comm_r\"");
    expect_c1_error(e, "trailing ','");
    cz_free(e);
    e = edit(s, NULL, "{\"registered_proof\"", "{'registered_proof'");
    expect_c1_error(e, "expected a key");
    cz_free(e);
    expect_c1_error("", "expected an object, found end of input");
    expect_c1_error("[]", "expected an object");
    /* nesting bomb */
    char bomb[400];
    memset(bomb, '[', sizeof(bomb) - 1);
    bomb[sizeof(bomb) - 1] = 0;
    char *deep = cz_malloc(strlen(bomb) + 40);
    sprintf(deep, "{\"zz\":%s", bomb);
    expect_c1_error(deep, "nesting deeper");
    cz_free(deep);
    /* the unmodified text still parses */
    CHECK_OK(vp_c1_from_json(&back, s, len, NULL));
    vp_c1_clear(&back);
    cz_free(s);
    vp_c1_clear(&c1);
}

/* ---- Curio wrapper, bincode --------------------------------------------------------------- */

TEST(c1_curio_wrapper)
{
    cz_prng *g = test_prng();
    vp_c1 c1, back;
    char *w, *e;
    size_t len;
    uint64_t num = 0;
    json_error_t je;

    gen_c1(&c1, 5, g, NULL);
    CHECK_OK(vp_c1_to_curio_json(&c1, 4242, &w, &len, NULL));
    /* jansson sees the three keys and a base64 string that decodes to our C1 JSON */
    json_t *root = json_loadb(w, len, JSON_STRICT, &je);
    CHECK(root != NULL);
    CHECK_EQ_U64(json_integer_value(json_object_get(root, "SectorNum")), 4242);
    CHECK_EQ_U64(json_integer_value(json_object_get(root, "SectorSize")), 2048);
    const char *b64 = json_string_value(json_object_get(root, "Phase1Out"));
    CHECK(b64 != NULL && strlen(b64) % 4 == 0);
    json_decref(root);

    CHECK_OK(vp_c1_from_curio_json(&back, &num, w, len, NULL));
    CHECK_EQ_U64(num, 4242);
    check_c1_equal(&c1, &back);
    vp_c1_clear(&back);
    CHECK_OK(vp_c1_parse(&back, w, len, NULL)); /* auto-detected */
    check_c1_equal(&c1, &back);
    vp_c1_clear(&back);
    char *raw = to_json(&c1, &len);
    CHECK_OK(vp_c1_parse(&back, raw, len, NULL));
    check_c1_equal(&c1, &back);
    vp_c1_clear(&back);
    /* wrapping the JSON text as it is gives the same bytes as wrapping the parsed C1 */
    char *w2;
    size_t len2;
    CHECK_OK(vp_c1_json_to_curio(raw, len, 4242, 2048, &w2, &len2, NULL));
    CHECK_EQ_U64(len2, strlen(w));
    CHECK_STR_EQ(w2, w);
    CHECK(vp_c1_json_is_curio(w2, len2));
    CHECK(!vp_c1_json_is_curio(raw, len));
    static const char *const probes[][2] = {
        {"{\"SectorNum\":1, \"Phase1Out\": 7", "y"}, /* the key decides, up to an error */
        {"{\"a\":{\"Phase1Out\":1}}", "n"},          /* not at the top */
        {"[\"Phase1Out\"]", "n"},
        {"", "n"},
    };
    for (size_t i = 0; i < ARRAY_LEN(probes); i++) {
        CHECK_MSG(vp_c1_json_is_curio(probes[i][0], strlen(probes[i][0])) ==
                      (probes[i][1][0] == 'y'),
                  "%s", probes[i][0]);
    }
    cz_free(w2);
    cz_free(raw);

    /* bad base64: a character outside the alphabet, a bad length, bad padding */
    e = edit(w, "\"Phase1Out\":\"", "\"Phase1Out\":\"", "\"Phase1Out\":\"*");
    char *cut = edit(e, "\"Phase1Out\":\"", "\",\"SectorSize\"", "A\",\"SectorSize\"");
    cz_diag dg;
    cz_diag_init(&dg);
    CHECK_ERR(vp_c1_from_curio_json(&back, NULL, e, strlen(e), &dg), CUZK_E_FORMAT);
    CHECK(strstr(dg.msg, "Phase1Out: invalid base64") != NULL);
    cz_free(e);
    cz_free(cut);
    e = edit(w, "\"Phase1Out\":\"", "\",\"SectorSize\"", "=\",\"SectorSize\"");
    cz_diag_init(&dg);
    CHECK_ERR(vp_c1_from_curio_json(&back, NULL, e, strlen(e), &dg), CUZK_E_FORMAT);
    CHECK(strstr(dg.msg, "invalid base64") != NULL);
    cz_free(e);
    /* sector size disagreeing with the registered proof */
    e = edit(w, NULL, "\"SectorSize\":2048", "\"SectorSize\":4096");
    cz_diag_init(&dg);
    CHECK_ERR(vp_c1_from_curio_json(&back, NULL, e, strlen(e), &dg), CUZK_E_FORMAT);
    CHECK(strstr(dg.msg, "SectorSize 4096") != NULL);
    cz_free(e);
    e = edit(w, NULL, "\"SectorNum\":4242", "\"SectorNum\":\"4242\"");
    cz_diag_init(&dg);
    CHECK_ERR(vp_c1_from_curio_json(&back, NULL, e, strlen(e), &dg), CUZK_E_FORMAT);
    CHECK(strstr(dg.msg, "SectorNum: expected a non-negative integer") != NULL);
    cz_free(e);
    /* a broken inner JSON is reported as such */
    char inner[] = "{\"registered_proof\":1}";
    char b64bad[64], wrapped[200];
    cz_base64_encode(b64bad, (const uint8_t *)inner, strlen(inner));
    snprintf(wrapped, sizeof(wrapped), "{\"SectorNum\":1,\"Phase1Out\":\"%s\",\"SectorSize\":2048}",
             b64bad);
    cz_diag_init(&dg);
    CHECK_ERR(vp_c1_parse(&back, wrapped, strlen(wrapped), &dg), CUZK_E_FORMAT);
    CHECK(strstr(dg.msg, "C1 JSON: registered_proof: expected a string") != NULL);
    cz_free(w);
    vp_c1_clear(&c1);
}

TEST(c1_bincode_round_trip_and_negative)
{
    cz_prng *g = test_prng();
    vp_c1 c1, back;
    uint8_t *bin;
    size_t len;

    gen_c1(&c1, 5, g, NULL);
    CHECK_OK(vp_c1_to_bincode(&c1, &bin, &len, NULL));
    CHECK_OK(vp_c1_from_bincode(&back, &c1.cfg, bin, len, NULL));
    check_c1_equal(&c1, &back);
    vp_c1_clear(&back);
    /* layout: u64 partitions = 1, u64 challenges = 2, then MerkleProof tag 0 (Single) */
    CHECK_EQ_U64(bin[0], 1);
    CHECK_EQ_U64(bin[8], 2);
    CHECK_EQ_U64(bin[16], 0);
    /* the 5 trailing fields */
    CHECK_MEM_EQ(bin + len - 160, c1.comm_r, 32);
    CHECK_MEM_EQ(bin + len - 32, c1.ticket, 32);
    for (size_t cut = 0; cut < len; cut += 97) {
        cz_diag dg;
        cz_diag_init(&dg);
        CHECK_ERR(vp_c1_from_bincode(&back, &c1.cfg, bin, cut, &dg), CUZK_E_FORMAT);
        CHECK(strstr(dg.msg, "truncated") != NULL || strstr(dg.msg, "cannot fit") != NULL);
    }
    uint8_t *longer = cz_malloc(len + 1);
    memcpy(longer, bin, len);
    longer[len] = 0;
    CHECK_FORMAT_ERR(vp_c1_from_bincode(&back, &c1.cfg, longer, len + 1, &dg_), "1 trailing");
    cz_free(longer);
    bin[8] = 3;
    CHECK_FORMAT_ERR(vp_c1_from_bincode(&back, &c1.cfg, bin, len, &dg_),
                     "[partition 0]: expected 2 challenges, found 3");
    bin[8] = 2;
    bin[16] = 1;
    CHECK_FORMAT_ERR(vp_c1_from_bincode(&back, &c1.cfg, bin, len, &dg_),
                     "comm_d_proofs: variant Sub does not fit");
    cz_free(bin);
    vp_c1_clear(&c1);
}

/* ---- public inputs ------------------------------------------------------------------------ */

TEST(porep_public_inputs_match_the_proofs)
{
    cz_prng *g = test_prng();
    static const uint32_t ids[] = {5, 15};

    for (size_t t = 0; t < ARRAY_LEN(ids); t++) {
        vp_c1 c1;
        gen_c1(&c1, ids[t], g, NULL);
        size_t n = vp_porep_num_inputs(&c1.cfg);
        CHECK_EQ_U64(n, 3 + 18 * 2);
        fr_t *in = cz_malloc(n * sizeof(fr_t));
        CHECK(in != NULL);
        for (uint32_t k = 0; k < c1.partitions; k++) {
            CHECK_OK(vp_porep_public_inputs(in, &c1.cfg, c1.replica_id, c1.comm_d, c1.comm_r,
                                            c1.seed, k, NULL));
            fr_t x;
            CHECK_OK(fr_from_bytes(&x, c1.replica_id));
            CHECK(fr_eq(&x, &in[0]));
            CHECK_OK(fr_from_bytes(&x, c1.comm_r));
            CHECK(fr_eq(&x, &in[2]));
            /* the indices the circuit packs from the paths */
            for (uint32_t i = 0; i < c1.challenges; i++) {
                const vp_porep_proof *p = vp_c1_proof(&c1, k, i);
                const fr_t *b = &in[3 + 18 * i];
                fr_from_u64(&x, seal_merkle_leaf_index(&p->comm_d_proof));
                CHECK(fr_eq(&x, &b[0]));
                for (int j = 0; j < 6; j++) {
                    fr_from_u64(&x, seal_merkle_leaf_index(&p->drg_parents[j].inclusion));
                    CHECK(fr_eq(&x, &b[1 + j]));
                }
                for (int j = 0; j < 8; j++) {
                    fr_from_u64(&x, seal_merkle_leaf_index(&p->exp_parents[j].inclusion));
                    CHECK(fr_eq(&x, &b[7 + j]));
                }
                fr_from_u64(&x, p->c_x.index);
                CHECK(fr_eq(&x, &b[15]) && fr_eq(&x, &b[16]) && fr_eq(&x, &b[17]));
            }
        }
        CHECK_ERR(vp_porep_public_inputs(in, &c1.cfg, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed,
                                         c1.partitions, NULL),
                  CUZK_E_INVAL);
        cz_free(in);
        vp_c1_clear(&c1);
    }
}
