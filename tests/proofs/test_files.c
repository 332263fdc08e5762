/* test_files.c - the files vanilla proofs travel in (files.c): JSON lists of base64 byte strings
 * (round trips, checked with jansson, an independent parser; malformed lists rejected naming the
 * entry), the vanilla-proof file (one raw bincode proof or such a list, told apart as cuzk-bench
 * always has), and the request sidecar (round trip, exact layout, malformed values named).
 */
#include "proofs_test_util.h"

#include <jansson.h>

#include "common/base64.h"

/* b gets n entries of lengths 0, 1, 2, ...; entry i holds bytes i * 37 + j. */
static void make_blobs(vp_blobs *b, size_t n)
{
    memset(b, 0, sizeof(*b));
    for (size_t i = 0; i < n; i++) {
        uint8_t *d = cz_malloc(i ? i : 1);
        CHECK(d != NULL);
        for (size_t j = 0; j < i; j++) {
            d[j] = (uint8_t)(i * 37 + j);
        }
        CHECK_OK(vp_blobs_push(b, d, i, NULL));
    }
}

static void check_blobs_equal(const vp_blobs *a, const vp_blobs *b)
{
    CHECK_EQ_U64(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        CHECK_EQ_U64(a->len[i], b->len[i]);
        CHECK_MEM_EQ(a->data[i], b->data[i], a->len[i]);
    }
}

TEST(blob_list_round_trip)
{
    for (size_t n = 0; n <= 9; n++) {
        vp_blobs b, back = {0};
        char *json;
        size_t len;
        json_error_t je;

        make_blobs(&b, n);
        CHECK_OK(vp_blobs_to_json(&b, &json, &len, NULL));
        CHECK_EQ_U64(strlen(json), len);
        /* jansson: an array of n strings, each the base64 of its entry */
        json_t *root = json_loadb(json, len, JSON_STRICT, &je);
        CHECK_MSG(root != NULL && json_is_array(root), "%s", je.text);
        CHECK_EQ_U64(json_array_size(root), n);
        for (size_t i = 0; i < n; i++) {
            const char *s = json_string_value(json_array_get(root, i));
            char want[64];
            CHECK(s != NULL);
            cz_base64_encode(want, b.data[i], b.len[i]);
            CHECK_STR_EQ(s, want);
        }
        json_decref(root);
        CHECK_OK(vp_blobs_from_json(&back, json, len, NULL));
        check_blobs_equal(&b, &back);
        /* appending keeps what was there */
        CHECK_OK(vp_blobs_from_json(&back, json, len, NULL));
        CHECK_EQ_U64(back.n, 2 * n);
        vp_blobs_clear(&back);
        CHECK_EQ_U64(back.n, 0);
        vp_blobs_clear(&b);
        cz_free(json);
    }
    /* the compact layout, and a list written by someone else (spaces, an escaped '/') */
    vp_blobs b, back = {0};
    char *json;
    make_blobs(&b, 3);
    CHECK_OK(vp_blobs_to_json(&b, &json, NULL, NULL));
    CHECK_STR_EQ(json, "[\"\",\"JQ==\",\"Sks=\"]");
    static const char other[] = " [ \"\" ,\n\t\"JQ==\", \"S\\u006bs=\" ] \n";
    CHECK_OK(vp_blobs_from_json(&back, other, strlen(other), NULL));
    check_blobs_equal(&b, &back);
    vp_blobs_clear(&back);
    CHECK_OK(vp_blobs_from_json(&back, "[\"\\/w==\"]", 9, NULL));
    CHECK_EQ_U64(back.n, 1);
    CHECK_EQ_U64(back.data[0][0], 0xff);
    vp_blobs_clear(&back);
    vp_blobs_clear(&b);
    cz_free(json);
}

TEST(blob_list_malformed)
{
    static const char *const bad[][2] = {
        {"", "JSON list: expected an array, found end of input"},
        {"{}", "expected an array, found an object"},
        {"[", "found end of input"},
        {"[1]", "JSON list: [0]: expected a string, found a number"},
        {"[\"AAAA\",]", "trailing ','"},
        {"[\"AAAA\" \"AAAA\"]", "expected ',' or ']' in an array"},
        {"[\"AAAA\"", "expected ',' or ']'"},
        {"[\"AAAA", "unterminated string"},
        {"[\"AAAA\",\"AA*A\"]", "JSON list: [1]: invalid base64: character '*' at offset 2"},
        {"[\"AAA\"]", "[0]: invalid base64: length 3 is not a multiple of 4"},
        {"[\"AA=A\"]", "[0]: invalid base64: padding '=' before the end at offset 2"},
        {"[\"AB==\"]", "[0]: invalid base64: non-zero bits below the last byte"},
        {"[\"AAAA\"] x", "trailing data after the JSON value"},
        {"[\"AAAA\"][]", "trailing data"},
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        vp_blobs b;
        make_blobs(&b, 2);
        CHECK_FORMAT_ERR(vp_blobs_from_json(&b, bad[i][0], strlen(bad[i][0]), &dg_), bad[i][1]);
        CHECK_EQ_U64(b.n, 2); /* untouched */
        vp_blobs_clear(&b);
    }
}

