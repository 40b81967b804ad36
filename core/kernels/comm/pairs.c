/* `hpcprobe-bench pairs`: the bandwidth of every ordered (source,
 * destination) rank pair (paper 002 section 4.4), scheduled as a
 * round-robin tournament so that each rank is in at most one pair at a
 * time; and which pairs share a node. One P x P matrix each in the record. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "hpcprobe/device.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/link.h"
#include "hpcprobe/util.h"

enum { TAG_DATA = 300, TAG_ACK };

int pairs_partner(int ranks, int round, int rank)
{
    int n = ranks + ranks % 2; /* odd: a bye, as a rank that does not exist */
    int partner;
    if (rank == n - 1)
        partner = round;
    else if (rank == round)
        partner = n - 1;
    else
        partner = ((2 * round - rank) % (n - 1) + (n - 1)) % (n - 1);
    return partner >= ranks ? -1 : partner;
}

int pairs_rounds(int ranks)
{
    return ranks < 2 ? 0 : ranks + ranks % 2 - 1;
}

struct transfer {
    MPI_Comm comm;
    char *buf;      /* the message buffer: host, or device with --buffers device */
    char *host;     /* --buffers device: pinned host memory (stamps, checks, staging) */
    int staged;     /* --buffers device through pinned host memory */
    size_t size;
    int messages;
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

/* `messages` messages from src to dst after one untimed one; dst answers
 * the last with an empty message. The sender's bandwidth (B/s), 0 elsewhere. */
static double transfer(struct transfer *t, int me, int src, int dst, long seq)
{
    if (me == src) {
        stamp(t, src, dst, seq);
        send_messages(t, dst, 1);
        double t0 = MPI_Wtime();
        send_messages(t, dst, t->messages);
        MPI_Recv(NULL, 0, MPI_BYTE, dst, TAG_ACK, t->comm, MPI_STATUS_IGNORE);
        double s = MPI_Wtime() - t0;
        return s > 0 ? (double)t->size * t->messages / s : NAN;
    }
    recv_messages(t, src, t->messages + 1);
    MPI_Send(NULL, 0, MPI_BYTE, src, TAG_ACK, t->comm);
    check_received(t, me, src, seq);
    return 0;
}

/* One repetition: every round, both directions of each pair in turn, all
 * pairs of a round at once (a barrier starts each direction). row[d]: this
 * rank's bandwidth to d; *seq numbers the transfers of the whole run. */
static void schedule(struct transfer *t, long *seq, double *row)
{
    int me, ranks;
    MPI_Comm_rank(t->comm, &me);
    MPI_Comm_size(t->comm, &ranks);
    for (int round = 0; round < pairs_rounds(ranks); round++) {
        int other = pairs_partner(ranks, round, me);
        for (int dir = 0; dir < 2; dir++, (*seq)++) {
            MPI_Barrier(t->comm);
            if (other < 0)
                continue;
            int low = me < other ? me : other, high = me < other ? other : me;
            int src = dir ? high : low, dst = dir ? low : high;
            double bw = transfer(t, me, src, dst, *seq);
            if (me == src)
                row[dst] = bw;
        }
    }
}

struct pairs_result {
    double *bw, *same;       /* rank 0: P x P, row = source */
    long wrong;
    int bad_rank, bad_from;  /* the lowest rank that received wrong data, and from whom */
};

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

/* What the phases share (b->state). */
struct pairs_state {
    const struct comm_params *p;
    const char *note;
    struct transfer t;
    struct pairs_result R;
    double *rows, *mine; /* this rank's bandwidths, repetition-major; their medians */
    long seq;
    int rep;
};

static int pairs_setup(struct hpcp_bench *b)
{
    struct pairs_state *s = b->state;
    const struct comm_params *p = s->p;
    int repeat = p->run.repeat, ranks = b->ranks;
    /* HPCPROBE_INJECT_FAULT=corrupt:N damages the first transfer rank 0
     * receives: its check is made on receipt, before the next overwrites it. */
    s->t = (struct transfer){.comm = b->comm,
                             .size = p->size,
                             .messages = p->messages,
                             .bad_from = -1,
                             .corrupt = b->rank == 0 && hpcp_fault_corrupt_words() > 0};
    int nobuf = alloc_buffers(&s->t, p) != 0;
    s->rows = malloc((size_t)repeat * ranks * sizeof *s->rows);
    s->mine = malloc((size_t)ranks * sizeof *s->mine);
    if (b->rank == 0) {
        s->R.bw = malloc((size_t)ranks * ranks * sizeof *s->R.bw);
        s->R.same = malloc((size_t)ranks * ranks * sizeof *s->R.same);
    }
    return hpcp_any(b->comm,
                    nobuf || !s->rows || !s->mine || (b->rank == 0 && (!s->R.bw || !s->R.same)))
               ? HPCP_EXIT_RUNTIME
               : 0;
}

static void pairs_setup_failed(struct hpcp_bench *b)
{
    hpcp_error(b->comm, "pairs: cannot allocate %zu B messages",
               ((struct pairs_state *)b->state)->p->size);
}

/* Every ordered pair once; each receiver compares the last message of a
 * transfer on receipt (after the sender's clock stopped). */
static int pairs_run(struct hpcp_bench *b, double *seconds)
{
    struct pairs_state *s = b->state;
    double t0 = MPI_Wtime();
    schedule(&s->t, &s->seq, s->rows + (size_t)s->rep++ * b->ranks);
    *seconds = MPI_Wtime() - t0;
    return 0;
}

/* What the receivers' comparisons found over every repetition: the wrong
 * transfers, and the lowest rank that received one and from whom. */
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
    free_buffers(&s->t, s->p);
    free(s->rows), free(s->mine), free(s->R.bw), free(s->R.same);
    s->rows = s->mine = s->R.bw = s->R.same = NULL;
}

