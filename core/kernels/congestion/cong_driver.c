/* Driver of the congestion family: roles, then per canary its run alone
 * and its run beside each asked congestor. Beside one, the congestors loop
 * rounds of their pattern; after a warm-up their leader tells the canaries
 * to start, and the canary leader tells it to stop when the canaries are done,
 * so the canary's every sample is taken under load. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "congestion.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/rng.h"
#include "hpcprobe/util.h"

enum { TAG_GO = 91, TAG_STOP = 92 };

static int first_rank(const struct cong_roles *r, int ranks, int congestor)
{
    for (int i = 0; i < ranks; i++)
        if (r->rank_congestor[i] == congestor)
            return i;
    return -1;
}

/* The canaries' ring: a seeded random order of the canary ranks. */
static int place_in_ring(struct cong_state *s, const struct hpcp_bench *b)
{
    int n = s->roles.canary_ranks, pos = -1;
    int *members = malloc((size_t)n * sizeof *members), *order = malloc((size_t)n * sizeof *order);
    if (!members || !order) {
        free(members), free(order);
        return -1;
    }
    for (int i = 0, c = 0; i < b->ranks; i++)
        if (!s->roles.rank_congestor[i])
            members[c++] = i;
    hpcp_shuffle(order, n, s->p.run.seed);
    for (int i = 0; i < n; i++)
        pos = members[order[i]] == b->rank ? i : pos;
    if (pos >= 0) {
        s->right = members[order[(pos + 1) % n]];
        s->left = members[order[(pos + n - 1) % n]];
    }
    free(members), free(order);
    return 0;
}

static int canary_buffers(struct cong_state *s, int me)
{
    size_t bytes = (size_t)s->p.in_flight * s->p.bandwidth_bytes;
    s->send = malloc(bytes), s->recv = malloc(bytes), s->expect = malloc(s->p.bandwidth_bytes);
    if (!s->send || !s->recv || !s->expect)
        return -1;
    cong_fill_messages(s->send, (size_t)s->p.in_flight, s->p.bandwidth_bytes, me);
    cong_fill(s->expect, s->p.bandwidth_bytes, s->left);
    return 0;
}

/* The congestor leaders (one; gpcnet: one per group, in group order), this
 * rank's leader and, in gpcnet mode, its group's pattern. */
static void find_leaders(struct cong_state *s, const struct hpcp_bench *b)
{
    const struct cong_roles *r = &s->roles;
    int groups = r->rank_group ? CONG_GPCNET_GROUPS : 1, me = b->rank;
    s->nleaders = 0;
    for (int g = 0; g < groups; g++)
        for (int i = 0; i < b->ranks; i++)
            if (r->rank_congestor[i] && (!r->rank_group || r->rank_group[i] == g)) {
                s->leaders[s->nleaders++] = i;
                break;
            }
    int mine = r->rank_group && r->rank_congestor[me] ? r->rank_group[me] : 0;
    s->congestor_leader = mine < s->nleaders ? s->leaders[mine] : -1;
    s->group_pattern =
        r->rank_group && r->rank_congestor[me] ? cong_gpcnet_group_pattern[mine] : -1;
}

/* gpcnet: GPCNeT's rings and Allreduces run on node slices, the canary ranks
 * that hold the same index among their node's ranks (one slice at one rank per
 * node; with one node, every canary rank counts as a node). Collective over
 * the canaries. */
static void ring_comm(struct cong_state *s, const struct hpcp_bench *b)
{
    int local = 0;
    for (int i = 0; !s->roles.per_rank && i < b->rank; i++)
        local += s->roles.rank_node[i] == s->roles.rank_node[b->rank];
    MPI_Comm_split(s->canaries, local, b->rank, &s->ring_comm);
}

