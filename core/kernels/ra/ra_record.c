/* RandomAccess record: parameters, metrics, validation and counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/util.h"
#include "ra_record.h"

static void add_params(struct hpcp_record *r, const struct ra_params *p, const char *scope)
{
    hpcp_record_param_int(r, "table_log2", p->table_log2);
    hpcp_record_param_int(r, "table_words", (long long)p->table_words);
    hpcp_record_param_int(r, "table_bytes", (long long)(p->table_words * sizeof(uint64_t)));
    hpcp_record_param_string(r, "table_scope", scope);
    hpcp_record_param_int(r, "updates", (long long)p->updates_per_word * (long long)p->table_words);
    hpcp_record_param_int(r, "updates_per_word", p->updates_per_word);
    hpcp_record_param_int(r, "lookahead", p->lookahead);
    hpcp_record_param_string(r, "rng", ra_rng_name(p->rng));
    hpcp_record_param_int(r, "repeat", p->run.repeat);
    hpcp_record_param_int(r, "warmup", p->run.warmup);
    if (p->time_limit_s > 0)
        hpcp_record_param_double(r, "time_limit_s", p->time_limit_s);
    else
        hpcp_record_param_null(r, "time_limit_s");
    if (p->memory_fraction > 0)
        hpcp_record_param_double(r, "memory_fraction", p->memory_fraction);
    else
        hpcp_record_param_null(r, "memory_fraction");
    hpcp_record_param_string(r, "size_rule", p->size_rule);
    hpcp_record_param_double(r, "memory_cap", p->run.memory_cap);
    hpcp_record_param_string(r, "hugepages", p->hugepages ? "on" : "off");
    hpcp_record_param_string(r, "owner", ra_owner_rule_name(p->owner));
    hpcp_record_param_bool(r, "verify", p->run.verify);
}

/* Each mpi record names its mapping mode (Garg et al., Table 1); threaded
 * ones say how the table is kept right and who did what. */
static void add_multicore_params(struct hpcp_record *r, const struct hpcp_kernel *k,
                                 const struct ra_state *s)
{
    const struct ra_params *p = &s->p;
    const struct ra_algorithm *a = ra_algo(k);
    if (!ra_is_mpi(k))
        return;
    hpcp_record_param_int(r, "mapping_mode", p->mapping_mode);
    hpcp_record_param_int(r, "threads", p->threads);
    if (!a->threaded)
        return;
    int m = p->mapping_mode;
    hpcp_record_param_string(r, "lookahead_scope", m == 5 || m == 7 ? "core" : "node");
    if (a->record_threads)
        a->record_threads(r, p);
    hpcp_record_param_string(r, "thread_roles", s->thread_roles);
}

/* Section 4.3.1's buckets of the aggregating algorithms (the same on every rank). */
static void add_bucket_params(struct hpcp_record *r, const struct ra_state *s)
{
    if (s->bucket_size <= 0)
        return;
    hpcp_record_param_int(r, "bucket_size", s->bucket_size);
    hpcp_record_param_int(r, "send_buckets", s->send_buckets);
    hpcp_record_param_int(r, "receive_buckets", s->receive_buckets);
    hpcp_record_param_int(r, "intercore_buckets", s->intercore_buckets);
    hpcp_record_param_int(r, "intercore_bucket_size", s->intercore_bucket_size);
}

/* Every rank's threads (collective): the updates each rank issued, and each
 * thread's updates handled and busy time, rank-major (rank 0's threads
 * first), so eq. (6)-(7) of Garg et al. can take every role on every rank. */
static void gather_thread_counters(struct hpcp_record *r, struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    int T = s->nthreads, n = 2 + 3 * T;
    if (!T || !s->thread_updates)
        return; /* the same on every rank: nthreads is --threads */
    long long *mine = malloc((size_t)n * sizeof *mine);
    long long *all = b->rank == 0 ? malloc((size_t)n * (size_t)b->ranks * sizeof *all) : NULL;
    int ok = mine != NULL, fine = 0;
    MPI_Allreduce(&ok, &fine, 1, MPI_INT, MPI_MIN, b->comm);
    if (fine) {
        mine[0] = (long long)s->executed;
        mine[1] = s->ticks_per_ns > 0;
        for (int t = 0; t < T; t++) {
            mine[2 + t] = s->thread_updates[t];
            mine[2 + T + t] = s->thread_busy_ns[t];
            mine[2 + 2 * T + t] = s->thread_busy_ticks[t];
        }
        MPI_Gather(mine, n, MPI_LONG_LONG, all, n, MPI_LONG_LONG, 0, b->comm);
    }
    free(mine);
    long long *col = all ? malloc((size_t)T * (size_t)b->ranks * sizeof *col) : NULL;
    const char *names[3] = {"thread_updates", "thread_busy_ns", "thread_busy_tsc_ticks"};
    for (int c = -1; fine && col && c < 3; c++) {
        int len = c < 0 ? b->ranks : T * b->ranks;
        for (int i = 0; i < len; i++)
            col[i] = c < 0 ? all[n * i] : all[n * (i / T) + 2 + c * T + i % T];
        if (c < 2 || all[1])
            hpcp_record_counter_array(r, c < 0 ? "updates_issued" : names[c], col, len);
    }
    free(col);
    free(all);
}

