/* Result records (record.h): built in memory, written as one JSON line. */
#include "hpcprobe/record.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpcprobe/json.h"
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

static void write_kvs(struct hpcp_json *j, const char *name, const struct hpcp_kv *kv, int n)
{
    hpcp_json_begin_object(j, name);
    for (int i = 0; i < n; i++) {
        const struct hpcp_kv *e = &kv[i];
        switch (e->type) {
        case HPCP_KV_INT: hpcp_json_int(j, e->key, e->i); break;
        case HPCP_KV_DOUBLE: hpcp_json_double(j, e->key, e->d); break;
        case HPCP_KV_STRING: hpcp_json_string(j, e->key, e->s); break;
        case HPCP_KV_BOOL: hpcp_json_bool(j, e->key, (int)e->i); break;
        case HPCP_KV_NULL: hpcp_json_null(j, e->key); break;
        case HPCP_KV_INT_ARRAY:
            hpcp_json_begin_array(j, e->key);
            for (int k = 0; k < e->count; k++)
                hpcp_json_int(j, NULL, e->array[k]);
            hpcp_json_end_array(j);
            break;
        }
    }
    hpcp_json_end_object(j);
}

static void write_doubles(struct hpcp_json *j, const char *key, const double *v, int n)
{
    hpcp_json_begin_array(j, key);
    for (int i = 0; i < n; i++)
        hpcp_json_double(j, NULL, v[i]);
    hpcp_json_end_array(j);
}