static int cong_setup(struct hpcp_bench *b)
{
    struct cong_state *s = b->state;
    char err[512] = "out of memory";
    s->canaries = s->congestors = s->ring_comm = MPI_COMM_NULL;
    s->win = MPI_WIN_NULL;
    if (cong_assign_roles(&s->roles, b->si, b->comm, &s->p, err, sizeof err) != 0) {
        hpcp_error(b->comm, "%s", err);
        return HPCP_EXIT_USAGE; /* the same plan, so the same refusal, on every rank */
    }
    int congestor = s->roles.rank_congestor[b->rank], gpcnet = s->p.mode == CONG_MODE_GPCNET;
    /* gpcnet: each congestor group on its own communicator, all four at once */
    int color = !congestor ? MPI_UNDEFINED : gpcnet ? s->roles.rank_group[b->rank] : 0;
    MPI_Comm_split(b->comm, congestor ? MPI_UNDEFINED : 0, b->rank, &s->canaries);
    MPI_Comm_split(b->comm, color, b->rank, &s->congestors);
    s->canary_leader = first_rank(&s->roles, b->ranks, 0);
    find_leaders(s, b);
    s->mute = hpcp_fault_count("mute") > 0;
    int bad = place_in_ring(s, b) != 0;
    if (!congestor && gpcnet) {
        int me, n;
        ring_comm(s, b);
        MPI_Comm_rank(s->ring_comm, &me);
        MPI_Comm_size(s->ring_comm, &n);
        bad |= cong_gpcnet_buffers(s, me, n) != 0;
    } else if (!congestor) {
        bad |= canary_buffers(s, b->rank) != 0;
    }
    if (hpcp_any(b->comm, bad)) {
        hpcp_error(b->comm, "cannot allocate the canary buffers");
        return HPCP_EXIT_RUNTIME;
    }
    bad = cong_congestor_setup(s, err, sizeof err) != 0;
    if (hpcp_any(b->comm, bad)) {
        hpcp_error(b->comm, "%s", err);
        return HPCP_EXIT_RUNTIME;
    }
    return 0;
}

static void cong_teardown(struct hpcp_bench *b)
{
    struct cong_state *s = b->state;
    cong_congestor_teardown(s);
    free(s->send), free(s->recv), free(s->expect), free(s->expect_right), free(s->ring_order);
    s->send = s->recv = s->expect = s->expect_right = NULL;
    s->ring_order = NULL;
    if (s->canaries != MPI_COMM_NULL)
        MPI_Comm_free(&s->canaries);
    if (s->congestors != MPI_COMM_NULL)
        MPI_Comm_free(&s->congestors);
    if (s->ring_comm != MPI_COMM_NULL)
        MPI_Comm_free(&s->ring_comm);
    cong_roles_free(&s->roles);
}

/* The congestors' side of a congested run: rounds until the canaries are done. */
static void congest(struct cong_state *s, int pattern, int me)
{
    int leader = me == s->congestor_leader, stop = 0, go = 1, warm = s->p.run.warmup;
    MPI_Request stop_rq = MPI_REQUEST_NULL;
    if (leader)
        MPI_Irecv(&go, 0, MPI_INT, s->canary_leader, TAG_STOP, MPI_COMM_WORLD, &stop_rq);
    for (long long round = 0; !stop; round++) {
        cong_congestor_round(s, pattern, round);
        if (leader && round == (warm > 0 ? warm - 1 : 0))
            MPI_Send(&go, 0, MPI_INT, s->canary_leader, TAG_GO, MPI_COMM_WORLD);
        if ((round + 1) % CONG_CHECK_EVERY)
            continue;
        int asked_to_stop = 0;
        if (leader)
            MPI_Test(&stop_rq, &asked_to_stop, MPI_STATUS_IGNORE);
        /* an allreduce, not a broadcast: a root with nothing to send per round
         * (the one-sided patterns) must not run ahead of the others */
        MPI_Request rq;
        MPI_Iallreduce(&asked_to_stop, &stop, 1, MPI_INT, MPI_MAX, s->congestors, &rq);
        cong_wait(&s->p, 1, &rq);
    }
}

/* One canary under one condition: alone (pattern < 0, or none), or beside
 * the congestors running `pattern`. */