/* Rank 0's threads: updates each handled, and its busy time. */
static void add_thread_counters(struct hpcp_record *r, const struct ra_state *s)
{
    if (!s->nthreads || !s->thread_updates)
        return;
    hpcp_record_counter_array(r, "thread_cpu_rank0", s->thread_cpu, s->nthreads);
    hpcp_record_counter_array(r, "thread_updates_rank0", s->thread_updates, s->nthreads);
    hpcp_record_counter_array(r, "thread_busy_ns_rank0", s->thread_busy_ns, s->nthreads);
    if (s->ticks_per_ns > 0)
        hpcp_record_counter_array(r, "thread_busy_tsc_ticks_rank0", s->thread_busy_ticks,
                                  s->nthreads);
}

static void add_metrics(struct hpcp_record *r, const struct ra_samples *S, int n, int warm,
                        int star)
{
    struct hpcp_metric *m;
    if (star) {
        m = hpcp_record_metric(r, "update_rate_per_rank_mean", "updates/s", S->rate_mean, n, 1);
        hpcp_record_metric(r, "update_rate_per_rank_min", "updates/s", S->rate_min, n, 1);
        hpcp_record_metric(r, "update_rate_per_rank_max", "updates/s", S->rate_max, n, 1);
        hpcp_record_metric(r, "update_rate_sum", "updates/s", S->rate_sum, n, 1);
    } else {
        m = hpcp_record_metric(r, "update_rate", "updates/s", S->rate, n, 1);
    }
    hpcp_record_metric_warmup(m, S->warm_rate, warm);
    m = hpcp_record_metric(r, "time", "s", S->time, n, 0);
    hpcp_record_metric_warmup(m, S->warm_time, warm);
    hpcp_record_metric(r, "updates", "updates", S->updates, n, 1);
    r->headline_metric = star ? "update_rate_per_rank_mean" : "update_rate";
}

static void add_validation(struct hpcp_record *r, const struct ra_params *p,
                           const struct hpcp_checks *v)
{
    if (!p->run.verify) {
        hpcp_record_validation_skipped(r, "xor-replay (skipped by --no-verify)");
        return;
    }
    hpcp_record_metric(r, "verify_time", "s", v->seconds, v->n, 0);
    hpcp_record_validation(r,
                           "xor-replay: every executed update re-applied once by the owner of "
                           "its word; a word is wrong when it differs from its index; passes at "
                           "<= 1 % of the table",
                           "words", v->error, v->n, RA_TOLERANCE_FRACTION * (double)p->table_words);
}

/* Synchronous exchanges can deliver more than the look-ahead to one rank in
 * a step (Plimpton et al., footnote 1); say so rather than hide it. */
static void note_overfull(struct hpcp_record *r, const long long *pending, int ranks, int lookahead)
{
    long long most = 0;
    for (int i = 0; i < ranks; i++)
        most = pending[i] > most ? pending[i] : most;
    if (most > lookahead)
        hpcp_record_note(r,
                         "a rank held up to %lld updates at once, over the look-ahead of %d: "
                         "an exchange delivered more than it sent (Plimpton et al., footnote 1)",
                         most, lookahead);
}

/* Per-rank counters of the last repetition (collective). */
static void add_counters(struct hpcp_record *r, struct hpcp_bench *b, const struct ra_samples *S)
{
    struct ra_state *s = b->state;
    enum { NCOL = 11, LOOKAHEAD = 7, EXCHANGE = 8, RECEIVE = 9 };
    long long mine[NCOL] = {s->messages_sent, s->bytes_sent, s->max_pending,      s->steps,
                            s->stages,        s->partners,   s->route_ns,         s->max_lookahead,
                            s->exchange_ns,   s->receive_ns, s->messages_received};
    long long *all = b->rank == 0 ? malloc(NCOL * (size_t)b->ranks * sizeof *all) : NULL;
    MPI_Gather(mine, NCOL, MPI_LONG_LONG, all, NCOL, MPI_LONG_LONG, 0, b->comm);
    if (b->rank != 0)
        return;
    hpcp_record_counter_int(r, "updates_executed", (long long)S->updates[s->p.run.repeat - 1]);
    hpcp_record_counter_int(r, "table_hugepage_bytes_rank0", (long long)s->table.thp_bytes);
    if (!all)
        return;
    const char *names[NCOL] = {"messages_sent", "bytes_sent", "max_pending",      "steps",
                               "stages",        "partners",   "route_ns",         "max_lookahead",
                               "exchange_ns",   "receive_ns", "messages_received"};
    long long *col = malloc((size_t)b->ranks * sizeof *col);
    for (int c = 0; c < NCOL && col; c++) {
        /* Only the overlapped forms keep max_lookahead, only the hypercube exchange_ns,
         * only the pipeline the receive calls' time. */
        if ((c == LOOKAHEAD && !s->p.overlap) || (c == EXCHANGE && s->exchange_ns < 0) ||
            (c >= RECEIVE && s->receive_ns < 0))
            continue;
        for (int i = 0; i < b->ranks; i++)
            col[i] = all[NCOL * i + c];
        hpcp_record_counter_array(r, names[c], col, b->ranks);
        if (c == 2)
            note_overfull(r, col, b->ranks, s->p.lookahead);
    }
    free(col);
    free(all);
}