static void write_metrics(struct hpcp_json *j, const struct hpcp_record *r)
{
    hpcp_json_begin_array(j, "metrics");
    for (int i = 0; i < r->nmetrics; i++) {
        const struct hpcp_metric *m = &r->metrics[i];
        hpcp_json_begin_object(j, NULL);
        hpcp_json_string(j, "name", m->name);
        hpcp_json_string(j, "unit", m->unit);
        write_doubles(j, "samples", m->samples, m->nsamples);
        if (m->nwarmup)
            write_doubles(j, "warmup", m->warmup, m->nwarmup);
        hpcp_json_bool(j, "higher_is_better", m->higher_is_better);
        hpcp_json_end_object(j);
    }
    hpcp_json_end_array(j);
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

static void write_series(struct hpcp_json *j, const struct hpcp_record *r)
{
    hpcp_json_begin_array(j, "series");
    for (int i = 0; i < r->nseries; i++) {
        const struct hpcp_series *s = &r->series[i];
        hpcp_json_begin_object(j, NULL);
        hpcp_json_string(j, "name", s->name);
        hpcp_json_string(j, "x_name", s->x_name);
        hpcp_json_string(j, "x_unit", s->x_unit);
        hpcp_json_string(j, "unit", s->unit);
        hpcp_json_string(j, "statistic", s->statistic);
        write_doubles(j, "x", s->x, s->n);
        write_doubles(j, "y", s->y, s->n);
        if (s->per_point) {
            hpcp_json_begin_array(j, "samples");
            for (int p = 0; p < s->n; p++)
                write_doubles(j, NULL, s->samples + (size_t)p * s->per_point, s->per_point);
            hpcp_json_end_array(j);
        }
        hpcp_json_end_object(j);
    }
    hpcp_json_end_array(j);
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

static void write_matrices(struct hpcp_json *j, const struct hpcp_record *r)
{
    hpcp_json_begin_array(j, "matrices");
    for (int i = 0; i < r->nmatrices; i++) {
        const struct hpcp_matrix *m = &r->matrices[i];
        hpcp_json_begin_object(j, NULL);
        hpcp_json_string(j, "name", m->name);
        hpcp_json_string(j, "row_name", m->row_name);
        hpcp_json_string(j, "column_name", m->column_name);
        hpcp_json_string(j, "unit", m->unit);
        hpcp_json_string(j, "statistic", m->statistic);
        hpcp_json_begin_array(j, "values");
        for (int row = 0; row < m->rows; row++)
            write_doubles(j, NULL, m->values + (size_t)row * m->cols, m->cols);
        hpcp_json_end_array(j);
        hpcp_json_end_object(j);
    }
    hpcp_json_end_array(j);
}

/* The headline statistic over a metric's samples (NaN samples skipped). */
static double headline(const struct hpcp_metric *m, const char *statistic)
{
    if (!statistic || strcmp(statistic, "median") == 0)
        return hpcp_median(m->samples, m->nsamples);
    int is_max = strcmp(statistic, "max") == 0, is_min = strcmp(statistic, "min") == 0;
    double acc = NAN, sum = 0;
    int n = 0;
    for (int i = 0; i < m->nsamples; i++) {
        double v = m->samples[i];
        if (isnan(v))
            continue;
        n++, sum += v;
        if (isnan(acc) || (is_max && v > acc) || (is_min && v < acc) || (!is_max && !is_min))
            acc = v; /* for "last" every sample replaces the previous one */
    }
    return strcmp(statistic, "mean") == 0 ? (n ? sum / n : NAN) : acc;
}

static const struct hpcp_metric *find_metric(const struct hpcp_record *r, const char *name)
{
    for (int i = 0; i < r->nmetrics; i++)
        if (name && strcmp(r->metrics[i].name, name) == 0)
            return &r->metrics[i];
    return r->nmetrics ? &r->metrics[0] : NULL;
}

static void write_value(struct hpcp_json *j, const struct hpcp_record *r)
{
    const struct hpcp_metric *m = find_metric(r, r->headline_metric);
    hpcp_json_begin_object(j, "value");
    hpcp_json_string(j, "metric", m ? m->name : "none");
    const char *statistic = r->headline_statistic ? r->headline_statistic : "median";
    hpcp_json_string(j, "statistic", statistic);
    if (m && m->nsamples)
        hpcp_json_double(j, "value", headline(m, statistic));
    else
        hpcp_json_null(j, "value");
    hpcp_json_string(j, "unit", m ? m->unit : "1");
    hpcp_json_end_object(j);
}

static void write_validation(struct hpcp_json *j, const struct hpcp_validation *v)
{
    /* "not_validated" is outside the schema's verdicts on purpose: the reader
     * refuses such a record rather than take it for a measurement. */
    static const char *const names[] = {"not_validated", "passed", "failed", "skipped"};
    hpcp_json_begin_object(j, "validation");
    hpcp_json_string(j, "verdict", names[v->verdict]);
    hpcp_json_string(j, "method", v->method[0] ? v->method : "none");
    if (v->verdict == HPCP_PASSED || v->verdict == HPCP_FAILED) {
        hpcp_json_double(j, "error", v->error);
        hpcp_json_string(j, "error_unit", v->error_unit ? v->error_unit : "1");
        hpcp_json_double(j, "tolerance", v->tolerance);
        write_doubles(j, "per_repetition", v->per_repetition, v->nrep);
    }
    if (v->detail[0])
        hpcp_json_string(j, "detail", v->detail);
    hpcp_json_end_object(j);
}

static void write_layout(struct hpcp_json *j, const struct hpcp_record *r)
{
    hpcp_json_begin_object(j, "layout");
    hpcp_json_int(j, "ranks", r->ranks);
    hpcp_json_int(j, "threads_per_rank", r->threads_per_rank);
    hpcp_json_int(j, "nodes", r->nodes);
    hpcp_json_int(j, "ranks_per_node_max", r->ranks_per_node_max);
    hpcp_json_end_object(j);
}

char *hpcp_record_to_json(struct hpcp_record *r, const struct hpcp_sysinfo *si)
{
    struct hpcp_json j;
    hpcp_json_init(&j);
    if (!r->finished_at[0])
        hpcp_iso_time(r->finished_at, sizeof r->finished_at);
    hpcp_json_begin_object(&j, NULL);
    hpcp_json_string(&j, "schema_version", "1.2");
    hpcp_json_string(&j, "benchmark", r->benchmark);
    hpcp_json_string(&j, "variant", r->variant);
    hpcp_json_string(&j, "algorithm", r->algorithm);
    hpcp_json_string(&j, "status", hpcp_verdict_fails(r->validation.verdict) ? "failed" : "ok");
    hpcp_json_string(&j, "started_at", r->started_at);
    hpcp_json_string(&j, "finished_at", r->finished_at);
    write_kvs(&j, "parameters", r->params, r->nparams);
    write_layout(&j, r);
    write_value(&j, r);
    write_metrics(&j, r);
    write_validation(&j, &r->validation);
    hpcp_json_bool(&j, "compliant", r->compliant);
    hpcp_json_begin_array(&j, "notes");
    for (int i = 0; i < r->nnotes; i++)
        hpcp_json_string(&j, NULL, r->notes[i]);
    hpcp_json_end_array(&j);
    if (r->nseries)
        write_series(&j, r);
    if (r->nmatrices)
        write_matrices(&j, r);
    write_kvs(&j, "counters", r->counters, r->ncounters);
    hpcp_json_begin_object(&j, "metadata");
    hpcp_sysinfo_to_json(si, &j);
    hpcp_json_end_object(&j);
    hpcp_json_end_object(&j);
    hpcp_json_raw(&j, NULL, "\n");
    if (j.failed) {
        hpcp_json_free(&j);
        return NULL;
    }
    return j.buf;
}

/* Exclusive lock on the whole file (blocking); 0, or -1 where the filesystem has no
 * locks (the append then goes on unlocked: still whole or nothing, see below). */
static int lock_file(int fd, short type)
{
    struct flock lock = {.l_type = type, .l_whence = SEEK_SET};
    while (fcntl(fd, F_SETLKW, &lock) != 0)
        if (errno != EINTR)
            return -1;
    return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
    for (size_t off = 0; off < len;) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            return -1;
        }
        off += (size_t)w;
    }
    return 0;
}

