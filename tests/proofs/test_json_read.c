/* test_json_read.c - the walkers of proofs/'s JSON reader (json_read.c). vp_jr_fields: each
 * listed key read once through its function, unknown keys skipped (with and without a path
 * segment), duplicate and missing keys reported in both wordings, the first error of a read
 * function returned as it is with the path naming the key. vp_jr_elements: each element read
 * in order under its path segment ("[i]", "[<entry> i]" or none), the count checked against
 * `want` at both ends, an element's first error returned as it is. Messages are compared whole.
 */
#include "harness/test.h"

#include <stddef.h>

#include "proofs/internal.h"

typedef struct rec {
    uint32_t a;
    uint64_t b;
    uint8_t n[32];
    uint32_t x;
    unsigned nulls; /* VP_JF_REPEAT values read */
} rec;

static cuzk_err jf_nulls(vp_jr *r, void *dst, void *ctx)
{
    (void)ctx;
    ((rec *)dst)->nulls++;
    return vp_jr_null(r);
}

static cuzk_err jf_refuse(vp_jr *r, void *dst, void *ctx)
{
    (void)dst;
    (void)ctx;
    return vp_jr_fail(r, "refused");
}

static cuzk_err jf_nomem(vp_jr *r, void *dst, void *ctx)
{
    (void)dst;
    (void)ctx;
    return cz_fail(r->dg, CUZK_E_NOMEM, "no room");
}

/* The inner object, in the Merkle reader's words: unknown keys skipped without a segment. */
static const vp_jfield INNER_FIELDS[] = {
    {"x", vp_jf_u32, offsetof(rec, x), VP_JF_REQUIRED},
};
static const vp_jtable INNER = {INNER_FIELDS, ARRAY_LEN(INNER_FIELDS), VP_JR_KEYS,
                                VP_JR_SKIP_QUIET};

/* ctx counts the inner objects read. */
static cuzk_err jf_inner(vp_jr *r, void *dst, void *ctx)
{
    ++*(unsigned *)ctx;
    return vp_jr_fields(r, &INNER, dst, ctx, NULL);
}

enum { F_A, F_B, F_N, F_INNER, F_H, F_BAD, F_NOMEM };
static const vp_jfield OUTER_FIELDS[] = {
    [F_A] = {"a", vp_jf_u32, offsetof(rec, a), VP_JF_REQUIRED},
    [F_B] = {"b", vp_jf_u64, offsetof(rec, b), 0},
    [F_N] = {"n", vp_jf_node, offsetof(rec, n), 0},
    [F_INNER] = {"inner", jf_inner, 0, 0},
    [F_H] = {"h", jf_nulls, 0, VP_JF_REPEAT},
    [F_BAD] = {"bad", jf_refuse, 0, 0},
    [F_NOMEM] = {"nomem", jf_nomem, 0, 0},
};
static const vp_jtable OUTER = {OUTER_FIELDS, ARRAY_LEN(OUTER_FIELDS), VP_JR_SERDE, VP_JR_SKIP};

/* Reads json through OUTER at the top level (path "" or "top") into *out. */
static cuzk_err read_rec(const char *json, const char *path, rec *out, unsigned *seen,
                         unsigned *ninner, cz_diag *dg)
{
    vp_jr r;

    memset(out, 0, sizeof(*out));
    *ninner = 0;
    vp_jr_init(&r, "T", json, strlen(json), dg);
    size_t m = vp_path_push(&r.path, "%s", path);
    cuzk_err err = vp_jr_fields(&r, &OUTER, out, ninner, seen);
    if (err == CUZK_OK) {
        CHECK_EQ_U64(r.path.len, m + strlen(path)); /* every segment popped */
        CHECK_EQ_U64(r.depth, 0);
        err = vp_jr_end(&r);
    }
    return err;
}

