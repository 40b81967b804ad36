/* RandomAccess family driver: options -> sizing -> setup -> repetitions
 * (run, verify) -> record. Every variant and algorithm goes through here, so
 * they share the generator, the verifier and the error budget. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/harness.h"
#include "hpcprobe/record.h"
#include "hpcprobe/util.h"
#include "ra.h"
#include "ra_params.h"
#include "ra_record.h"
#include "ra_threads.h"

static void samples_free(struct ra_samples *S)
{
    double **all[] = {&S->rate,     &S->time,     &S->updates,   &S->rate_min, &S->rate_mean,
                      &S->rate_max, &S->rate_sum, &S->warm_rate, &S->warm_time};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        free(*all[i]);
        *all[i] = NULL;
    }
}

static int samples_alloc(struct ra_samples *S, int repeat, int warmup)
{
    memset(S, 0, sizeof *S);
    double **timed[] = {&S->rate,      &S->time,     &S->updates, &S->rate_min,
                        &S->rate_mean, &S->rate_max, &S->rate_sum};
    int bad = 0;
    for (size_t i = 0; i < sizeof timed / sizeof timed[0]; i++)
        bad |= !(*timed[i] = calloc((size_t)repeat, sizeof(double)));
    bad |= !(S->warm_rate = calloc((size_t)warmup + 1, sizeof(double)));
    bad |= !(S->warm_time = calloc((size_t)warmup + 1, sizeof(double)));
    return bad ? -1 : 0;
}

/* Reduce one repetition: total updates over the slowest rank's time, and
 * for star the spread of per-rank rates. */
static void reduce_rep(const struct hpcp_kernel *k, struct hpcp_bench *b, double seconds,
                       double *rate, double *time, double *updates, double rates[4])
{
    struct ra_state *s = b->state;
    double mine[2] = {(double)s->executed, seconds}, sum[2], tmax;
    MPI_Reduce(mine, sum, 1, MPI_DOUBLE, MPI_SUM, 0, b->comm);
    MPI_Reduce(&seconds, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, b->comm);
    *updates = sum[0];
    *time = tmax;
    *rate = tmax > 0 ? sum[0] / tmax : 0;
    if (!ra_is_star(k))
        return;
    double r = seconds > 0 ? (double)s->executed / seconds : 0;
    MPI_Reduce(&r, &rates[0], 1, MPI_DOUBLE, MPI_MIN, 0, b->comm);
    MPI_Reduce(&r, &rates[3], 1, MPI_DOUBLE, MPI_SUM, 0, b->comm);
    MPI_Reduce(&r, &rates[2], 1, MPI_DOUBLE, MPI_MAX, 0, b->comm);
    rates[1] = rates[3] / b->ranks;
    *rate = rates[1];
}

/* Raw little-endian words in global order: one writer, or MPI-IO for mpi. */
static int dump_table(const struct hpcp_kernel *k, struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    int failed = 0;
    if (ra_is_mpi(k)) {
        MPI_File fh;
        if (s->table.n > (uint64_t)0x7fffffff)
            failed = 1;
        if (hpcp_any(b->comm, failed))
            return -1;
        failed = MPI_File_open(b->comm, s->p.dump, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                               &fh) != MPI_SUCCESS;
        if (hpcp_any(b->comm, failed))
            return -1;
        MPI_File_set_size(fh, 0);
        failed =
            MPI_File_write_at_all(fh, (MPI_Offset)(s->my_start * sizeof(uint64_t)), s->table.words,
                                  (int)s->table.n, MPI_UINT64_T, MPI_STATUS_IGNORE) != MPI_SUCCESS;
        MPI_File_close(&fh);
    } else if (b->rank == 0) {
        FILE *f = fopen(s->p.dump, "wb");
        failed = !f || fwrite(s->table.words, sizeof(uint64_t), s->table.n, f) != s->table.n;
        if (f && fclose(f) != 0)
            failed = 1;
    }
    return hpcp_any(b->comm, failed) ? -1 : 0;
}

/* Test hook: flip `n` distinct words of rank 0's table (HPCPROBE_INJECT_FAULT). */
static void corrupt_table(struct hpcp_bench *b, uint64_t n)
{
    struct ra_state *s = b->state;
    if (b->rank != 0 || !s->active || s->table.n == 0)
        return;
    if (n > s->table.n)
        n = s->table.n;
    uint64_t stride = s->table.n / n;
    for (uint64_t i = 0; i < n; i++)
        s->table.words[i * stride] ^= 0x5a5a5a5a5a5a5a5aULL;
}

/* Every run starts from zeroed per-rank counters: the record keeps the last. */
static void reset_counters(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    s->messages_sent = s->bytes_sent = s->max_pending = s->max_lookahead = 0;
    s->steps = s->stages = s->partners = s->route_ns = 0;
    s->exchange_ns = s->receive_ns = s->messages_received = -1;
}

static void keep_rep(struct hpcp_bench *b, int i, int warm, double seconds)
{
    struct ra_state *s = b->state;
    struct ra_samples *S = s->samples;
    double rates[4] = {0}, rate, time, updates;
    reduce_rep(b->kernel, b, seconds, &rate, &time, &updates, rates);
    if (warm) {
        S->warm_rate[i] = rate;
        S->warm_time[i] = time;
        return;
    }
    S->rate[i] = rate, S->time[i] = time, S->updates[i] = updates;
    if (seconds > 0 && (double)s->executed / seconds > S->best_rate)
        S->best_rate = (double)s->executed / seconds;
    S->rate_min[i] = rates[0], S->rate_mean[i] = rates[1];
    S->rate_max[i] = rates[2], S->rate_sum[i] = rates[3];
}

