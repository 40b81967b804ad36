/* `hpcprobe-bench pairs`: the bandwidth of every ordered (source,
 * destination) rank pair (paper 002 section 4.4), measured in the rounds of
 * a round-robin tournament (each rank in at most one pair at a time, every
 * pair of a round at once). Each pair: messages counted to last
 * --sample-time, then --repeat samples of them. Past --matrix-time, the
 * rounds not yet measured stay out (pairs_schedule.c: those covering every
 * rank and node pair come first). The record: pairs_record.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pairs.h"
#include "hpcprobe/device.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/link.h"
#include "hpcprobe/util.h"

enum { TAG_DATA = 300, TAG_ACK, TAG_COUNT };

struct transfer {
    MPI_Comm comm;
    char *buf;      /* the message buffer: host, or device with --buffers device */
    char *host;     /* --buffers device: pinned host memory (stamps, checks, staging) */
    int staged;     /* --buffers device through pinned host memory */
    size_t size;
    int messages;   /* the fewest timed messages of a sample */
    double want;    /* --sample-time */
    int samples;    /* --repeat */
    long wrong;
    int bad_from;  /* the source of the first wrong transfer this rank received, -1 */
    int corrupt;   /* HPCPROBE_INJECT_FAULT=corrupt:N: damage the next transfer received */
};

/* n messages to dst; staged, each copied from the device first (the branch
 * taken once, outside the loop the host buffers run). */
static void send_messages(struct transfer *t, int dst, int n)
{
    int bytes = (int)t->size;
    if (!t->staged) {
        for (int m = 0; m < n; m++)
            MPI_Send(t->buf, bytes, MPI_BYTE, dst, TAG_DATA, t->comm);
        return;
    }
    for (int m = 0; m < n; m++) {
        comm_stage_copy(t->host, t->buf, t->size);
        MPI_Send(t->host, bytes, MPI_BYTE, dst, TAG_DATA, t->comm);
    }
}

static void recv_messages(struct transfer *t, int src, int n)
{
    int bytes = (int)t->size;
    if (!t->staged) {
        for (int m = 0; m < n; m++)
            MPI_Recv(t->buf, bytes, MPI_BYTE, src, TAG_DATA, t->comm, MPI_STATUS_IGNORE);
        return;
    }
    for (int m = 0; m < n; m++) {
        MPI_Recv(t->host, bytes, MPI_BYTE, src, TAG_DATA, t->comm, MPI_STATUS_IGNORE);
        comm_stage_copy(t->buf, t->host, t->size);
    }
}

/* The stamp of (src, dst, seq) in the buffer MPI sends from: on the host, then
 * copied to the device. */
static void stamp(struct transfer *t, int src, int dst, long seq)
{
    comm_fill(t->host ? t->host : t->buf, t->size, src, dst, seq);
    if (t->host)
        comm_stage_copy(t->buf, t->host, t->size);
}

/* What arrived, checked on the host (device buffers: copied back first). */
static void check_received(struct transfer *t, int me, int src, long seq)
{
    char *got = t->buf;
    if (t->host) {
        got = t->host;
        memset(got, 0, t->size);
        comm_stage_copy(got, t->buf, t->size);
    }
    if (t->corrupt) {
        got[0] ^= 0x5a; /* the test hook: validation must see it */
        t->corrupt = 0;
    }
    if (comm_check(got, t->size, src, me, seq) >= 0) {
        t->wrong++;
        t->bad_from = t->bad_from < 0 ? src : t->bad_from;
    }
}

/* Sender: batches, each announced by its count and answered by an empty
 * message, until one lasts long enough to judge; then the count of a sample,
 * announced negated (the end of the batches). */
static int calibrate_send(struct transfer *t, int dst)
{
    int k = t->messages, n = t->messages, done = t->want <= 0;
    while (!done) {
        MPI_Send(&k, 1, MPI_INT, dst, TAG_COUNT, t->comm);
        double t0 = MPI_Wtime();
        send_messages(t, dst, k);
        MPI_Recv(NULL, 0, MPI_BYTE, dst, TAG_ACK, t->comm, MPI_STATUS_IGNORE);
        n = pairs_next_count(k, MPI_Wtime() - t0, t->want, t->messages, &done);
        k = n;
    }
    int end = -n;
    MPI_Send(&end, 1, MPI_INT, dst, TAG_COUNT, t->comm);
    return n;
}

static int calibrate_recv(struct transfer *t, int src)
{
    for (;;) {
        int k;
        MPI_Recv(&k, 1, MPI_INT, src, TAG_COUNT, t->comm, MPI_STATUS_IGNORE);
        if (k < 0)
            return -k;
        recv_messages(t, src, k);
        MPI_Send(NULL, 0, MPI_BYTE, src, TAG_ACK, t->comm);
    }
}

