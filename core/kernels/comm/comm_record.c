/* The record of one comm function on one group: parameters, the per-size
 * curves, the headline at 1 MiB, validation; and the table people read. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_run.h"
#include "hpcprobe/link.h"

#define HEADLINE_BYTES ((size_t)1 << 20) /* paper 003 compares the functions at 1 MB */

static int headline_point(const struct comm_plan *pl)
{
    for (int i = 0; i < pl->nsizes; i++)
        if (pl->sizes[i] == HEADLINE_BYTES)
            return i;
    return pl->nsizes - 1;
}

static void add_parameters(struct hpcp_record *r, const struct comm_plan *pl,
                           const struct comm_params *p, const struct comm_group_info *g)
{
    const struct comm_function *fn = pl->fn;
    hpcp_record_param_string(r, "function", fn->imb_name);
    hpcp_record_param_int(r, "group_ranks", g->ranks);
    hpcp_record_param_int(r, "launched_ranks", g->launched);
    hpcp_record_param_bool(r, "np_sweep", p->np_sweep);
    hpcp_record_param_int(r, "sizes", pl->nsizes);
    hpcp_record_param_int(r, "min_size_bytes", (long long)pl->sizes[0]);
    hpcp_record_param_int(r, "max_size_bytes", (long long)pl->sizes[pl->nsizes - 1]);
    hpcp_record_param_int(r, "headline_size_bytes", (long long)pl->sizes[headline_point(pl)]);
    hpcp_record_param_string(r, "timing", comm_timing_name(p->timing));
    comm_device_record(r, &p->dev);
    hpcp_record_param_string(r, "allocation",
                             p->dev.on                      ? "device-memory"
                             : p->timing == COMM_TIMING_IMB ? "MPI_Alloc_mem"
                             : p->timing == COMM_TIMING_OSU ? "page-aligned"
                                                            : "malloc");
    if (p->timing == COMM_TIMING_HPCPROBE)
        hpcp_record_param_double(r, "time_per_size_s", p->time_per_size);
    else
        hpcp_record_param_null(r, "time_per_size_s");
    hpcp_record_param_string(r, "time_is", fn->time_divisor == 2 ? "half-round-trip" : "call");
    hpcp_record_param_bool(r, "off_cache", p->off_cache);
    if (p->llc_bytes)
        hpcp_record_param_int(r, "llc_bytes", (long long)p->llc_bytes);
    else
        hpcp_record_param_null(r, "llc_bytes");
    hpcp_record_param_string(r, "check",
                             !fn->fill  ? "none"
                             : p->check ? "every-call"
                                        : "one-call-per-size");
    hpcp_record_param_string(r, "datatype", fn->elem_bytes == 4 ? "MPI_FLOAT" : "MPI_BYTE");
    if (fn->elem_bytes == 4)
        hpcp_record_param_string(r, "operation", "MPI_SUM");
    if (fn->bw_factor > 0)
        hpcp_record_param_double(r, "bandwidth_bytes_per_message_byte", fn->bw_factor);
}

/* One curve over the sizes: field `at` (a byte offset into comm_point). */
static struct hpcp_series *add_curve(struct hpcp_record *r, const char *name, const char *unit,
                                     const char *statistic, const double *x,
                                     const struct comm_point *pts, int n, size_t at)
{
    double *y = malloc((size_t)n * sizeof *y);
    for (int i = 0; y && i < n; i++)
        memcpy(&y[i], (const char *)&pts[i] + at, sizeof y[i]);
    struct hpcp_series *s =
        y ? hpcp_record_series(r, name, "message_bytes", "B", unit, statistic, x, y, n) : NULL;
    free(y);
    return s;
}

static void add_samples(struct hpcp_series *s, const struct comm_point *pts, int n)
{
    int most = 1;
    for (int i = 0; i < n; i++)
        most = pts[i].nsamples > most ? pts[i].nsamples : most;
    double *all = malloc((size_t)n * (size_t)most * sizeof *all);
    for (int i = 0; all && i < n; i++)
        for (int k = 0; k < most; k++)
            all[(size_t)i * most + k] = k < pts[i].nsamples ? pts[i].samples[k] : NAN;
    if (all)
        hpcp_record_series_samples(s, all, most);
    free(all);
}

