/* Result records (record.h) written out: the record as one JSON line, and that line
 * appended whole to --out by rank 0 (the commit). Built by record.c. */
#include "hpcprobe/record.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpcprobe/json.h"
#include "hpcprobe/util.h"

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