/* What the phases share (b->state). */
struct pairs_state {
    const struct comm_params *p;
    const char *note;
    struct transfer t;
    struct pairs_result R; /* order, covering and measured on every rank */
    double *mine;          /* this rank as source, per destination: median, least,
                              greatest, messages (4 x P, NaN where not measured) */
    double *sample;        /* one pair's samples (B/s) */
    long seq;              /* numbers the transfers (a pair, one direction) of the run */
};

/* One sample from src to dst: the sender stamps its buffer (the other
 * direction's data may have landed in it), sends one untimed message, then
 * n timed ones that the receiver answers with an empty message; the
 * receiver compares the last on receipt, after the sender's clock stopped.
 * The sender's bandwidth (B/s), 0 on the receiver. */
static double one_sample(struct transfer *t, int me, int src, int dst, int n, long seq)
{
    if (me == src) {
        stamp(t, src, dst, seq);
        send_messages(t, dst, 1);
        double t0 = MPI_Wtime();
        send_messages(t, dst, n);
        MPI_Recv(NULL, 0, MPI_BYTE, dst, TAG_ACK, t->comm, MPI_STATUS_IGNORE);
        double sec = MPI_Wtime() - t0;
        return sec > 0 ? (double)t->size * n / sec : NAN;
    }
    recv_messages(t, src, n + 1);
    MPI_Send(NULL, 0, MPI_BYTE, src, TAG_ACK, t->comm);
    check_received(t, me, src, seq);
    return 0;
}

/* The sender's figures for dst from its samples: median, least, greatest,
 * and the messages of a sample. */
static void keep_pair(struct pairs_state *s, int dst, int ranks, int n)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < s->t.samples; k++)
        lo = fmin(lo, s->sample[k]), hi = fmax(hi, s->sample[k]);
    s->mine[dst] = hpcp_median(s->sample, s->t.samples);
    s->mine[ranks + dst] = lo, s->mine[2 * ranks + dst] = hi, s->mine[3 * ranks + dst] = n;
}

/* One round, all its pairs at once: each pair counts the messages of both
 * directions, then takes the samples alternately low -> high and high ->
 * low, so that both directions see the same moments of a busy machine (a
 * barrier starts each; ranks that wait sleep, for oversubscribed runs). */
static void measure_round(struct pairs_state *s, int me, int ranks, int round)
{
    struct transfer *t = &s->t;
    int other = pairs_partner(ranks, round, me), n[2] = {0, 0}, sending = -1;
    int low = me < other ? me : other, high = me < other ? other : me;
    hpcp_idle_barrier(t->comm);
    for (int dir = 0; other >= 0 && dir < 2; dir++) {
        int src = dir ? high : low;
        n[dir] = me == src ? calibrate_send(t, other) : calibrate_recv(t, other);
        sending = me == src ? dir : sending;
    }
    for (int k = 0; k < t->samples; k++)
        for (int dir = 0; dir < 2; dir++) {
            hpcp_idle_barrier(t->comm);
            if (other < 0)
                continue;
            double bw = one_sample(t, me, dir ? high : low, dir ? low : high, n[dir], s->seq + dir);
            if (dir == sending)
                s->sample[k] = bw;
        }
    if (other >= 0)
        keep_pair(s, other, ranks, n[sending]);
    s->seq += 2;
}

/* The message buffer (device memory and a pinned host one with --buffers
 * device), written once so that no first touch lands in a timed message. */
static int alloc_buffers(struct transfer *t, const struct comm_params *p)
{
    if (!p->dev.on) {
        t->buf = malloc(p->size);
        if (t->buf)
            memset(t->buf, 0, p->size);
        return t->buf ? 0 : -1;
    }
    t->staged = p->dev.transfer == COMM_TRANSFER_STAGED;
    t->buf = hpcp_device_alloc(p->size);
    t->host = hpcp_host_pinned_alloc(p->size);
    if (!t->buf || !t->host)
        return -1;
    memset(t->host, 0, p->size);
    return hpcp_device_memset(t->buf, 0, p->size) == 0 ? 0 : -1;
}

static void free_buffers(struct transfer *t, const struct comm_params *p)
{
    if (!p->dev.on) {
        free(t->buf);
        return;
    }
    hpcp_device_free(t->buf);
    hpcp_host_pinned_free(t->host);
}

/* Rank 0 orders the rounds from each rank's host (metadata.hosts), every
 * rank gets the order. Collective; 0 or -1 (out of memory somewhere). */