static int after_last(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    if (s->p.dump && dump_table(b->kernel, b)) {
        hpcp_error(b->comm, "cannot write --dump-table %s", s->p.dump);
        return HPCP_EXIT_RUNTIME;
    }
    return 0;
}

static void print_rep(struct hpcp_bench *b, int i, double error)
{
    const struct hpcp_kernel *k = b->kernel;
    struct ra_state *s = b->state;
    const struct ra_samples *S = s->samples;
    if (b->rank != 0 || s->p.run.quiet)
        return;
    printf("ra %s %s: rep %d/%d  %.5f GUPS%s  %.0f updates in %.3f s", k->variant, k->algorithm,
           i + 1, s->p.run.repeat, S->rate[i] * 1e-9, ra_is_star(k) ? " per rank (mean)" : "",
           S->updates[i], S->time[i]);
    if (s->p.run.verify)
        printf("  %.0f wrong words", error);
    printf("\n");
    fflush(stdout);
}

static void print_plan(struct hpcp_bench *b)
{
    const struct hpcp_kernel *k = b->kernel;
    struct ra_state *s = b->state;
    char size[32];
    if (b->rank != 0 || s->p.run.quiet)
        return;
    printf("ra %s %s: table 2^%d words (%s %s), %llu updates%s, look-ahead %d, rng %s, "
           "%d rank(s)\n",
           k->variant, k->algorithm, s->p.table_log2,
           hpcp_format_bytes((double)s->p.table_words * 8.0, size, sizeof size),
           ra_is_mpi(k) ? "in total" : "per process",
           (unsigned long long)((uint64_t)s->p.updates_per_word * s->p.table_words),
           ra_is_mpi(k) ? " in total" : " per process", s->p.lookahead, ra_rng_name(s->p.rng),
           b->ranks);
    fflush(stdout);
}

static void print_result(const struct hpcp_record *r, struct hpcp_bench *b)
{
    const struct hpcp_kernel *k = b->kernel;
    const struct hpcp_metric *m = &r->metrics[0];
    const struct hpcp_validation *v = &r->validation;
    printf("ra %s %s: %.5f GUPS%s, median of %d; verification %s", k->variant, k->algorithm,
           hpcp_median(m->samples, m->nsamples) * 1e-9, ra_is_star(k) ? " per rank" : "",
           m->nsamples, hpcp_verdict_word(v->verdict));
    if (v->verdict == HPCP_PASSED || v->verdict == HPCP_FAILED)
        printf(" (%.0f wrong words, tolerance %.0f)", v->error, v->tolerance);
    printf("\n");
    fflush(stdout);
    char what[64];
    snprintf(what, sizeof what, "ra %s %s", k->variant, k->algorithm);
    ra_print_thread_balance(b->state, what);
}

/* Options, sizing and the memory check: one line and HPCP_EXIT_USAGE on
 * bad input, before anything large is allocated. */
static int prepare(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                   char **argv, struct ra_params *p)
{
    char err[512], context[64];
    struct hpcp_optval v[RA_OPT_COUNT];
    struct hpcp_common c;
    snprintf(context, sizeof context, "%s %s", k->family, k->variant);
    int bad = hpcp_cli_parse(&ra_cli, argc, argv, context, v, &c, err, sizeof err) ||
              ra_params_from_options(p, v, &c, err, sizeof err) ||
              ra_params_size(p, ra_is_mpi(k),
                             ra_algo(k)->scope == RA_SCOPE_SINGLE ? 1 : si->ranks_per_node_max, si,
                             err, sizeof err) ||
              ra_params_check_algorithm(p, k, si->ranks, err, sizeof err);
    if (!bad) /* every rank parsed the same options: all get here, or none */
        bad = ra_params_check_threads(p, si, err, sizeof err);
    if (!bad)
        bad = hpcp_check_writable(MPI_COMM_WORLD, p->run.out, "--out", err, sizeof err);
    if (!bad) {
        int active = ra_algo(k)->scope != RA_SCOPE_SINGLE || si->rank == 0;
        bad = ra_params_check_memory(p, ra_is_mpi(k), active, si, err, sizeof err);
    }
    if (bad)
        hpcp_error(MPI_COMM_WORLD, "%s", err);
    return bad ? HPCP_EXIT_USAGE : 0;
}

static void build_record(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v)
{
    struct ra_state *s = b->state;
    ra_build_record(r, b->kernel, b, s->samples, v);
}

static void setup_failed(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    char size[32];
    hpcp_error(b->comm, "cannot allocate the table (%s per rank) or its buffers",
               hpcp_format_bytes((double)s->p.table_words * 8.0, size, sizeof size));
}

static const struct hpcp_family_hooks ra_hooks = {
    .verify_each = 1, /* HPCC checks the table it timed; every repetition's table counts */
    .setup_failed = setup_failed,
    .plan = print_plan,
    .before_run = reset_counters,
    .keep = keep_rep,
    .after_last = after_last,
    .corrupt = corrupt_table,
    .rep_done = print_rep,
    .record = build_record,
    .print = print_result,
};

int hpcp_ra_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                   char **argv)
{
    struct ra_state s;
    struct ra_samples S;
    memset(&s, 0, sizeof s);
    int rc = prepare(k, si, argc, argv, &s.p);
    if (rc)
        return rc;
    struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, &s, k};
    s.samples = &S;
    if (hpcp_any(b.comm, samples_alloc(&S, s.p.run.repeat, s.p.run.warmup))) {
        setup_failed(&b);
        samples_free(&S);
        return HPCP_EXIT_RUNTIME;
    }
    rc = hpcp_harness_run(k, &b, &s.p.run, &ra_hooks);
    samples_free(&S);
    return rc;
}
