/* `hpcprobe-bench describe --json`: every family, kernel and option from
 * the data the parsers use (each kernel's struct hpcp_options_desc, the
 * harness's common options) and what each kernel records. The document's
 * shape is schema/describe-v1.json; Python builds its parsers from it. */
#include <stdio.h>
#include <string.h>

#include "hpcprobe/harness.h"
#include "hpcprobe/json.h"
#include "hpcprobe/kernel.h"
#include "hpcprobe/sysinfo.h"

#define DESCRIBE_VERSION "1.1" /* 1.x adds members only; a change of meaning is 2.0 */
#define MAX_OPTIONS 96
#define MAX_TAKERS 64

/* One option of a family, merged by name over its kernels (gpu's kernels
 * each parse their own table; --device is one option of the family). Each
 * taker keeps its own spec and table: where its default or limits differ
 * from the family's (the first table's), its kernel says so. */
struct merged {
    const struct hpcp_optspec *spec;
    const struct hpcp_cli *cli; /* the first table it came from: the family defaults */
    int common;                 /* HPCP_COMMON_* or -1 */
    const struct hpcp_kernel *takers[MAX_TAKERS];
    const struct hpcp_optspec *taker_spec[MAX_TAKERS];
    const struct hpcp_cli *taker_cli[MAX_TAKERS];
    int ntakers;
};

struct family {
    const char *name;
    struct merged opt[MAX_OPTIONS];
    int n;
};

static int kernel_takes(const struct hpcp_kernel *k, int i)
{
    return !k->options->takes || k->options->takes(k, i);
}

static void add_taker(struct family *f, const struct hpcp_optspec *spec, const struct hpcp_cli *cli,
                      int common, const struct hpcp_kernel *k)
{
    int i = 0;
    while (i < f->n && strcmp(f->opt[i].spec->name, spec->name) != 0)
        i++;
    if (i == f->n) {
        if (f->n == MAX_OPTIONS)
            return;
        f->opt[f->n++] = (struct merged){spec, cli, common, {NULL}, {NULL}, {NULL}, 0};
    }
    struct merged *m = &f->opt[i];
    if (m->ntakers < MAX_TAKERS) {
        m->taker_spec[m->ntakers] = spec;
        m->taker_cli[m->ntakers] = cli;
        m->takers[m->ntakers++] = k;
    }
}

/* Every option each kernel of family `name` takes: own, then common. */
static void collect(struct family *f, const char *name)
{
    memset(f, 0, sizeof *f);
    f->name = name;
    for (int i = 0; i < hpcp_nkernels; i++) {
        const struct hpcp_kernel *k = hpcp_kernels[i];
        if (strcmp(k->family, name) != 0 || !k->options)
            continue;
        const struct hpcp_cli *cli = k->options->cli;
        for (int o = 0; o < cli->n; o++)
            if (kernel_takes(k, o))
                add_taker(f, &cli->spec[o], cli, -1, k);
        for (int o = 0; o < HPCP_COMMON_COUNT; o++)
            if ((cli->takes & HPCP_TAKES(o)) && kernel_takes(k, cli->n + o))
                add_taker(f, hpcp_common_spec(o), cli, o, k);
    }
}

static void kernel_id(const struct hpcp_kernel *k, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", k->variant, k->algorithm);
}

static void choices(struct hpcp_json *j, const char *text)
{
    if (!text) {
        hpcp_json_null(j, "choices");
        return;
    }
    hpcp_json_begin_array(j, "choices");
    for (const char *c = text; *c;) {
        char word[64];
        size_t len = strcspn(c, "|");
        snprintf(word, sizeof word, "%.*s", (int)len, c);
        hpcp_json_string(j, NULL, word);
        c += len + (c[len] == '|');
    }
    hpcp_json_end_array(j);
}

static int int_kind(const struct hpcp_optspec *s)
{
    return s->kind == HPCP_OPT_INT || s->kind == HPCP_OPT_BYTES || s->kind == HPCP_OPT_SIZES ||
           s->kind == HPCP_OPT_GRID;
}

/* min and max as the kind has them (null where it has none). */
static void bounds(struct hpcp_json *j, const struct hpcp_optspec *s, long long min)
{
    if (int_kind(s)) {
        hpcp_json_int(j, "min", min);
        hpcp_json_int(j, "max", s->int_max);
    } else if (s->kind == HPCP_OPT_DOUBLE) {
        hpcp_json_double(j, "min", s->dbl_min);
        hpcp_json_double(j, "max", s->dbl_max);
    } else if (s->kind == HPCP_OPT_LIST) {
        hpcp_json_int(j, "min", min); /* the fewest items: 0 allows "none" (1.1) */
        hpcp_json_null(j, "max");
    } else {
        hpcp_json_null(j, "min");
        hpcp_json_null(j, "max");
    }
}