static void expect(const char *json, const char *path, cuzk_err code, const char *msg)
{
    rec v;
    unsigned seen = 0xdead, ninner;
    cz_diag dg;

    cz_diag_init(&dg);
    CHECK_ERR(read_rec(json, path, &v, &seen, &ninner, &dg), code);
    CHECK_MSG(strcmp(dg.msg, msg) == 0, "%s: message \"%s\", expected \"%s\"", json, dg.msg, msg);
    CHECK_EQ_U64(seen, 0xdead); /* left alone on failure */
}

TEST(json_fields_read)
{
    rec v;
    unsigned seen, ninner;

    CHECK_OK(read_rec("{\"h\":null, \"zz\":[1,{\"q\":[]}],\"b\":7,\"a\":5,\"h\":null,"
                      "\"inner\":{\"y\":{},\"x\":3}}",
                      "", &v, &seen, &ninner, NULL));
    CHECK_EQ_U64(v.a, 5);
    CHECK_EQ_U64(v.b, 7);
    CHECK_EQ_U64(v.x, 3);
    CHECK_EQ_U64(v.nulls, 2);
    CHECK_EQ_U64(ninner, 1);
    CHECK_EQ_U64(seen, 1u << F_A | 1u << F_B | 1u << F_INNER | 1u << F_H);
    /* the least: the required key; *seen may be NULL */
    CHECK_OK(read_rec(" { \"a\" : 0 } ", "top", &v, &seen, &ninner, NULL));
    CHECK_EQ_U64(seen, 1u << F_A);
    CHECK_OK(read_rec("{\"a\":1}", "", &v, NULL, &ninner, NULL));
    /* a key longer than VP_JR_KEY_MAX matches no field, however it starts */
    CHECK_OK(read_rec("{\"a\":1,\"b_______________________________________________\":\"x\"}", "",
                      &v, &seen, &ninner, NULL));
    CHECK_EQ_U64(seen, 1u << F_A);
}

TEST(json_fields_missing)
{
    expect("{}", "", CUZK_E_FORMAT, "T: missing field \"a\" (at byte 2)");
    expect("{\"b\":1}", "top", CUZK_E_FORMAT, "T: top: missing field \"a\" (at byte 7)");
    /* the first required key absent, in table order; the inner object in the other words */
    expect("{\"inner\":{\"y\":1}, \"a\":1}", "", CUZK_E_FORMAT,
           "T: inner: missing \"x\" (at byte 16)");
}

TEST(json_fields_duplicate)
{
    /* named at the object, before the second value is read (which is not even a number) */
    expect("{\"a\":1,\"a\":\"x\"}", "", CUZK_E_FORMAT, "T: duplicate field \"a\" (at byte 11)");
    expect("{\"a\":1,\"b\":1,\"b\":2}", "top", CUZK_E_FORMAT,
           "T: top: duplicate field \"b\" (at byte 17)");
    expect("{\"a\":1,\"inner\":{\"x\":1,\"x\":1}}", "", CUZK_E_FORMAT,
           "T: inner: duplicate key \"x\" (at byte 26)");
    /* an unknown key may repeat */
    rec v;
    unsigned seen, ninner;
    CHECK_OK(read_rec("{\"q\":1,\"a\":1,\"q\":2}", "", &v, &seen, &ninner, NULL));
}

TEST(json_fields_unknown)
{
    /* VP_JR_SKIP: a bad value under an unknown key is named by the key */
    expect("{\"a\":1,\"zz\":[1,}", "", CUZK_E_FORMAT,
           "T: zz: expected a value, found an invalid character (at byte 15)");
    expect("{\"a\":1,\"zz\":{\"k\" 1}}", "top", CUZK_E_FORMAT,
           "T: top.zz: expected ':' after a key, found a number (at byte 17)");
    /* VP_JR_SKIP_QUIET: the path stays at the object */
    expect("{\"a\":1,\"inner\":{\"zz\":[1,}}", "", CUZK_E_FORMAT,
           "T: inner: expected a value, found an invalid character (at byte 24)");
}