static void run_condition(struct cong_state *s, const struct hpcp_bench *b, int canary, int pattern,
                          double *samples, int n)
{
    int congestor = s->roles.rank_congestor[b->rank], loaded = pattern >= 0;
    hpcp_idle_barrier(b->comm);
    int gpcnet = s->p.mode == CONG_MODE_GPCNET, lead = loaded && b->rank == s->canary_leader;
    if (congestor && loaded) {
        congest(s, gpcnet ? s->group_pattern : pattern, b->rank);
    } else if (!congestor) {
        for (int l = 0; lead && l < s->nleaders; l++) /* every group is loading */
            MPI_Recv(NULL, 0, MPI_INT, s->leaders[l], TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(s->canaries);
        if (gpcnet)
            cong_gpcnet_canary_run(s, canary, samples, n);
        else
            cong_canary_run(s, canary, samples, n, s->p.run.warmup);
        MPI_Barrier(s->canaries);
        for (int l = 0; lead && l < s->nleaders; l++)
            MPI_Send(NULL, 0, MPI_INT, s->leaders[l], TAG_STOP, MPI_COMM_WORLD);
    }
    /* idle congestors (alone, or none) waited here, asleep or spinning (--idle-wait) */
    if (s->p.idle_spin)
        MPI_Barrier(b->comm);
    else
        hpcp_idle_barrier(b->comm);
}

static int samples_of(const struct cong_params *p, int canary)
{
    return canary == CONG_BANDWIDTH ? p->bandwidth_samples : p->samples;
}

/* Samples this rank keeps: all, or an even subset when the canary ranks
 * together would pass CONG_MAX_KEPT_SAMPLES. */
static int kept_of(const struct cong_state *s, int canary)
{
    int n = samples_of(&s->p, canary), most = CONG_MAX_KEPT_SAMPLES / s->roles.canary_ranks;
    return n < most ? n : (most > 0 ? most : 1);
}

static void thin(const double *all, int n, double *kept, int k)
{
    for (int i = 0; i < k; i++)
        kept[i] = all[(long long)i * n / k];
}

/* Every canary rank's kept samples to rank 0, rank-major. */
static int gather_samples(struct cong_state *s, const struct hpcp_bench *b, const double *mine,
                          int canary, double **out)
{
    int n = samples_of(&s->p, canary), k = kept_of(s, canary), P = b->ranks;
    int congestor = s->roles.rank_congestor[b->rank];
    double *kept = malloc((size_t)k * sizeof *kept);
    int *counts = b->rank == 0 ? malloc((size_t)P * sizeof *counts) : NULL;
    int *displs = b->rank == 0 ? malloc((size_t)P * sizeof *displs) : NULL;
    if (b->rank == 0)
        *out = malloc((size_t)k * s->roles.canary_ranks * sizeof **out);
    int bad = !kept || (b->rank == 0 && (!counts || !displs || !*out));
    if (hpcp_any(b->comm, bad)) {
        free(kept), free(counts), free(displs);
        return -1;
    }
    if (!congestor)
        thin(mine, n, kept, k);
    for (int i = 0, at = 0; b->rank == 0 && i < P; i++) {
        counts[i] = s->roles.rank_congestor[i] ? 0 : k;
        displs[i] = at, at += counts[i];
    }
    MPI_Gatherv(kept, congestor ? 0 : k, MPI_DOUBLE, b->rank == 0 ? *out : NULL, counts, displs,
                MPI_DOUBLE, 0, b->comm);
    free(kept), free(counts), free(displs);
    return 0;
}

static int gather_counts(struct cong_state *s, const struct hpcp_bench *b, struct cong_results *R)
{
    int nodes = 0;
    for (int i = 0; i < b->ranks; i++)
        nodes = s->roles.rank_node[i] + 1 > nodes ? s->roles.rank_node[i] + 1 : nodes;
    R->nodes = nodes;
    long long *mine = calloc((size_t)nodes, sizeof *mine);
    int bad = !mine;
    for (int c = 0; c < s->p.ncongestors; c++) {
        int pat = s->p.congestor[c];
        if (b->rank == 0)
            bad |= !(R->node_bytes[pat] = calloc((size_t)nodes, sizeof **R->node_bytes));
    }
    if (hpcp_any(b->comm, bad)) {
        free(mine);
        return -1;
    }
    for (int c = 0; c < s->p.ncongestors; c++) {
        int pat = s->p.congestor[c];
        memset(mine, 0, (size_t)nodes * sizeof *mine);
        mine[s->roles.rank_node[b->rank]] = s->bytes[pat];
        MPI_Reduce(mine, R->node_bytes[pat], nodes, MPI_LONG_LONG, MPI_SUM, 0, b->comm);
    }
    free(mine);
    MPI_Reduce(s->rounds, R->rounds, CONG_NPATTERNS, MPI_LONG_LONG, MPI_MAX, 0, b->comm);
    MPI_Reduce(&s->canary_wrong, &R->canary_wrong, 1, MPI_LONG_LONG, MPI_SUM, 0, b->comm);
    MPI_Reduce(&s->congestor_wrong, &R->congestor_wrong, 1, MPI_LONG_LONG, MPI_SUM, 0, b->comm);
    return 0;
}

/* The sample table, after the roles and buffers (cong_setup). */
static int cong_setup_all(struct hpcp_bench *b)
{
    struct cong_state *s = b->state;
    int rc = cong_setup(b), most = 0;
    if (rc)
        return rc;
    for (int c = 0; c < CONG_NCANARIES; c++)
        most = samples_of(&s->p, c) > most ? samples_of(&s->p, c) : most;
    s->mine = malloc((size_t)most * sizeof *s->mine);
    if (hpcp_any(b->comm, !s->mine)) {
        hpcp_error(b->comm, "cannot allocate the sample tables");
        return HPCP_EXIT_RUNTIME;
    }
    return 0;
}

static void cong_teardown_all(struct hpcp_bench *b)
{
    struct cong_state *s = b->state;
    free(s->mine);
    s->mine = NULL;
    cong_teardown(b);
}

/* The sweep: each asked canary under each of its conditions. */
static int cong_points(struct hpcp_bench *b)
{
    struct cong_state *s = b->state;
    return s->p.ncanaries * cong_conditions(&s->p);
}

static int cong_point(struct hpcp_bench *b, int i)
{
    struct cong_state *s = b->state;
    int conditions = cong_conditions(&s->p), k = i % conditions;
    s->canary = s->p.canary[i / conditions], s->condition = k;
    s->pattern = k == 0 || s->p.ncongestors == 0 ? -1
                 : s->p.mode == CONG_MODE_GPCNET ? CONG_NPATTERNS /* the four groups at once */
                                                 : s->p.congestor[k - 1];
    s->R->kept[s->canary] = kept_of(s, s->canary);
    /* test hook: spoil the first canary's first payload, checked on receipt */
    s->corrupt_now = i == 0 && hpcp_fault_corrupt_words() > 0 && b->rank == s->canary_leader;
    return 0;
}

/* One condition: the canary's samples (its --warmup ones first), every
 * message checked on receipt unless --no-verify; then its samples to rank 0. */
static int cong_run(struct hpcp_bench *b, double *seconds)
{
    struct cong_state *s = b->state;
    double t0 = MPI_Wtime();
    run_condition(s, b, s->canary, s->pattern, s->mine, samples_of(&s->p, s->canary));
    *seconds = MPI_Wtime() - t0;
    if (gather_samples(s, b, s->mine, s->canary, &s->R->samples[s->canary][s->condition]) == 0)
        return 0;
    hpcp_error(b->comm, "cannot allocate the sample tables on rank 0");
    return HPCP_EXIT_RUNTIME;
}

/* What the checks on receipt found so far: this rank's wrong messages. */
static int cong_verify(struct hpcp_bench *b, double *error)
{
    struct cong_state *s = b->state;
    *error = (double)(s->canary_wrong + s->congestor_wrong);
    return 0;
}

/* After the last condition: the congestors' bytes and rounds, the wrong
 * messages, to rank 0. */
static int cong_after_last(struct hpcp_bench *b)
{
    struct cong_state *s = b->state;
    if (gather_counts(s, b, s->R) == 0)
        return 0;
    hpcp_error(b->comm, "cannot allocate the sample tables on rank 0");
    return HPCP_EXIT_RUNTIME;
}

static void cong_record(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v)
{
    struct cong_state *s = b->state;
    (void)v; /* s->R has the wrong messages by kind, as the record names them */
    if (b->rank == 0)
        cong_build_record(r, b, s->R);
}

static void cong_print_hook(const struct hpcp_record *r, struct hpcp_bench *b)
{
    (void)b;
    cong_print(r);
}

static const struct hpcp_family_hooks cong_hooks = {.after_last = cong_after_last,
                                                    .points = cong_points,
                                                    .point = cong_point,
                                                    .record = cong_record,
                                                    .print = cong_print_hook};

/* --warmup is the canaries' untimed samples and the congestors' rounds
 * before the go (cong_canary_run, congest): each condition is one
 * repetition of the harness, with no warm-up runs of its own. */
int cong_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc, char **argv)
{
    struct cong_state s;
    struct cong_results R;
    memset(&s, 0, sizeof s);
    memset(&R, 0, sizeof R);
    s.R = &R;
    int rc = cong_params_prepare(&s.p, argc, argv, si);
    struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, &s, k};
    if (rc == 0) {
        struct hpcp_common c = s.p.run;
        c.repeat = 1, c.warmup = 0;
        rc = hpcp_harness_run(k, &b, &c, &cong_hooks);
    }
    for (int c = 0; c < CONG_NCANARIES; c++)
        for (int j = 0; j < CONG_MAX_CONDITIONS; j++)
            free(R.samples[c][j]);
    for (int p = 0; p < CONG_NPATTERNS; p++)
        free(R.node_bytes[p]);
    return rc;
}

const struct hpcp_kernel hpcp_congestion_load = {
    "congestion",
    "load",
    "gpcnet",
    "canaries alone and beside congestors (GPCNeT): latency, bandwidth, allreduce; the CIF",
    cong_driver,
    cong_setup_all,
    cong_run,
    cong_verify,
    cong_teardown_all,
    NULL,
    &cong_options_desc,
    &cong_records};