static const char *last_encoding;

/* Parses `file` as a vanilla-proof file into a fresh list. */
static cuzk_err parse_file(vp_blobs *out, const void *file, size_t len, cz_diag *dg)
{
    memset(out, 0, sizeof(*out));
    last_encoding = NULL;
    return vp_proof_file_parse(out, &last_encoding, file, len, dg);
}

TEST(proof_file_forms)
{
    vp_blobs b, back;
    uint8_t *bytes;
    size_t len;
    const char *enc;

    /* one proof: written raw, read back raw */
    make_blobs(&b, 2);
    vp_blobs one = {1, &b.data[1], &b.len[1]};
    CHECK_OK(vp_proof_file_encode(&one, &bytes, &len, &enc, NULL));
    CHECK_STR_EQ(enc, "bincode");
    CHECK_EQ_U64(len, 1);
    CHECK_OK(parse_file(&back, bytes, len, NULL));
    CHECK_STR_EQ(last_encoding, "bincode");
    check_blobs_equal(&one, &back);
    vp_blobs_clear(&back);
    cz_free(bytes);
    /* several: written as a list, read back as entries */
    vp_blobs_clear(&b);
    make_blobs(&b, 4);
    CHECK_OK(vp_proof_file_encode(&b, &bytes, &len, &enc, NULL));
    CHECK_STR_EQ(enc, "base64-list");
    CHECK_EQ_U64(bytes[0], '[');
    CHECK_OK(parse_file(&back, bytes, len, NULL));
    CHECK_STR_EQ(last_encoding, "base64-list");
    check_blobs_equal(&b, &back);
    vp_blobs_clear(&back);
    cz_free(bytes);
    vp_blobs_clear(&b);

    /* binary that starts with '[' (and even parses a little) is one raw proof */
    static const uint8_t raw[] = {'[', '"', 'A', 'A', 'A', 'A', '"', 0x00, 0x01, 0xff};
    CHECK_OK(parse_file(&back, raw, sizeof(raw), NULL));
    CHECK_STR_EQ(last_encoding, "bincode");
    CHECK_EQ_U64(back.n, 1);
    CHECK_EQ_U64(back.len[0], sizeof(raw));
    CHECK_MEM_EQ(back.data[0], raw, sizeof(raw));
    vp_blobs_clear(&back);
    /* so is text that does not start with '[' (its decoder will complain) */
    CHECK_OK(parse_file(&back, "{\"a\":1}", 7, NULL));
    CHECK_EQ_U64(back.n, 1);
    vp_blobs_clear(&back);
    /* text that starts with '[' must be a good list */
    CHECK_FORMAT_ERR(parse_file(&back, "  [\"AAA*\"]\n", 11, &dg_),
                     "not a JSON list of base64 proofs: [0]: invalid base64: character '*'");
    CHECK_EQ_U64(back.n, 0);
    CHECK_FORMAT_ERR(parse_file(&back, "[]", 2, &dg_),
                     "not a JSON list of base64 proofs: the list holds no proof");
    CHECK_FORMAT_ERR(parse_file(&back, "[\"AAAA\"", 7, &dg_), "not a JSON list of base64 proofs");
    CHECK_FORMAT_ERR(parse_file(&back, "", 0, &dg_), "empty file");
}

