/* One result record (schema/result-v1.json), built by a family driver and
 * written by rank 0 as one JSON Lines line. Values are SI base units. */
#ifndef HPCPROBE_RECORD_H
#define HPCPROBE_RECORD_H
#include <stdint.h>
#include "hpcprobe/sysinfo.h"

#define HPCP_RECORD_MAX_KV 48
#define HPCP_RECORD_MAX_METRICS 32
#define HPCP_RECORD_MAX_NOTES 8
#define HPCP_RECORD_MAX_SERIES 64
#define HPCP_RECORD_MAX_MATRICES 4

/* A record starts NOT_VALIDATED (zeroed memory) and stays so until a verifier
 * says otherwise: a driver that forgets to verify cannot pass. */
enum hpcp_verdict { HPCP_NOT_VALIDATED, HPCP_PASSED, HPCP_FAILED, HPCP_SKIPPED };

enum hpcp_kv_type {
    HPCP_KV_INT,
    HPCP_KV_DOUBLE,
    HPCP_KV_STRING,
    HPCP_KV_BOOL,
    HPCP_KV_NULL,
    HPCP_KV_INT_ARRAY
};

struct hpcp_kv {
    char key[48];
    enum hpcp_kv_type type;
    long long i;
    double d;
    char s[160];
    long long *array; /* HPCP_KV_INT_ARRAY, owned */
    int count;
};

struct hpcp_metric {
    char name[64];
    const char *unit;     /* one of the schema's units: "s", "updates/s", ... */
    double *samples;      /* owned copy, one per timed repetition */
    int nsamples;
    double *warmup;       /* owned copy */
    int nwarmup;
    int higher_is_better;
};

/* A curve over a swept parameter: y[i] is `statistic` of the repetitions at
 * x[i]; samples (optional) holds n * per_point of them, NaN where absent. */
struct hpcp_series {
    char name[64], x_name[48];
    const char *x_unit, *unit, *statistic;
    double *x, *y, *samples; /* owned copies */
    int n, per_point;
};

/* A rows x cols table over two indices (rank pairs): values row-major, NaN
 * where a cell was not measured (written as null). Schema 1.2. */
struct hpcp_matrix {
    char name[64], row_name[48], column_name[48];
    const char *unit, *statistic;
    double *values; /* owned copy */
    int rows, cols;
};

struct hpcp_validation {
    enum hpcp_verdict verdict;
    char method[256];
    char detail[256];     /* optional: what failed, where ("" when nothing to add) */
    double error;         /* worst repetition */
    const char *error_unit;
    double tolerance;     /* largest error that passes */
    double *per_repetition; /* owned */
    int nrep;
};

struct hpcp_record {
    const char *benchmark, *variant, *algorithm;
    char started_at[32], finished_at[32];
    int ranks, threads_per_rank, nodes, ranks_per_node_max;
    const char *headline_metric;  /* the metric whose statistic is `value` */
    const char *headline_statistic; /* "median" (NULL), "max", "min", "mean", "last" */
    struct hpcp_kv params[HPCP_RECORD_MAX_KV];
    int nparams;
    struct hpcp_kv counters[HPCP_RECORD_MAX_KV];
    int ncounters;
    struct hpcp_metric metrics[HPCP_RECORD_MAX_METRICS];
    int nmetrics;
    struct hpcp_series series[HPCP_RECORD_MAX_SERIES];
    int nseries;
    struct hpcp_matrix matrices[HPCP_RECORD_MAX_MATRICES];
    int nmatrices;
    struct hpcp_validation validation;
    int compliant;
    char notes[HPCP_RECORD_MAX_NOTES][256];
    int nnotes;
};

/* Start a record: names, start time, layout from `si`. */
void hpcp_record_init(struct hpcp_record *r, const char *benchmark, const char *variant,
                      const char *algorithm, const struct hpcp_sysinfo *si);
void hpcp_record_free(struct hpcp_record *r);

void hpcp_record_param_int(struct hpcp_record *r, const char *key, long long v);
void hpcp_record_param_double(struct hpcp_record *r, const char *key, double v);
void hpcp_record_param_string(struct hpcp_record *r, const char *key, const char *v);
void hpcp_record_param_bool(struct hpcp_record *r, const char *key, int v);
void hpcp_record_param_null(struct hpcp_record *r, const char *key);
void hpcp_record_counter_int(struct hpcp_record *r, const char *key, long long v);
/* Copies n values (e.g. one per rank). */
void hpcp_record_counter_array(struct hpcp_record *r, const char *key, const long long *v, int n);

/* Add a metric; copies the samples. Returns the metric for warm-up samples. */
struct hpcp_metric *hpcp_record_metric(struct hpcp_record *r, const char *name, const char *unit,
                                       const double *samples, int n, int higher_is_better);
void hpcp_record_metric_warmup(struct hpcp_metric *m, const double *samples, int n);

/* Add a curve (copies x and y, n points). NULL when the record is full. */
struct hpcp_series *hpcp_record_series(struct hpcp_record *r, const char *name, const char *x_name,
                                       const char *x_unit, const char *unit, const char *statistic,
                                       const double *x, const double *y, int n);
/* Keep the repetitions behind each point: n * per_point values, point-major. */
void hpcp_record_series_samples(struct hpcp_series *s, const double *samples, int per_point);

/* Add a rows x cols matrix (copies the row-major values; NaN = null). NULL
 * when the record is full. */
struct hpcp_matrix *hpcp_record_matrix(struct hpcp_record *r, const char *name,
                                       const char *row_name, const char *column_name,
                                       const char *unit, const char *statistic,
                                       const double *values, int rows, int cols);

/* Validation: per-repetition errors (copied); the verdict is PASSED when every
 * repetition's error <= tolerance. A NaN or infinite error (or tolerance) fails,
 * and no repetition at all leaves the record NOT_VALIDATED. */
void hpcp_record_validation(struct hpcp_record *r, const char *method, const char *error_unit,
                            const double *errors, int nrep, double tolerance);
void hpcp_record_validation_skipped(struct hpcp_record *r, const char *method);
/* What failed and where, in words (validation.detail). */
void hpcp_record_validation_detail(struct hpcp_record *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void hpcp_record_note(struct hpcp_record *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* "passed", "FAILED", "skipped" or "NOT VALIDATED", for what a driver prints. */
const char *hpcp_verdict_word(enum hpcp_verdict v);
/* 1 when the verdict makes the run fail: FAILED, or never validated. */
int hpcp_verdict_fails(enum hpcp_verdict v);

/* Serialise to one JSON line (with trailing newline); caller frees. NULL on
 * out-of-memory. */
char *hpcp_record_to_json(struct hpcp_record *r, const struct hpcp_sysinfo *si);

/* Rank 0 at the end of a benchmark: append to `out` (NULL: nowhere; a failure
 * is one line). The exit status: HPCP_EXIT_IO when the write failed,
 * HPCP_EXIT_VALIDATION when validation failed, else 0. */
int hpcp_record_commit(struct hpcp_record *r, const struct hpcp_sysinfo *si, const char *out);

/* Append the record to `path` as one line, whole or not at all: under an exclusive
 * fcntl lock (runs may share the file), and a short write or failed fsync is cut back
 * off. Returns 0 or -1 (errno set). */
int hpcp_record_append(struct hpcp_record *r, const struct hpcp_sysinfo *si, const char *path);

#endif
