/* Declarative option parsing (options.h): "--name value" or "--name=value". */
#include "hpcprobe/options.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hpcp_opt_index(const struct hpcp_optspec *spec, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(spec[i].name, name) == 0)
            return i;
    return -1;
}

static void unknown_option(const struct hpcp_optspec *spec, int n, const char *name,
                           const char *context, char *err, size_t errlen)
{
    const char *names[64];
    int m = n < 64 ? n : 64;
    for (int i = 0; i < m; i++)
        names[i] = spec[i].name;
    const char *s = hpcp_suggest(name, names, m);
    if (s)
        snprintf(err, errlen, "unknown option '%s' for '%s'; did you mean '%s'?", name, context, s);
    else
        snprintf(err, errlen, "unknown option '%s' for '%s' (see docs/cli.md for the options)",
                 name, context);
}

static int parse_int(const struct hpcp_optspec *o, const char *text, struct hpcp_optval *v,
                     char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long long x = strtoll(text, &end, 10);
    if (errno || *end || end == text || x < o->int_min || x > o->int_max) {
        snprintf(err, errlen, "%s: '%s' is not allowed (an integer from %lld to %lld)", o->name,
                 text, o->int_min, o->int_max);
        return -1;
    }
    v->i = x;
    return 0;
}

static int parse_double(const struct hpcp_optspec *o, const char *text, struct hpcp_optval *v,
                        char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double x = strtod(text, &end);
    int low_open = o->min_open & HPCP_OPEN_MIN, high_open = o->min_open & HPCP_OPEN_MAX;
    int low_ok = low_open ? x > o->dbl_min : x >= o->dbl_min;
    int high_ok = high_open ? x < o->dbl_max : x <= o->dbl_max;
    if (errno || *end || end == text || !isfinite(x) || !low_ok || !high_ok) {
        snprintf(err, errlen, "%s: '%s' is not allowed (a number %s %g and %s %g)", o->name, text,
                 low_open ? ">" : ">=", o->dbl_min, high_open ? "<" : "<=", o->dbl_max);
        return -1;
    }
    v->d = x;
    return 0;
}

static int parse_choice(const struct hpcp_optspec *o, const char *text, struct hpcp_optval *v,
                        char *err, size_t errlen)
{
    size_t n = strlen(text);
    for (const char *c = o->choices; *c;) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len == n && strncmp(c, text, n) == 0) {
            v->s = text;
            return 0;
        }
        c += len + (bar != NULL);
    }
    snprintf(err, errlen, "%s: '%s' is not allowed (one of %s)", o->name, text, o->choices);
    return -1;
}

/* Lists and grids are checked here and counted into v->i; the family reads
 * the items from v->s with the same parser when it needs them. */
static int parse_value(const struct hpcp_optspec *o, const char *text, struct hpcp_optval *v,
                       char *err, size_t errlen)
{
    uint64_t bytes = 0;
    int n = 0, rc = 0;
    v->s = text;
    switch (o->kind) {
    case HPCP_OPT_INT: return parse_int(o, text, v, err, errlen);
    case HPCP_OPT_DOUBLE: return parse_double(o, text, v, err, errlen);
    case HPCP_OPT_CHOICE: return parse_choice(o, text, v, err, errlen);
    case HPCP_OPT_BYTES:
        rc = hpcp_parse_size(o, text, &bytes, err, errlen);
        v->i = (long long)bytes;
        return rc;
    case HPCP_OPT_SIZES: rc = hpcp_parse_sizes(o, text, NULL, &n, err, errlen); break;
    case HPCP_OPT_LIST: rc = hpcp_parse_list(o, text, NULL, &n, err, errlen); break;
    case HPCP_OPT_GRID: rc = hpcp_parse_grid(o, text, NULL, &n, err, errlen); break;
    default: return 0;
    }
    v->i = n;
    return rc;
}

int hpcp_parse_options(int argc, char **argv, const struct hpcp_optspec *spec, int n,
                       struct hpcp_optval *vals, const char *context, char *err, size_t errlen)
{
    memset(vals, 0, (size_t)n * sizeof *vals);
    for (int a = 0; a < argc; a++) {
        char name[64];
        const char *arg = argv[a], *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (strncmp(arg, "--", 2) != 0 || len >= sizeof name) {
            snprintf(err, errlen, "unexpected argument '%s' for '%s' (options start with --)", arg,
                     context);
            return -1;
        }
        memcpy(name, arg, len);
        name[len] = '\0';
        int i = hpcp_opt_index(spec, n, name);
        if (i < 0) {
            unknown_option(spec, n, name, context, err, errlen);
            return -1;
        }
        vals[i].set = 1;
        if (spec[i].kind == HPCP_OPT_FLAG) {
            if (eq) {
                snprintf(err, errlen, "%s takes no value", name);
                return -1;
            }
            continue;
        }
        const char *text = eq ? eq + 1 : (a + 1 < argc ? argv[++a] : NULL);
        if (!text) {
            snprintf(err, errlen, "%s needs a value", name);
            return -1;
        }
        if (parse_value(&spec[i], text, &vals[i], err, errlen))
            return -1;
    }
    return 0;
}