static void add_notes(struct hpcp_record *r, const struct ra_state *s, const struct ra_samples *S)
{
    const struct ra_params *p = &s->p;
    if (p->lookahead > RA_MAX_LOOKAHEAD)
        hpcp_record_note(r, "non-compliant: look-ahead %d is over HPCC's limit of %d", p->lookahead,
                         RA_MAX_LOOKAHEAD);
    if (p->updates_per_word != RA_UPDATES_PER_WORD)
        hpcp_record_note(r, "non-compliant: %d updates per table word, not HPCC's %d",
                         p->updates_per_word, RA_UPDATES_PER_WORD);
    if (p->mapping_mode == 5 || p->mapping_mode == 7)
        hpcp_record_note(r,
                         "non-compliant: mapping mode %d gives each core its own look-ahead "
                         "on a per-node table; HPCC allows modes 1, 6 and 8",
                         p->mapping_mode);
    double planned = (double)p->updates_per_word * (double)p->table_words;
    if (S->updates[p->run.repeat - 1] < planned)
        hpcp_record_note(r, "--time-limit stopped the last repetition after %.0f of %.0f updates",
                         S->updates[p->run.repeat - 1], planned);
    if (s->active && p->hugepages && s->table.region.advice_rc != 0)
        hpcp_record_note(r, "madvise(MADV_HUGEPAGE) failed (%s): the table uses base pages",
                         strerror(s->table.region.advice_errno));
    else if (s->active && p->hugepages && s->table.thp_bytes == 0)
        hpcp_record_note(r, "the OS gave the table no transparent huge pages (rank 0)");
}

/* Star (collective): each rank's best rate, so a screen can sum a node's ranks. */
static void add_rank_series(struct hpcp_record *r, struct hpcp_bench *b, const struct ra_samples *S)
{
    double *y = b->rank == 0 ? malloc((size_t)b->ranks * sizeof *y) : NULL;
    double *x = b->rank == 0 ? malloc((size_t)b->ranks * sizeof *x) : NULL;
    int ok = b->rank != 0 || (x && y), fine = 0;
    MPI_Allreduce(&ok, &fine, 1, MPI_INT, MPI_MIN, b->comm);
    if (fine)
        MPI_Gather(&S->best_rate, 1, MPI_DOUBLE, y, 1, MPI_DOUBLE, 0, b->comm);
    for (int i = 0; fine && x && i < b->ranks; i++)
        x[i] = i;
    if (fine && b->rank == 0)
        hpcp_record_series(r, "best_update_rate", "rank", "1", "updates/s", "max", x, y, b->ranks);
    free(x);
    free(y);
}

void ra_build_record(struct hpcp_record *r, const struct hpcp_kernel *k, struct hpcp_bench *b,
                     const struct ra_samples *S, const struct hpcp_checks *v)
{
    struct ra_state *s = b->state;
    int n = s->p.run.repeat;
    hpcp_record_init(r, k->family, k->variant, k->algorithm, b->si);
    add_counters(r, b, S);
    gather_thread_counters(r, b);
    if (ra_is_star(k))
        add_rank_series(r, b, S);
    if (b->rank != 0)
        return;
    add_params(r, &s->p, ra_is_mpi(k) ? "global" : "per_process");
    if (ra_algo(k)->takes & RA_TAKES_OVERLAP)
        hpcp_record_param_string(r, "overlap", s->p.overlap ? "on" : "off");
    if (ra_algo(k)->record_params) /* what only some algorithms take */
        ra_algo(k)->record_params(r, &s->p);
    add_multicore_params(r, k, s);
    add_bucket_params(r, s);
    r->threads_per_rank = s->p.threads > 0 ? s->p.threads : 1;
    add_thread_counters(r, s);
    add_metrics(r, S, n, s->p.run.warmup, ra_is_star(k));
    add_validation(r, &s->p, v);
    r->compliant = s->p.compliant;
    add_notes(r, s, S);
}