/* min, max, whether they are excluded, count_max. */
static void limits(struct hpcp_json *j, const struct hpcp_optspec *s, long long min)
{
    int counted = s->kind == HPCP_OPT_SIZES || s->kind == HPCP_OPT_LIST || s->kind == HPCP_OPT_GRID;
    int dbl = s->kind == HPCP_OPT_DOUBLE;
    bounds(j, s, min);
    hpcp_json_bool(j, "min_exclusive", dbl && (s->min_open & HPCP_OPEN_MIN));
    hpcp_json_bool(j, "max_exclusive", dbl && (s->min_open & HPCP_OPEN_MAX));
    if (counted)
        hpcp_json_int(j, "count_max", s->count_max);
    else
        hpcp_json_null(j, "count_max");
}

/* An option's default and lower bound in one table (cli): a common option's
 * are the table's, an own option's its spec's. */
static const char *table_default(const struct hpcp_optspec *s, const struct hpcp_cli *c, int common,
                                 char *buf, size_t len, long long *min)
{
    *min = s->int_min;
    switch (common) {
    case HPCP_COMMON_REPEAT:
        *min = c->repeat_min ? c->repeat_min : 1;
        snprintf(buf, len, "%d", c->repeat_default ? c->repeat_default : 1);
        return buf;
    case HPCP_COMMON_WARMUP: snprintf(buf, len, "%d", c->warmup_default); return buf;
    case HPCP_COMMON_SEED:
        snprintf(buf, len, "%llu", (unsigned long long)c->seed_default);
        return buf;
    default: return s->default_text;
    }
}

static const char *family_default(const struct merged *m, char *buf, size_t len, long long *min)
{
    return table_default(m->spec, m->cli, m->common, buf, len, min);
}

/* A common option's help in its family's words, where the family gives them. */
static const char *option_help(const struct merged *m)
{
    const char *const *own = m->common >= 0 && m->cli ? m->cli->common_help : NULL;
    return own && own[m->common] ? own[m->common] : m->spec->help;
}

static void option(struct hpcp_json *j, const struct merged *m)
{
    const struct hpcp_optspec *s = m->spec;
    char buf[32], id[96];
    long long min;
    const char *dflt = family_default(m, buf, sizeof buf, &min);
    hpcp_json_begin_object(j, NULL);
    hpcp_json_string(j, "name", s->name);
    hpcp_json_string(j, "type", hpcp_opt_kind_name(s->kind));
    hpcp_json_string(j, "grammar", hpcp_opt_grammar(s->kind));
    hpcp_json_string(j, "default", s->kind == HPCP_OPT_FLAG ? "off" : dflt);
    hpcp_json_bool(j, "default_computed", s->kind != HPCP_OPT_FLAG && !dflt);
    limits(j, s, min);
    choices(j, s->kind == HPCP_OPT_CHOICE || s->kind == HPCP_OPT_LIST ? s->choices : NULL);
    hpcp_json_string(j, "help", option_help(m));
    hpcp_json_bool(j, "common", m->common >= 0);
    hpcp_json_begin_array(j, "kernels");
    for (int i = 0; i < m->ntakers; i++) {
        kernel_id(m->takers[i], id, sizeof id);
        hpcp_json_string(j, NULL, id);
    }
    hpcp_json_end_array(j);
    hpcp_json_end_object(j);
}

static void records(struct hpcp_json *j, const struct hpcp_records_desc *r)
{
    hpcp_json_begin_object(j, "records");
    hpcp_json_string(j, "headline", r ? r->headline : NULL);
    hpcp_json_begin_array(j, "metrics");
    for (const struct hpcp_metric_desc *m = r ? r->metrics : NULL; m && m->name; m++) {
        hpcp_json_begin_object(j, NULL);
        hpcp_json_string(j, "name", m->name);
        hpcp_json_string(j, "unit", m->unit);
        hpcp_json_string(j, "about", m->about);
        hpcp_json_end_object(j);
    }
    hpcp_json_end_array(j);
    hpcp_json_end_object(j);
}

static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Whether a kernel's own table gives option m another default or range than the
 * family's: gpu stream's --repeat is at least 2 (10 by default), copy's 1 (5). */