static void add_counts(struct hpcp_record *r, const struct comm_point *pts, int n)
{
    long long *v = malloc((size_t)n * sizeof *v);
    static const char *const names[] = {"repetitions", "batch_calls", "warmup_calls",
                                        "checked_calls", "wrong_calls"};
    for (int k = 0; v && k < 5; k++) {
        for (int i = 0; i < n; i++) {
            const long f[] = {pts[i].reps, pts[i].batch, pts[i].warmup, pts[i].checked,
                              pts[i].wrong};
            v[i] = f[k];
        }
        hpcp_record_counter_array(r, names[k], v, n);
    }
    free(v);
}

static void add_curves(struct hpcp_record *r, const struct comm_plan *pl,
                       const struct comm_point *pts)
{
    int n = pl->nsizes;
    double x[COMM_MAX_SIZES] = {0};
    for (int i = 0; i < n; i++)
        x[i] = (double)pl->sizes[i];
    add_curve(r, "time_min", "s", "min", x, pts, n, offsetof(struct comm_point, t_min));
    add_curve(r, "time_avg", "s", "mean", x, pts, n, offsetof(struct comm_point, t_avg));
    add_curve(r, "time_max", "s", "max", x, pts, n, offsetof(struct comm_point, t_max));
    struct hpcp_series *median =
        add_curve(r, "time_median", "s", "median", x, pts, n, offsetof(struct comm_point, median));
    add_samples(median, pts, n);
    add_curve(r, "time_p99", "s", "p99", x, pts, n, offsetof(struct comm_point, p99));
    if (pl->fn->bw_factor > 0)
        add_curve(r, "bandwidth", "B/s", "mean", x, pts, n, offsetof(struct comm_point, bandwidth));
}

static void add_headline(struct hpcp_record *r, const struct comm_plan *pl,
                         const struct comm_point *pts)
{
    const struct comm_point *h = &pts[headline_point(pl)];
    hpcp_record_metric(r, "call_time", "s", h->samples, h->nsamples, 0);
    r->headline_metric = "call_time";
    if (pl->fn->bw_factor <= 0)
        return;
    double bw[COMM_MAX_SAMPLES];
    for (int k = 0; k < h->nsamples; k++)
        bw[k] = h->samples[k] > 0 ? pl->fn->bw_factor * (double)h->bytes / h->samples[k] : NAN;
    hpcp_record_metric(r, "bandwidth", "B/s", bw, h->nsamples, 1);
}

static void add_validation(struct hpcp_record *r, const struct comm_plan *pl,
                           const struct comm_params *p, const struct comm_point *pts)
{
    if (!pl->fn->fill) {
        hpcp_record_validation_skipped(r, "Barrier moves no data: nothing to check");
        return;
    }
    double wrong[COMM_MAX_SIZES];
    for (int i = 0; i < pl->nsizes; i++)
        wrong[i] = (double)pts[i].wrong;
    hpcp_record_validation(
        r,
        p->check
            ? "every timed call and one more per size: each rank stamps what it sends with a "
              "pattern of (source, destination, call) and compares every byte it receives (sums: "
              "the exact float sum); error = calls with wrong data, per size"
            : "one call per size after the timed ones: each rank stamps what it sends with a "
              "pattern of (source, destination, call) and compares every byte it receives (sums: "
              "the exact float sum); error = calls with wrong data, per size",
        "1", wrong, pl->nsizes, 0);
    for (int i = 0; i < pl->nsizes; i++)
        if (pts[i].bad_rank >= 0) {
            hpcp_record_validation_detail(r,
                                          "comm %s: rank %d received wrong data at %zu B "
                                          "(byte %ld differs from what was sent)",
                                          pl->fn->name, pts[i].bad_rank, pts[i].bytes,
                                          pts[i].bad_byte);
            break;
        }
}