static int plan_rounds(struct pairs_state *s, struct hpcp_bench *b)
{
    int rounds = pairs_rounds(b->ranks);
    struct pairs_result *R = &s->R;
    R->order = malloc((size_t)rounds * sizeof *R->order);
    if (b->rank == 0)
        R->node = malloc((size_t)b->ranks * sizeof *R->node);
    if (hpcp_any(b->comm, !R->order || (b->rank == 0 && !R->node)))
        return -1;
    MPI_Gather(&s->p->place.host_index, 1, MPI_INT, R->node, 1, MPI_INT, 0, b->comm);
    if (b->rank == 0)
        R->covering = pairs_order(b->ranks, R->node, s->p->run.seed, R->order);
    MPI_Bcast(&R->covering, 1, MPI_INT, 0, b->comm);
    if (R->covering < 0)
        return -1;
    MPI_Bcast(R->order, rounds, MPI_INT, 0, b->comm);
    return 0;
}

static int pairs_setup(struct hpcp_bench *b)
{
    struct pairs_state *s = b->state;
    const struct comm_params *p = s->p;
    int ranks = b->ranks;
    /* HPCPROBE_INJECT_FAULT=corrupt:N damages the first transfer rank 0
     * receives: its check is made on receipt, before the next overwrites it. */
    s->t = (struct transfer){.comm = b->comm,
                             .size = p->size,
                             .messages = p->messages,
                             .want = p->sample_time,
                             .samples = p->run.repeat,
                             .bad_from = -1,
                             .corrupt = b->rank == 0 && hpcp_fault_corrupt_words() > 0};
    int bad = alloc_buffers(&s->t, p) != 0;
    s->mine = malloc((size_t)4 * ranks * sizeof *s->mine);
    s->sample = malloc((size_t)p->run.repeat * sizeof *s->sample);
    for (int i = 0; s->mine && i < 4 * ranks; i++)
        s->mine[i] = NAN;
    struct pairs_result *R = &s->R;
    if (b->rank == 0) {
        size_t cells = (size_t)ranks * ranks;
        R->bw = malloc(cells * sizeof *R->bw), R->lo = malloc(cells * sizeof *R->lo);
        R->hi = malloc(cells * sizeof *R->hi), R->msgs = malloc(cells * sizeof *R->msgs);
        R->same = malloc(cells * sizeof *R->same);
        bad |= !R->bw || !R->lo || !R->hi || !R->msgs || !R->same;
    }
    bad = hpcp_any(b->comm, bad || !s->mine || !s->sample);
    return bad || plan_rounds(s, b) != 0 ? HPCP_EXIT_RUNTIME : 0;
}

static void pairs_setup_failed(struct hpcp_bench *b)
{
    hpcp_error(b->comm, "pairs: cannot allocate %zu B messages",
               ((struct pairs_state *)b->state)->p->size);
}

/* The rounds in their order, until the next one would pass --matrix-time
 * (at the mean time of a round so far) once every rank and node pair is
 * covered; rank 0's clock decides for all. */
static int pairs_run(struct hpcp_bench *b, double *seconds)
{
    struct pairs_state *s = b->state;
    struct pairs_result *R = &s->R;
    int rounds = pairs_rounds(b->ranks), stop = 0;
    double t0 = MPI_Wtime();
    for (R->measured = 0; R->measured < rounds && !stop;) {
        measure_round(s, b->rank, b->ranks, R->order[R->measured++]);
        double spent = MPI_Wtime() - t0;
        stop = R->measured >= R->covering && spent + spent / R->measured > s->p->matrix_time;
        MPI_Bcast(&stop, 1, MPI_INT, 0, b->comm);
    }
    *seconds = R->seconds = MPI_Wtime() - t0;
    return 0;
}

/* What the receivers' comparisons found: the wrong samples, and the lowest
 * rank that received one and from whom. */
static int pairs_verify(struct hpcp_bench *b, double *error)
{
    struct pairs_state *s = b->state;
    struct pairs_result *R = &s->R;
    MPI_Allreduce(&s->t.wrong, &R->wrong, 1, MPI_LONG, MPI_SUM, b->comm);
    struct {
        int rank, from;
    } bad = {s->t.bad_from >= 0 ? b->rank : b->ranks, s->t.bad_from}, first;
    MPI_Allreduce(&bad, &first, 1, MPI_2INT, MPI_MINLOC, b->comm);
    R->bad_rank = first.rank, R->bad_from = first.from;
    *error = (double)s->t.wrong;
    return 0;
}

static void pairs_teardown(struct hpcp_bench *b)
{
    struct pairs_state *s = b->state;
    struct pairs_result *R = &s->R;
    free_buffers(&s->t, s->p);
    free(s->mine), free(s->sample);
    free(R->bw), free(R->lo), free(R->hi), free(R->msgs), free(R->same);
    free(R->node), free(R->order);
    s->mine = s->sample = NULL;
    R->bw = R->lo = R->hi = R->msgs = R->same = NULL;
    R->node = R->order = NULL;
}