TEST(sidecar_round_trip)
{
    vp_sidecar sc, back;
    char *json;
    size_t len;
    json_error_t je;

    memset(&sc, 0, sizeof(sc));
    strcpy(sc.kind, "window-post");
    sc.vanilla = "dir/w \"x\".bin"; /* escaped when written */
    sc.encoding = "base64-list";
    sc.proofs = 2;
    sc.seed_hex = "00ff";
    sc.sector_size = 2048;
    sc.registered_proof = 10;
    sc.miner_id = 1000;
    sc.sector_number = 7;
    sc.partition_index = 3;
    sc.has_sector_size = sc.has_registered_proof = sc.has_miner_id = sc.has_sector_number = true;
    sc.has_partition_index = sc.has_randomness = sc.has_comm_r = true;
    for (int i = 0; i < 32; i++) {
        sc.randomness[i] = (uint8_t)i;
        sc.comm_r[i] = (uint8_t)(0xa0 + i);
    }
    CHECK_OK(vp_sidecar_to_json(&sc, &json, &len, NULL));
    CHECK_STR_EQ(json, "{\n"
                       "  \"format\": \"cuzk-bench-vanilla/1\",\n"
                       "  \"kind\": \"window-post\",\n"
                       "  \"vanilla\": \"dir/w \\\"x\\\".bin\",\n"
                       "  \"encoding\": \"base64-list\",\n"
                       "  \"proofs\": 2,\n"
                       "  \"seed_hex\": \"00ff\",\n"
                       "  \"sector_size\": 2048,\n"
                       "  \"registered_proof\": 10,\n"
                       "  \"miner_id\": 1000,\n"
                       "  \"sector_number\": 7,\n"
                       "  \"partition_index\": 3,\n"
                       "  \"randomness\": "
                       "\"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\",\n"
                       "  \"comm_r\": "
                       "\"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf\"\n"
                       "}\n");
    json_t *root = json_loadb(json, len, JSON_STRICT, &je);
    CHECK_MSG(root != NULL, "%s", je.text);
    CHECK_STR_EQ(json_string_value(json_object_get(root, "vanilla")), sc.vanilla);
    json_decref(root);
    CHECK_OK(vp_sidecar_from_json(&back, json, len, NULL));
    CHECK_STR_EQ(back.kind, "window-post");
    CHECK(back.has_sector_size && back.sector_size == 2048);
    CHECK(back.has_registered_proof && back.registered_proof == 10);
    CHECK(back.has_miner_id && back.miner_id == 1000);
    CHECK(back.has_sector_number && back.sector_number == 7);
    CHECK(back.has_partition_index && back.partition_index == 3);
    CHECK(back.has_randomness);
    CHECK_MEM_EQ(back.randomness, sc.randomness, 32);
    CHECK(!back.has_comm_r_old && !back.has_comm_r_new && !back.has_comm_d_new);
    CHECK(back.vanilla == NULL && !back.has_comm_r); /* for people: not read */
    cz_free(json);

    /* snap and porep fields, in their places */
    memset(&sc, 0, sizeof(sc));
    sc.has_comm_r_old = sc.has_comm_d_new = sc.has_c1_values = true;
    sc.comm_r_old[0] = 1;
    sc.comm_d_new[31] = 2;
    CHECK_OK(vp_sidecar_to_json(&sc, &json, &len, NULL));
    const char *o = strstr(json, "\"comm_r_old\": \"01"), *d = strstr(json, "\"comm_d_new\"");
    const char *t = strstr(json, "\"ticket\"");
    CHECK(o && d && t && o < d && d < t);
    CHECK(strstr(json, "comm_r_new") == NULL && strstr(json, "\"kind\"") == NULL);
    CHECK_OK(vp_sidecar_from_json(&back, json, len, NULL));
    CHECK(back.has_comm_r_old && back.has_comm_d_new && !back.has_comm_r_new);
    CHECK_EQ_U64(back.comm_d_new[31], 2);
    CHECK_STR_EQ(back.kind, "");
    cz_free(json);

    /* a sidecar by hand: any order, 0x prefixes, unknown keys of any type */
    static const char hand[] = "{\"x\":[1,{\"y\":null}],\"comm_r_new\":\"0X" /* upper-case prefix */
                               "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00\","
                               "\"miner_id\":5,\"t\":true}";
    CHECK_OK(vp_sidecar_from_json(&back, hand, strlen(hand), NULL));
    CHECK(back.has_comm_r_new && back.comm_r_new[0] == 0xff && back.comm_r_new[31] == 0);
    CHECK(back.has_miner_id && back.miner_id == 5 && !back.has_sector_size);
}

TEST(sidecar_malformed)
{
    static const char *const bad[][2] = {
        {"[]", "sidecar: expected an object"},
        {"{\"miner_id\":\"5\"}", "sidecar: miner_id: expected a non-negative integer"},
        {"{\"miner_id\":-1}", "miner_id: expected a non-negative integer"},
        {"{\"sector_size\":2048.5}", "sector_size: expected an integer, found a fraction"},
        {"{\"partition_index\":4294967296}", "partition_index: integer 4294967296 does not fit"},
        {"{\"randomness\":\"00\"}", "randomness: expected 64 hex digits (32 bytes)"},
        {"{\"randomness\":7}", "randomness: expected a string"},
        {"{\"comm_d_new\":\"0x0g00000000000000000000000000000000000000000000000000000000000000\"}",
         "comm_d_new: expected 64 hex digits"},
        {"{\"kind\":\"window-post-and-more\"}", "kind: not a proof kind"},
        {"{\"kind\":1}", "kind: expected a string"},
        {"{\"miner_id\":1,\"miner_id\":2}", "sidecar: duplicate field \"miner_id\""},
        {"{\"miner_id\":1", "expected ',' or '}'"},
        {"{\"miner_id\":1} {}", "trailing data"},
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        vp_sidecar sc;
        memset(&sc, 0x5a, sizeof(sc));
        CHECK_FORMAT_ERR(vp_sidecar_from_json(&sc, bad[i][0], strlen(bad[i][0]), &dg_), bad[i][1]);
        CHECK(!sc.has_miner_id && sc.kind[0] == 0); /* zeroed */
    }
}