TEST(json_fields_read_errors)
{
    /* a read function's error comes back as it is, under the key's path */
    expect("{\"a\":1,\"bad\":0}", "", CUZK_E_FORMAT, "T: bad: refused (at byte 13)");
    expect("{\"bad\":0}", "top", CUZK_E_FORMAT, "T: top.bad: refused (at byte 7)");
    expect("{\"nomem\":0,\"a\":1}", "", CUZK_E_NOMEM, "no room");
    expect("{\"a\":\"1\"}", "", CUZK_E_FORMAT,
           "T: a: expected a non-negative integer, found a string (at byte 5)");
    expect("{\"a\":4294967296}", "", CUZK_E_FORMAT,
           "T: a: integer 4294967296 does not fit in 32 bits (at byte 15)");
    expect("{\"a\":1,\"n\":[1]}", "", CUZK_E_FORMAT,
           "T: n: expected 32 bytes, found 1 (at byte 14)");
    expect("{\"a\":1,\"inner\":{\"x\":-1}}", "top", CUZK_E_FORMAT,
           "T: top.inner.x: expected a non-negative integer, found a number (at byte 20)");
    expect("{\"a\":1,\"h\":null,\"h\":0}", "", CUZK_E_FORMAT,
           "T: h: expected null, found a number (at byte 20)");
}

TEST(json_fields_syntax)
{
    expect("[]", "", CUZK_E_FORMAT, "T: expected an object, found an array (at byte 0)");
    expect("", "", CUZK_E_FORMAT, "T: expected an object, found end of input (at byte 0)");
    expect("{\"a\":1", "", CUZK_E_FORMAT,
           "T: expected ',' or '}' in an object, found end of input (at byte 6)");
    expect("{\"a\":1,}", "", CUZK_E_FORMAT, "T: trailing ',' in an object (at byte 7)");
    expect("{a:1}", "", CUZK_E_FORMAT, "T: expected a key, found an invalid character (at byte 1)");
}

/* ---- vp_jr_elements ---------------------------------------------------------------------- */

/* vp_jelem_fn: element i is a u32 into dst[i]; ctx counts the calls; 13 fails with E_NOMEM. */
static cuzk_err je_u32(vp_jr *r, size_t i, void *dst, void *ctx)
{
    uint32_t *v = &((uint32_t *)dst)[i];
    cuzk_err err;

    ++*(unsigned *)ctx;
    if ((err = vp_jr_u32(r, v)) == CUZK_OK && *v == 13) {
        err = cz_fail(r->dg, CUZK_E_NOMEM, "unlucky %zu", i);
    }
    return err;
}

static const vp_jarray NUMS = {je_u32, "numbers", NULL, false};
static const vp_jarray NUMS_ENTRY = {je_u32, "numbers", "num", false};
static const vp_jarray NUMS_UNNAMED = {je_u32, "numbers", NULL, true};

typedef struct elems_run {
    uint32_t v[8];
    size_t count;
    unsigned calls;
    cz_diag dg;
} elems_run;

/* Reads json through a (at most 8 elements) under the path "top" into *out; a success is
 * checked to leave the path and the depth as they were and to be all of the input. */
static cuzk_err read_elems(const char *json, const vp_jarray *a, size_t want, elems_run *out)
{
    vp_jr r;

    memset(out, 0, sizeof(*out));
    out->count = 0xdead;
    cz_diag_init(&out->dg);
    vp_jr_init(&r, "T", json, strlen(json), &out->dg);
    size_t m = vp_path_push(&r.path, "top");
    cuzk_err err = vp_jr_elements(&r, a, want, out->v, &out->calls, &out->count);
    if (err == CUZK_OK) {
        CHECK_EQ_U64(r.path.len, m + 3); /* every segment popped */
        CHECK_EQ_U64(r.depth, 0);
        err = vp_jr_end(&r);
    }
    return err;
}