/* A record line is appended whole or not at all: concurrent runs may share the file,
 * so the append holds an exclusive lock, and a short write (full disk, quota) is cut
 * back to where the file ended, so that no partial line is left for the next record
 * to be glued onto. */
int hpcp_record_append(struct hpcp_record *r, const struct hpcp_sysinfo *si, const char *path)
{
    char *line = hpcp_record_to_json(r, si);
    if (!line) {
        errno = ENOMEM;
        return -1;
    }
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        free(line);
        return -1;
    }
    int locked = lock_file(fd, F_WRLCK) == 0;
    off_t end = lseek(fd, 0, SEEK_END);
    int rc = write_all(fd, line, strlen(line));
    if (rc == 0 && fsync(fd) != 0 && errno != EINVAL)
        rc = -1; /* written but not stored (NFS, a full disk noticed late) */
    int saved = errno;
    /* Should the cut fail too, the reader reports the partial line and reads on. */
    if (rc != 0 && end >= 0 && ftruncate(fd, end) != 0)
        errno = saved;
    if (locked)
        lock_file(fd, F_UNLCK);
    if (close(fd) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    free(line);
    errno = saved;
    return rc;
}

int hpcp_record_commit(struct hpcp_record *r, const struct hpcp_sysinfo *si, const char *out)
{
    if (out && hpcp_record_append(r, si, out) != 0) {
        hpcp_error(MPI_COMM_SELF, "cannot append the record to %s: %s", out, strerror(errno));
        return HPCP_EXIT_IO;
    }
    if (r->validation.verdict == HPCP_NOT_VALIDATED)
        hpcp_error(MPI_COMM_SELF,
                   "%s %s: the record was never validated (a driver bug); "
                   "it counts as failed",
                   r->benchmark, r->variant);
    return hpcp_verdict_fails(r->validation.verdict) ? HPCP_EXIT_VALIDATION : 0;
}