/* A point-to-point function on ranks of two or more nodes against
 * HPCPROBE_LINK_LIMIT: some message stream crossed a node boundary, and
 * every rank's calls waited for it (PingPong, PingPing: the only stream;
 * Sendrecv, Exchange: around the ring), so bytes / t_max (the slowest
 * rank's time per call) is at most that stream's rate. The fastest size
 * long enough to judge is checked. */
static void check_link(struct hpcp_record *r, const struct comm_plan *pl,
                       const struct hpcp_sysinfo *si, const struct comm_point *pts,
                       const struct comm_group_info *g)
{
    if (!comm_fn_one_stream(pl->fn) || g->nodes < 2)
        return;
    int worst = -1;
    double rate[COMM_MAX_SIZES];
    for (int i = 0; i < pl->nsizes; i++) {
        rate[i] = pts[i].t_max > 0 ? (double)pts[i].bytes / pts[i].t_max : NAN;
        if (isfinite(rate[i]) && (double)pts[i].bytes >= HPCP_LINK_MIN_BYTES &&
            (worst < 0 || rate[i] > rate[worst]))
            worst = i;
    }
    if (worst < 0)
        return;
    char what[64];
    snprintf(what, sizeof what, "comm %s at %zu B", pl->fn->name, pts[worst].bytes);
    hpcp_link_check(r, &si->link_limit, what, rate[worst], (double)pts[worst].bytes);
}

void comm_build_record(struct hpcp_record *r, const struct comm_plan *pl,
                       const struct comm_params *p, const struct hpcp_sysinfo *si,
                       const struct comm_point *pts, const struct comm_group_info *g)
{
    hpcp_record_init(r, "comm", pl->fn->name, "imb", si);
    r->ranks = g->ranks, r->nodes = g->nodes, r->ranks_per_node_max = g->ranks_per_node_max;
    add_parameters(r, pl, p, g);
    add_curves(r, pl, pts);
    add_headline(r, pl, pts);
    add_counts(r, pts, pl->nsizes);
    add_validation(r, pl, p, pts);
    check_link(r, pl, si, pts, g);
    if (pl->fn->pair && g->launched > 2)
        hpcp_record_note(r, "ranks 0 and 1 ran %s; the other %d ranks waited", pl->fn->imb_name,
                         g->launched - 2);
    if (pl->trimmed)
        hpcp_record_note(r,
                         "sizes stop at %zu B: larger buffers do not fit in the memory "
                         "available",
                         pl->sizes[pl->nsizes - 1]);
    if (pl->fn->elem_bytes > 1)
        hpcp_record_note(r, "sizes are whole floats (%d B): smaller remainders were dropped",
                         pl->fn->elem_bytes);
    if (g->note && g->note[0])
        hpcp_record_note(r, "%s", g->note);
}

void comm_print(const struct hpcp_record *r, const void *ctx)
{
    const struct comm_group_info *g = ctx;
    const struct comm_plan *pl = g->plan;
    const struct comm_point *pts = g->points;
    printf("comm %s (IMB %s) on %d rank(s), %d node(s): validation %s\n", pl->fn->name,
           pl->fn->imb_name, g->ranks, g->nodes, hpcp_verdict_word(r->validation.verdict));
    printf("%12s %9s %11s %11s %11s %11s %11s %11s\n", "bytes", "reps", "t_min[us]", "t_avg[us]",
           "t_max[us]", "median[us]", "p99[us]", "MB/s");
    for (int i = 0; i < pl->nsizes; i++) {
        const struct comm_point *q = &pts[i];
        printf("%12zu %9ld %11.3f %11.3f %11.3f %11.3f %11.3f %11.2f\n", q->bytes, q->reps,
               q->t_min * 1e6, q->t_avg * 1e6, q->t_max * 1e6, q->median * 1e6, q->p99 * 1e6,
               isnan(q->bandwidth) ? 0.0 : q->bandwidth / 1e6);
    }
    if (r->validation.detail[0])
        printf("%s\n", r->validation.detail);
    fflush(stdout);
}
