/* Streaming JSON writer (json.h). Only what records need: no parsing. */
#include "hpcprobe/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hpcp_json_init(struct hpcp_json *j)
{
    memset(j, 0, sizeof *j);
}

void hpcp_json_free(struct hpcp_json *j)
{
    free(j->buf);
    memset(j, 0, sizeof *j);
}

static void put(struct hpcp_json *j, const char *s, size_t n)
{
    if (j->failed)
        return;
    if (j->len + n + 1 > j->cap) {
        size_t cap = j->cap ? j->cap : 1024;
        while (cap < j->len + n + 1)
            cap *= 2;
        char *p = realloc(j->buf, cap);
        if (!p) {
            j->failed = 1;
            return;
        }
        j->buf = p;
        j->cap = cap;
    }
    memcpy(j->buf + j->len, s, n);
    j->len += n;
    j->buf[j->len] = '\0';
}

static void puts_(struct hpcp_json *j, const char *s)
{
    put(j, s, strlen(s));
}

static void put_escaped(struct hpcp_json *j, const char *s)
{
    put(j, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            put(j, esc, 2);
        } else if (*p == '\n' || *p == '\t' || *p == '\r') {
            esc[0] = '\\';
            esc[1] = *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r';
            put(j, esc, 2);
        } else if (*p < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            puts_(j, esc);
        } else {
            put(j, (const char *)p, 1);
        }
    }
    put(j, "\"", 1);
}

/* Comma and member name before any value. */
static void begin_item(struct hpcp_json *j, const char *key)
{
    if (j->depth > 0 && j->has_items[j->depth - 1])
        put(j, ",", 1);
    if (j->depth > 0)
        j->has_items[j->depth - 1] = 1;
    if (key) {
        put_escaped(j, key);
        put(j, ":", 1);
    }
}

static void open_(struct hpcp_json *j, const char *key, const char *bracket)
{
    begin_item(j, key);
    puts_(j, bracket);
    if (j->depth >= HPCP_JSON_MAX_DEPTH) {
        j->failed = 1;
        return;
    }
    j->has_items[j->depth++] = 0;
}

static void close_(struct hpcp_json *j, const char *bracket)
{
    if (j->depth > 0)
        j->depth--;
    puts_(j, bracket);
}

void hpcp_json_begin_object(struct hpcp_json *j, const char *key)
{
    open_(j, key, "{");
}
void hpcp_json_end_object(struct hpcp_json *j)
{
    close_(j, "}");
}
void hpcp_json_begin_array(struct hpcp_json *j, const char *key)
{
    open_(j, key, "[");
}
void hpcp_json_end_array(struct hpcp_json *j)
{
    close_(j, "]");
}

void hpcp_json_string(struct hpcp_json *j, const char *key, const char *value)
{
    begin_item(j, key);
    if (value)
        put_escaped(j, value);
    else
        puts_(j, "null");
}

void hpcp_json_int(struct hpcp_json *j, const char *key, long long value)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", value);
    begin_item(j, key);
    puts_(j, b);
}

void hpcp_json_uint(struct hpcp_json *j, const char *key, uint64_t value)
{
    char b[32];
    snprintf(b, sizeof b, "%llu", (unsigned long long)value);
    begin_item(j, key);
    puts_(j, b);
}

void hpcp_json_double(struct hpcp_json *j, const char *key, double value)
{
    char b[40];
    begin_item(j, key);
    if (!isfinite(value)) {
        puts_(j, "null");
        return;
    }
    /* 17 significant digits round-trip every double exactly. */
    snprintf(b, sizeof b, "%.17g", value);
    puts_(j, b);
    if (!strpbrk(b, ".eEn"))
        puts_(j, ".0");
}

void hpcp_json_bool(struct hpcp_json *j, const char *key, int value)
{
    begin_item(j, key);
    puts_(j, value ? "true" : "false");
}

void hpcp_json_null(struct hpcp_json *j, const char *key)
{
    begin_item(j, key);
    puts_(j, "null");
}

void hpcp_json_raw(struct hpcp_json *j, const char *key, const char *raw)
{
    begin_item(j, key);
    puts_(j, raw);
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* Past one JSON string starting at p ('"'), or NULL if malformed. */
static const char *skip_string(const char *p)
{
    if (*p++ != '"')
        return NULL;
    while (*p && *p != '"') {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int k = 1; k <= 4; k++)
                    if (!strchr("0123456789abcdefABCDEF", p[k]) || !p[k])
                        return NULL;
                p += 4;
            } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
                return NULL;
            }
        }
        p++;
    }
    return *p == '"' ? p + 1 : NULL;
}

int hpcp_json_is_string_array(const char *text)
{
    const char *p = skip_ws(text);
    if (*p++ != '[')
        return 0;
    p = skip_ws(p);
    if (*p == ']')
        return *skip_ws(p + 1) == '\0';
    for (;;) {
        p = skip_string(skip_ws(p));
        if (!p)
            return 0;
        p = skip_ws(p);
        if (*p == ']')
            return *skip_ws(p + 1) == '\0';
        if (*p++ != ',')
            return 0;
    }
}