static int differs(const struct merged *m, const struct hpcp_optspec *s, const char *dflt,
                   long long min)
{
    char buf[32];
    long long fmin;
    const char *fdflt = family_default(m, buf, sizeof buf, &fmin);
    if (!same_text(dflt, fdflt) || s->kind != m->spec->kind)
        return 1;
    if (int_kind(s))
        return min != fmin || s->int_max != m->spec->int_max;
    return s->kind == HPCP_OPT_DOUBLE &&
           (s->dbl_min != m->spec->dbl_min || s->dbl_max != m->spec->dbl_max);
}

/* The options whose default or range differ for kernel k (1.1). */
static void option_defaults(struct hpcp_json *j, const struct family *f,
                            const struct hpcp_kernel *k)
{
    hpcp_json_begin_array(j, "option_defaults");
    for (int i = 0; i < f->n; i++)
        for (int t = 0; t < f->opt[i].ntakers; t++) {
            const struct merged *m = &f->opt[i];
            const struct hpcp_optspec *s = m->taker_spec[t];
            char buf[32];
            long long min;
            const char *dflt = table_default(s, m->taker_cli[t], m->common, buf, sizeof buf, &min);
            if (m->takers[t] != k || s->kind == HPCP_OPT_FLAG || !differs(m, s, dflt, min))
                continue;
            hpcp_json_begin_object(j, NULL);
            hpcp_json_string(j, "name", s->name);
            hpcp_json_string(j, "default", dflt);
            bounds(j, s, min);
            hpcp_json_end_object(j);
        }
    hpcp_json_end_array(j);
}

static void kernel(struct hpcp_json *j, const struct family *f, const struct hpcp_kernel *k)
{
    char id[96];
    kernel_id(k, id, sizeof id);
    hpcp_json_begin_object(j, NULL);
    hpcp_json_string(j, "id", id);
    hpcp_json_string(j, "variant", k->variant);
    hpcp_json_string(j, "algorithm", k->algorithm);
    hpcp_json_string(j, "summary", k->summary);
    hpcp_json_begin_array(j, "options");
    for (int i = 0; i < f->n; i++)
        for (int t = 0; t < f->opt[i].ntakers; t++)
            if (f->opt[i].takers[t] == k)
                hpcp_json_string(j, NULL, f->opt[i].spec->name);
    hpcp_json_end_array(j);
    option_defaults(j, f, k);
    records(j, k->records);
    hpcp_json_end_object(j);
}

static void family(struct hpcp_json *j, const char *name)
{
    static struct family f; /* 96 options x 64 kernels: not for the stack */
    collect(&f, name);
    hpcp_json_begin_object(j, NULL);
    hpcp_json_string(j, "name", name);
    hpcp_json_begin_array(j, "kernels");
    for (int i = 0; i < hpcp_nkernels; i++)
        if (strcmp(hpcp_kernels[i]->family, name) == 0)
            kernel(j, &f, hpcp_kernels[i]);
    hpcp_json_end_array(j);
    hpcp_json_begin_array(j, "options");
    for (int i = 0; i < f.n; i++)
        option(j, &f.opt[i]);
    hpcp_json_end_array(j);
    hpcp_json_end_object(j);
}

static void common_options(struct hpcp_json *j)
{
    static const struct hpcp_cli plain = {NULL, 0, (1u << HPCP_COMMON_COUNT) - 1, 0, 0, 0, 0, NULL};
    hpcp_json_begin_array(j, "common_options");
    for (int o = 0; o < HPCP_COMMON_COUNT; o++) {
        struct merged m = {hpcp_common_spec(o), &plain, -1, {NULL}, {NULL}, {NULL}, 0};
        option(j, &m); /* the harness's own declaration: its range and default */
    }
    hpcp_json_end_array(j);
}

void hpcp_describe(struct hpcp_json *j)
{
    hpcp_json_begin_object(j, NULL);
    hpcp_json_string(j, "describe_version", DESCRIBE_VERSION);
    hpcp_json_string(j, "hpcprobe_version", hpcp_version_string());
    hpcp_json_begin_array(j, "families");
    for (int i = 0; i < hpcp_nkernels; i++) {
        int seen = 0;
        for (int k = 0; k < i; k++)
            seen |= strcmp(hpcp_kernels[k]->family, hpcp_kernels[i]->family) == 0;
        if (!seen)
            family(j, hpcp_kernels[i]->family);
    }
    hpcp_json_end_array(j);
    common_options(j);
    hpcp_json_end_object(j);
}
