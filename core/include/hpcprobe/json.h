/* Minimal streaming JSON writer: builds one document in a growable buffer. */
#ifndef HPCPROBE_JSON_H
#define HPCPROBE_JSON_H
#include <stddef.h>
#include <stdint.h>

#define HPCP_JSON_MAX_DEPTH 32

struct hpcp_json {
    char *buf;   /* NUL-terminated text written so far (owned) */
    size_t len;
    size_t cap;
    int depth;
    int has_items[HPCP_JSON_MAX_DEPTH]; /* a comma is due before the next item */
    int failed;  /* out of memory or nesting too deep: the text is unusable */
};

void hpcp_json_init(struct hpcp_json *j);
void hpcp_json_free(struct hpcp_json *j);

/* Each writer takes `key`: the member name inside an object, NULL inside an
 * array or at top level. Strings are escaped; non-finite doubles become null. */
void hpcp_json_begin_object(struct hpcp_json *j, const char *key);
void hpcp_json_end_object(struct hpcp_json *j);
void hpcp_json_begin_array(struct hpcp_json *j, const char *key);
void hpcp_json_end_array(struct hpcp_json *j);
void hpcp_json_string(struct hpcp_json *j, const char *key, const char *value);
void hpcp_json_int(struct hpcp_json *j, const char *key, long long value);
void hpcp_json_uint(struct hpcp_json *j, const char *key, uint64_t value);
void hpcp_json_double(struct hpcp_json *j, const char *key, double value);
void hpcp_json_bool(struct hpcp_json *j, const char *key, int value);
void hpcp_json_null(struct hpcp_json *j, const char *key);
/* Insert `raw`, already valid JSON (caller checked), as one value. */
void hpcp_json_raw(struct hpcp_json *j, const char *key, const char *raw);

/* 1 if `text` is a JSON array of strings (the only shape we accept from the
 * environment), else 0. */
int hpcp_json_is_string_array(const char *text);

#endif