/* Rank 0: each pair's median over the repetitions, row = source. */
static void gather_medians(struct hpcp_bench *b)
{
    struct pairs_state *s = b->state;
    int repeat = s->rep, ranks = b->ranks;
    double col[1000];
    for (int d = 0; d < ranks; d++) {
        for (int rep = 0; rep < repeat; rep++)
            col[rep] = s->rows[(size_t)rep * ranks + d];
        s->mine[d] = d == b->rank ? NAN : hpcp_median(col, repeat);
    }
    MPI_Gather(s->mine, ranks, MPI_DOUBLE, s->R.bw, ranks, MPI_DOUBLE, 0, b->comm);
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

/* The off-diagonal bandwidths: all of them, those within a node, those across. */
static void add_metrics(struct hpcp_record *r, const struct pairs_result *R, int ranks)
{
    size_t cells = (size_t)ranks * ranks;
    double *all = malloc(cells * sizeof *all), *in = malloc(cells * sizeof *in);
    double *out = malloc(cells * sizeof *out);
    int n = 0, nin = 0, nout = 0;
    for (size_t c = 0; all && in && out && c < cells; c++) {
        if (c / (size_t)ranks == c % (size_t)ranks)
            continue;
        all[n++] = R->bw[c];
        if (R->same[c])
            in[nin++] = R->bw[c];
        else
            out[nout++] = R->bw[c];
    }
    hpcp_record_metric(r, "pair_bandwidth", "B/s", all, n, 1);
    if (nin)
        hpcp_record_metric(r, "intra_node_bandwidth", "B/s", in, nin, 1);
    if (nout)
        hpcp_record_metric(r, "inter_node_bandwidth", "B/s", out, nout, 1);
    r->headline_metric = "pair_bandwidth";
    r->headline_statistic = "min";
    free(all), free(in), free(out);
}

/* The fastest pair across nodes against HPCPROBE_LINK_LIMIT: its transfer
 * had to cross a link at least that slow, so a faster one did not cross it. */
static void check_link(struct hpcp_record *r, const struct comm_params *p,
                       const struct hpcp_sysinfo *si, const struct pairs_result *R, int ranks)
{
    size_t cells = (size_t)ranks * ranks, worst = cells;
    for (size_t c = 0; c < cells; c++)
        if (!R->same[c] && isfinite(R->bw[c]) && (worst == cells || R->bw[c] > R->bw[worst]))
            worst = c;
    if (worst == cells)
        return;
    char what[64];
    snprintf(what, sizeof what, "pairs, rank %d to %d", (int)(worst / (size_t)ranks),
             (int)(worst % (size_t)ranks));
    hpcp_link_check(r, &si->link_limit, what, R->bw[worst], (double)p->size * p->messages);
}

static void build_record(struct hpcp_record *r, const struct hpcp_kernel *k,
                         const struct comm_params *p, const struct hpcp_sysinfo *si,
                         const struct pairs_result *R, int ranks, const char *note)
{
    hpcp_record_init(r, "pairs", k->variant, k->algorithm, si);
    hpcp_record_param_int(r, "message_bytes", (long long)p->size);
    hpcp_record_param_int(r, "messages_per_transfer", p->messages);
    hpcp_record_param_int(r, "repetitions", p->run.repeat);
    hpcp_record_param_int(r, "rounds", pairs_rounds(ranks));
    hpcp_record_param_string(r, "statistic", "median over repetitions");
    comm_device_record(r, &p->dev);
    hpcp_record_matrix(r, "bandwidth", "src_rank", "dst_rank", "B/s", "median", R->bw, ranks,
                       ranks);
    hpcp_record_matrix(r, "same_node", "rank", "rank", "1", "last", R->same, ranks, ranks);
    add_metrics(r, R, ranks);
    double wrong = (double)R->wrong;
    hpcp_record_validation(r,
                           "the last message of every transfer carries a pattern of "
                           "(source, destination, transfer) in every byte, compared on "
                           "receipt; error = transfers with wrong data",
                           "1", &wrong, 1, 0);
    if (R->wrong)
        hpcp_record_validation_detail(r,
                                      "pairs: rank %d received wrong data from rank %d at "
                                      "%zu B (%ld transfer(s) wrong in all)",
                                      R->bad_rank, R->bad_from, p->size, R->wrong);
    check_link(r, p, si, R, ranks);
    if (note[0])
        hpcp_record_note(r, "%s", note);
}

static void summary_line(const char *what, const struct hpcp_record *r, const char *metric)
{
    for (int m = 0; m < r->nmetrics; m++) {
        const struct hpcp_metric *x = &r->metrics[m];
        if (strcmp(x->name, metric) != 0 || x->nsamples == 0)
            continue;
        double lo = INFINITY, hi = 0, sum = 0;
        for (int i = 0; i < x->nsamples; i++)
            lo = fmin(lo, x->samples[i]), hi = fmax(hi, x->samples[i]), sum += x->samples[i];
        printf("  %-11s %5d pairs  min %9.3f  mean %9.3f  max %9.3f GB/s\n", what, x->nsamples,
               lo / 1e9, sum / x->nsamples / 1e9, hi / 1e9);
    }
}

static void print_results(const struct hpcp_record *r, const void *ctx)
{
    const struct pairs_result *R = ctx;
    int ranks = r->ranks;
    printf("pairs: %d ranks, %d node(s), %lld B messages: validation %s\n", ranks, r->nodes,
           (long long)r->params[0].i, hpcp_verdict_word(r->validation.verdict));
    summary_line("intra-node", r, "intra_node_bandwidth");
    summary_line("inter-node", r, "inter_node_bandwidth");
    if (ranks > 16)
        return;
    printf("  GB/s, row = source rank, column = destination rank (* = same node)\n      ");
    for (int j = 0; j < ranks; j++)
        printf(" %8d", j);
    printf("\n");
    for (int i = 0; i < ranks; i++) {
        printf("  %4d", i);
        for (int j = 0; j < ranks; j++) {
            double v = R->bw[(size_t)i * ranks + j];
            if (i == j)
                printf(" %8s", "-");
            else
                printf(" %7.2f%c", v / 1e9, R->same[(size_t)i * ranks + j] ? '*' : ' ');
        }
        printf("\n");
    }
    fflush(stdout);
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
    gather_medians(b);
    node_matrix(b->comm, s->R.same);
    comm_layout(b->comm, &nodes, &rpn);
    if (b->rank == 0) {
        build_record(r, b->kernel, s->p, b->si, &s->R, b->ranks, s->note);
        r->nodes = nodes, r->ranks_per_node_max = rpn;
    }
    comm_record_done(r, b->comm, s->p);
}

static void pairs_print(const struct hpcp_record *r, struct hpcp_bench *b)
{
    print_results(r, &((struct pairs_state *)b->state)->R);
}

static const struct hpcp_family_hooks pairs_hooks = {
    .setup_failed = pairs_setup_failed, .record = pairs_record, .print = pairs_print};

/* --repeat repetitions of the whole tournament (pairs takes no --warmup:
 * each transfer sends one untimed message first). */
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
        c.warmup = 0, c.verify = 1;
        rc = hpcp_harness_run(k, &b, &c, &pairs_hooks);
    }
    MPI_Comm_free(&work);
    return rc;
}

const struct hpcp_kernel hpcp_pairs_bandwidth = {
    "pairs",
    "bandwidth",
    "tournament",
    "bandwidth of every ordered rank pair, one pair per rank at a time (paper 002 4.4)",
    hpcp_pairs_driver,
    pairs_setup,
    pairs_run,
    pairs_verify,
    pairs_teardown,
    NULL,
    &comm_options_desc,
    &pairs_records};