/* Rank 0: the senders' rows (median, least, greatest, messages), what the
 * measured rounds cover, and their pairs without a figure. */
static void gather_rows(struct hpcp_bench *b)
{
    struct pairs_state *s = b->state;
    struct pairs_result *R = &s->R;
    int ranks = b->ranks;
    double *into[4] = {R->bw, R->lo, R->hi, R->msgs};
    for (int m = 0; m < 4; m++)
        MPI_Gather(s->mine + (size_t)m * ranks, ranks, MPI_DOUBLE, into[m], ranks, MPI_DOUBLE, 0,
                   b->comm);
    if (b->rank != 0)
        return;
    pairs_coverage(ranks, R->node, R->order, R->measured, &R->cover);
    R->missing = 0;
    for (int k = 0; k < R->measured; k++)
        for (int i = 0; i < ranks; i++) {
            int j = pairs_partner(ranks, R->order[k], i);
            double v = j < 0 ? 1 : R->bw[(size_t)i * ranks + j];
            R->missing += !(isfinite(v) && v > 0);
        }
}

/* Rank 0: same[i][j] = 1 when ranks i and j share a node (symmetric). */
static void node_matrix(MPI_Comm comm, double *same)
{
    int ranks;
    MPI_Comm_size(comm, &ranks);
    int *all = comm_node_ids(comm);
    for (int i = 0; all && i < ranks; i++)
        for (int j = 0; j < ranks; j++)
            same[(size_t)i * ranks + j] = all[i] == all[j];
    free(all);
}

/* Bytes a rank's buffer takes; refused (one line) when the ranks of a
 * node would need more than 90% of its available memory. */
static int fits(const struct comm_params *p, const struct hpcp_sysinfo *si)
{
    double avail = 0.9 * (double)hpcp_meminfo_bytes("MemAvailable:");
    double need = (double)p->size * si->ranks_on_my_node;
    if (!hpcp_any(MPI_COMM_WORLD, avail > 0 && need > avail))
        return 0;
    char a[32], b[32];
    hpcp_error(MPI_COMM_WORLD,
               "--size %zu: %d ranks on a node need %s, more than 90%% of the "
               "memory available (%s); allowed: smaller messages",
               p->size, si->ranks_on_my_node, hpcp_format_bytes(need, a, sizeof a),
               hpcp_format_bytes(avail / 0.9, b, sizeof b));
    return HPCP_EXIT_USAGE;
}

static void pairs_record(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v)
{
    struct pairs_state *s = b->state;
    int nodes, rpn;
    (void)v; /* s->R holds what the checks found, with the ranks to name */
    gather_rows(b);
    node_matrix(b->comm, s->R.same);
    comm_layout(b->comm, &nodes, &rpn);
    if (b->rank == 0) {
        pairs_build_record(r, b->kernel, s->p, b->si, &s->R, b->ranks, s->note);
        r->nodes = nodes, r->ranks_per_node_max = rpn;
    }
    comm_record_done(r, b->comm, s->p);
}

static void pairs_print(const struct hpcp_record *r, struct hpcp_bench *b)
{
    pairs_print_results(r, &((struct pairs_state *)b->state)->R);
}

static const struct hpcp_family_hooks pairs_hooks = {
    .setup_failed = pairs_setup_failed, .record = pairs_record, .print = pairs_print};

/* One run of the schedule: --repeat is the samples of each pair (pairs
 * takes no --warmup: the calibration and each sample's first message are
 * untimed). */
int hpcp_pairs_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                      char **argv)
{
    struct comm_params p;
    MPI_Comm work;
    char note[256];
    int rc = comm_begin(&p, "pairs", k->variant, argc, argv, si, 2, "it measures between ranks",
                        &work, note, sizeof note);
    if (rc)
        return rc;
    if ((rc = comm_device_open(&p.dev, "pairs", si)) == 0 && (rc = fits(&p, si)) == 0) {
        struct pairs_state s;
        memset(&s, 0, sizeof s);
        s.p = &p, s.note = note;
        struct hpcp_bench b = comm_bench(work, si, &s, k);
        struct hpcp_common c = p.run;
        c.repeat = 1, c.warmup = 0, c.verify = 1;
        rc = hpcp_harness_run(k, &b, &c, &pairs_hooks);
    }
    MPI_Comm_free(&work);
    return rc;
}

const struct hpcp_kernel hpcp_pairs_bandwidth = {
    "pairs",
    "bandwidth",
    "tournament",
    "bandwidth of every ordered rank pair, rounds of disjoint pairs, sampled past a time "
    "budget (paper 002 4.4)",
    hpcp_pairs_driver,
    pairs_setup,
    pairs_run,
    pairs_verify,
    pairs_teardown,
    NULL,
    &comm_options_desc,
    &pairs_records};
