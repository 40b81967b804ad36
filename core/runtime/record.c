/* Result records (record.h) built in memory: parameters, counters, metrics, series,
 * matrices, the verdict and notes. Written out by record_write.c. */
#include "hpcprobe/record.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/util.h"

void hpcp_record_init(struct hpcp_record *r, const char *benchmark, const char *variant,
                      const char *algorithm, const struct hpcp_sysinfo *si)
{
    memset(r, 0, sizeof *r);
    r->benchmark = benchmark;
    r->variant = variant;
    r->algorithm = algorithm;
    r->ranks = si->ranks;
    r->threads_per_rank = 1;
    r->nodes = si->nodes;
    r->ranks_per_node_max = si->ranks_per_node_max;
    r->compliant = 1;
    if (si->started_at[0])
        hpcp_copy_truncated(r->started_at, sizeof r->started_at, si->started_at);
    else
        hpcp_iso_time(r->started_at, sizeof r->started_at);
}

void hpcp_record_free(struct hpcp_record *r)
{
    for (int i = 0; i < r->ncounters; i++)
        free(r->counters[i].array);
    for (int i = 0; i < r->nmetrics; i++) {
        free(r->metrics[i].samples);
        free(r->metrics[i].warmup);
    }
    for (int i = 0; i < r->nseries; i++) {
        free(r->series[i].x);
        free(r->series[i].y);
        free(r->series[i].samples);
    }
    for (int i = 0; i < r->nmatrices; i++)
        free(r->matrices[i].values);
    free(r->validation.per_repetition);
    memset(r, 0, sizeof *r);
}

static struct hpcp_kv *new_kv(struct hpcp_kv *kv, int *n, const char *key, enum hpcp_kv_type t)
{
    if (*n >= HPCP_RECORD_MAX_KV)
        return NULL; /* a fixed budget: exceeding it is a programming error caught by tests */
    struct hpcp_kv *e = &kv[(*n)++];
    memset(e, 0, sizeof *e);
    hpcp_copy_truncated(e->key, sizeof e->key, key);
    e->type = t;
    return e;
}

void hpcp_record_param_int(struct hpcp_record *r, const char *key, long long v)
{
    struct hpcp_kv *e = new_kv(r->params, &r->nparams, key, HPCP_KV_INT);
    if (e)
        e->i = v;
}

void hpcp_record_param_double(struct hpcp_record *r, const char *key, double v)
{
    struct hpcp_kv *e = new_kv(r->params, &r->nparams, key, HPCP_KV_DOUBLE);
    if (e)
        e->d = v;
}

void hpcp_record_param_string(struct hpcp_record *r, const char *key, const char *v)
{
    struct hpcp_kv *e = new_kv(r->params, &r->nparams, key, HPCP_KV_STRING);
    if (e)
        hpcp_copy_truncated(e->s, sizeof e->s, v);
}

void hpcp_record_param_bool(struct hpcp_record *r, const char *key, int v)
{
    struct hpcp_kv *e = new_kv(r->params, &r->nparams, key, HPCP_KV_BOOL);
    if (e)
        e->i = v != 0;
}

void hpcp_record_param_null(struct hpcp_record *r, const char *key)
{
    new_kv(r->params, &r->nparams, key, HPCP_KV_NULL);
}

void hpcp_record_counter_int(struct hpcp_record *r, const char *key, long long v)
{
    struct hpcp_kv *e = new_kv(r->counters, &r->ncounters, key, HPCP_KV_INT);
    if (e)
        e->i = v;
}

void hpcp_record_counter_array(struct hpcp_record *r, const char *key, const long long *v, int n)
{
    struct hpcp_kv *e = new_kv(r->counters, &r->ncounters, key, HPCP_KV_INT_ARRAY);
    if (!e)
        return;
    e->array = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (e->array && n > 0)
        memcpy(e->array, v, (size_t)n * sizeof *v);
    e->count = e->array ? n : 0;
}

static double *copy_doubles(const double *v, int n)
{
    double *c = malloc((size_t)(n > 0 ? n : 1) * sizeof *c);
    if (c && n > 0)
        memcpy(c, v, (size_t)n * sizeof *c);
    return c;
}

struct hpcp_metric *hpcp_record_metric(struct hpcp_record *r, const char *name, const char *unit,
                                       const double *samples, int n, int higher_is_better)
{
    if (r->nmetrics >= HPCP_RECORD_MAX_METRICS)
        return NULL;
    struct hpcp_metric *m = &r->metrics[r->nmetrics++];
    hpcp_copy_truncated(m->name, sizeof m->name, name);
    m->unit = unit;
    m->samples = copy_doubles(samples, n);
    m->nsamples = m->samples ? n : 0;
    m->higher_is_better = higher_is_better;
    return m;
}