static void expect_elems(const char *json, const vp_jarray *a, size_t want, cuzk_err code,
                         const char *msg, size_t count)
{
    elems_run e;

    CHECK_ERR(read_elems(json, a, want, &e), code);
    CHECK_MSG(strcmp(e.dg.msg, msg) == 0, "%s: message \"%s\", expected \"%s\"", json, e.dg.msg,
              msg);
    CHECK_EQ_U64(e.count, count);
}

TEST(json_elements_read)
{
    elems_run e;

    CHECK_OK(read_elems(" [ 4 , 5,6 ] ", &NUMS, 3, &e));
    CHECK_EQ_U64(e.count, 3);
    CHECK_EQ_U64(e.calls, 3);
    CHECK_EQ_U64(e.v[0], 4);
    CHECK_EQ_U64(e.v[1], 5);
    CHECK_EQ_U64(e.v[2], 6);
    CHECK_OK(read_elems("[7,8]", &NUMS_ENTRY, VP_JR_ANY, &e));
    CHECK_EQ_U64(e.count, 2);
    CHECK_EQ_U64(e.v[1], 8);
    /* the empty array, of any length or of none */
    CHECK_OK(read_elems("[]", &NUMS, VP_JR_ANY, &e));
    CHECK_EQ_U64(e.count, 0);
    CHECK_EQ_U64(e.calls, 0);
    CHECK_OK(read_elems(" [ ] ", &NUMS_UNNAMED, 0, &e));
    CHECK_EQ_U64(e.count, 0);
}

TEST(json_elements_count)
{
    /* one too many: at the array's path, before the element is read (which is not a number) */
    expect_elems("[1,2,\"x\"]", &NUMS, 2, CUZK_E_FORMAT,
                 "T: top: expected 2 numbers, found more (at byte 5)", 2);
    expect_elems("[1]", &NUMS_ENTRY, 0, CUZK_E_FORMAT,
                 "T: top: expected 0 numbers, found more (at byte 1)", 0);
    /* too few: at the closing ']' */
    expect_elems("[]", &NUMS, 2, CUZK_E_FORMAT, "T: top: expected 2 numbers, found 0 (at byte 2)",
                 0);
    expect_elems("[1, 2 ]", &NUMS_UNNAMED, 3, CUZK_E_FORMAT,
                 "T: top: expected 3 numbers, found 2 (at byte 7)", 2);
}

TEST(json_elements_errors)
{
    /* an element's error comes back as it is, under the element's segment */
    expect_elems("[1,\"x\"]", &NUMS, VP_JR_ANY, CUZK_E_FORMAT,
                 "T: top[1]: expected a non-negative integer, found a string (at byte 3)", 1);
    expect_elems("[1,2,4294967296]", &NUMS_ENTRY, 3, CUZK_E_FORMAT,
                 "T: top[num 2]: integer 4294967296 does not fit in 32 bits (at byte 15)", 2);
    expect_elems("[-1]", &NUMS_UNNAMED, 1, CUZK_E_FORMAT,
                 "T: top: expected a non-negative integer, found a number (at byte 1)", 0);
    expect_elems("[1,13,2]", &NUMS, 3, CUZK_E_NOMEM, "unlucky 1", 1);
    /* not an array, and broken ones */
    expect_elems("{}", &NUMS, VP_JR_ANY, CUZK_E_FORMAT,
                 "T: top: expected an array, found an object (at byte 0)", 0);
    expect_elems("", &NUMS, 1, CUZK_E_FORMAT,
                 "T: top: expected an array, found end of input (at byte 0)", 0);
    expect_elems("[1,]", &NUMS, VP_JR_ANY, CUZK_E_FORMAT,
                 "T: top: trailing ',' in an array (at byte 3)", 1);
    expect_elems("[1 2]", &NUMS, VP_JR_ANY, CUZK_E_FORMAT,
                 "T: top: expected ',' or ']' in an array, found a number (at byte 3)", 1);
    expect_elems("[1", &NUMS, VP_JR_ANY, CUZK_E_FORMAT,
                 "T: top: expected ',' or ']' in an array, found end of input (at byte 2)", 1);
}