void hpcp_record_metric_warmup(struct hpcp_metric *m, const double *samples, int n)
{
    if (!m || n <= 0)
        return;
    m->warmup = copy_doubles(samples, n);
    m->nwarmup = m->warmup ? n : 0;
}

void hpcp_record_validation(struct hpcp_record *r, const char *method, const char *error_unit,
                            const double *errors, int nrep, double tolerance)
{
    struct hpcp_validation *v = &r->validation;
    hpcp_copy_truncated(v->method, sizeof v->method, method);
    v->error_unit = error_unit;
    v->tolerance = tolerance;
    v->per_repetition = copy_doubles(errors, nrep);
    v->nrep = v->per_repetition ? nrep : 0;
    v->error = 0;
    int passed = nrep > 0 && isfinite(tolerance);
    for (int i = 0; i < nrep; i++) {
        /* `!(e <= tol)` rather than `e > tol`: NaN compares false both ways. */
        passed &= isfinite(errors[i]) && errors[i] <= tolerance;
        if (isnan(errors[i]) || (!isnan(v->error) && errors[i] > v->error))
            v->error = errors[i]; /* the worst, NaN once any is NaN */
    }
    v->verdict = nrep <= 0 ? HPCP_NOT_VALIDATED : passed ? HPCP_PASSED : HPCP_FAILED;
}

const char *hpcp_verdict_word(enum hpcp_verdict v)
{
    static const char *const words[] = {"NOT VALIDATED", "passed", "FAILED", "skipped"};
    return (unsigned)v < sizeof words / sizeof words[0] ? words[v] : "NOT VALIDATED";
}

int hpcp_verdict_fails(enum hpcp_verdict v)
{
    return v != HPCP_PASSED && v != HPCP_SKIPPED;
}

void hpcp_record_validation_skipped(struct hpcp_record *r, const char *method)
{
    hpcp_copy_truncated(r->validation.method, sizeof r->validation.method, method);
    r->validation.verdict = HPCP_SKIPPED;
}

void hpcp_record_validation_detail(struct hpcp_record *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->validation.detail, sizeof r->validation.detail, fmt, ap);
    va_end(ap);
}

void hpcp_record_note(struct hpcp_record *r, const char *fmt, ...)
{
    if (r->nnotes >= HPCP_RECORD_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->notes[r->nnotes++], sizeof r->notes[0], fmt, ap);
    va_end(ap);
}

struct hpcp_series *hpcp_record_series(struct hpcp_record *r, const char *name, const char *x_name,
                                       const char *x_unit, const char *unit, const char *statistic,
                                       const double *x, const double *y, int n)
{
    if (r->nseries >= HPCP_RECORD_MAX_SERIES)
        return NULL;
    struct hpcp_series *s = &r->series[r->nseries++];
    memset(s, 0, sizeof *s);
    hpcp_copy_truncated(s->name, sizeof s->name, name);
    hpcp_copy_truncated(s->x_name, sizeof s->x_name, x_name);
    s->x_unit = x_unit, s->unit = unit, s->statistic = statistic;
    s->x = copy_doubles(x, n);
    s->y = copy_doubles(y, n);
    s->n = (s->x && s->y) ? n : 0; /* out of memory: an empty curve, still valid JSON */
    return s;
}

void hpcp_record_series_samples(struct hpcp_series *s, const double *samples, int per_point)
{
    if (!s || per_point < 1)
        return;
    free(s->samples);
    s->samples = copy_doubles(samples, s->n * per_point);
    s->per_point = s->samples ? per_point : 0;
}

struct hpcp_matrix *hpcp_record_matrix(struct hpcp_record *r, const char *name,
                                       const char *row_name, const char *column_name,
                                       const char *unit, const char *statistic,
                                       const double *values, int rows, int cols)
{
    if (r->nmatrices >= HPCP_RECORD_MAX_MATRICES || rows < 0 || cols < 0)
        return NULL;
    struct hpcp_matrix *m = &r->matrices[r->nmatrices++];
    memset(m, 0, sizeof *m);
    hpcp_copy_truncated(m->name, sizeof m->name, name);
    hpcp_copy_truncated(m->row_name, sizeof m->row_name, row_name);
    hpcp_copy_truncated(m->column_name, sizeof m->column_name, column_name);
    m->unit = unit, m->statistic = statistic;
    m->values = copy_doubles(values, rows * cols);
    if (m->values)
        m->rows = rows, m->cols = cols; /* out of memory: an empty matrix, still valid */
    return m;
}
