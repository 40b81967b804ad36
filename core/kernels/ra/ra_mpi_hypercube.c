/* RandomAccess `mpi`, algorithm `hypercube`: Plimpton et al.'s synchronous
 * all-to-all routed through the dimensions of a hypercube. Each tick a rank
 * generates a batch of updates; then, stage by stage, the partition of
 * ranks (first all of them) is halved: a rank keeps the updates owned in its
 * half and sends the others to the other half; after the last stage it owns
 * everything it holds. log2(P) messages of ~batch/2 words per rank per tick
 * instead of P - 1 messages.
 *
 * Any P: a partition of 2N+1 ranks has halves of N and N+1. Lower rank i
 * sends (N-i)/(N+1) of its list to upper rank i and the rest to upper i+1;
 * upper rank j sends j/N to lower j-1 and the rest to lower j. Each rank
 * then receives about as much as the others of its half (the paper's
 * balanced odd exchange: two messages each way, one at the ends).
 *
 * Two forms (--overlap):
 *  - off, lock-step: a tick is the paper's step. Stage j's input is what
 *    stage j-1 kept and received in the same tick, so each stage waits for
 *    its partners' messages of that tick. Switches (--mods, Table 3):
 *    prepost (Mod1), late-update (Mod2), late-wait (Mod3), isend (Mod6/7).
 *  - on, pipelined: stage j's input is what stage j-1 kept this tick and
 *    received two ticks before, so a message has a whole tick to arrive
 *    while its receiver generates, splits and updates; a batch is through
 *    after at most 2 log2(P) ticks, and as many at the end drain the pipe.
 *    The last stage's arrivals are queued first in the tick that reads
 *    them, and the loop that generates and splits the batch passes one
 *    queued update per step to one prefetching applier that runs on across
 *    ticks: the table's misses overlap the routing work and never stop for
 *    a message. A batch is Q minus the applier's depth, and the last
 *    tick's sends complete before the next batch is generated: this rank's
 *    own updates held (in its lists, its unfinished sends and the applier)
 *    never pass Q (max_lookahead in the record).
 * Every message of a tick is sent even when empty, so a receiver knows what
 * to wait for. A message holds at most `msg_cap` words (the size of a
 * posted receive); a longer list sends the rest in a second message with an
 * overflow tag, so no list length is ever refused. The stages' plan, the
 * memory and the teardown: ra_mpi_hypercube_setup.c. */
#include <string.h>

#include "hpcprobe/record.h"
#include "hpcprobe/util.h"
#include "ra_mpi.h"
#include "ra_mpi_hypercube.h"
#include "ra_mpi_hypercube_split.h"
#include "ra_threads.h"

/* Time stamps around every MPI call of the exchange. The TSC costs about
 * 20 cycles a read: the 2-rank pipelined form ran no slower than without
 * them (0.498 against 0.477 GUPS, medians of 5 interleaved launches at
 * 2^27). Timing a sample of ticks instead would let one partner
 * descheduled in a sampled tick multiply the figure. */
static void exchange_timed(struct hc *h, uint64_t t0)
{
    h->exchange_ticks += ra_ticks() - t0;
    h->exchange_calls++;
}

/* What a timed interval adds by itself: the least of a few back-to-back reads. */
static uint64_t clock_overhead_ticks(void)
{
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < 64; i++) {
        uint64_t t0 = ra_ticks(), t1 = ra_ticks();
        least = t1 - t0 < least ? t1 - t0 : least;
    }
    return least;
}

/* The exchange's time in nanoseconds, at ticks_per_ns measured over the run. */
static long long exchange_ns(const struct hc *h, double ticks_per_ns)
{
    uint64_t overhead = h->exchange_calls * clock_overhead_ticks();
    uint64_t ticks = h->exchange_ticks > overhead ? h->exchange_ticks - overhead : 0;
    return (long long)((double)ticks / ticks_per_ns);
}

static uint64_t *recv_slot(const struct hc *h, struct exchange *x, int j, int f)
{
    return x->recvbuf + ((size_t)j * 2 + (size_t)f) * (size_t)h->msg_cap;
}

static int lands_in_queue(const struct hc *h, int j)
{
    return h->lag && j == h->nstages - 1 && h->stage[j].nrecv == 1;
}

static void post_receives(struct hc *h, struct exchange *x, int j)
{
    uint64_t t0 = ra_ticks();
    for (int f = 0; f < h->stage[j].nrecv; f++)
        MPI_Irecv(lands_in_queue(h, j) ? x->queue.v : recv_slot(h, x, j, f), h->msg_cap,
                  MPI_UINT64_T, h->stage[j].from[f], j, h->comm, &x->rreq[j][f]);
    exchange_timed(h, t0);
}

/* Send stage j's list: a share to each target, the part beyond msg_cap in
 * a second, always non-blocking, message (two blocking overflow sends
 * towards each other could wait for each other forever). */
static void send_stage(struct ra_state *s, struct hc *h, struct exchange *x, int j, int nonblocking)
{
    const struct stage *st = &h->stage[j];
    struct list *sl = &x->send[j];
    size_t first = (size_t)((long long)sl->n * st->share_num / st->share_den);
    uint64_t t0 = ra_ticks();
    for (int t = 0; t < st->nsend; t++) {
        const uint64_t *v = sl->v + (t ? first : 0);
        size_t n = t ? sl->n - first : (st->nsend == 1 ? sl->n : first);
        size_t head = n < (size_t)h->msg_cap ? n : (size_t)h->msg_cap;
        if (nonblocking)
            MPI_Isend(v, (int)head, MPI_UINT64_T, st->to[t], j, h->comm, &x->sreq[j][t][0]);
        else
            MPI_Send(v, (int)head, MPI_UINT64_T, st->to[t], j, h->comm);
        if (head == (size_t)h->msg_cap)
            MPI_Isend(v + head, (int)(n - head), MPI_UINT64_T, st->to[t], j + OVERFLOW_TAG, h->comm,
                      &x->sreq[j][t][1]);
        s->messages_sent += 1 + (head == (size_t)h->msg_cap);
        s->bytes_sent += (long long)(n * sizeof(uint64_t));
    }
    exchange_timed(h, t0);
}

/* Wait for stage j's receives; a full one has an overflow message behind it. */
static int wait_receives(struct hc *h, struct exchange *x, int j)
{
    MPI_Status st[2];
    int failed = 0, tag = j + OVERFLOW_TAG;
    uint64_t t0 = ra_ticks();
    ra_mpi_waitall(h->stage[j].nrecv, x->rreq[j], st);
    for (int f = 0; f < h->stage[j].nrecv; f++) {
        MPI_Get_count(&st[f], MPI_UINT64_T, &x->recvd[j][f]);
        x->extra[j][f].n = 0;
        if (x->recvd[j][f] < h->msg_cap)
            continue;
        MPI_Status ost;
        int more = 0;
        MPI_Probe(h->stage[j].from[f], tag, h->comm, &ost);
        MPI_Get_count(&ost, MPI_UINT64_T, &more);
        struct list *e = &x->extra[j][f];
        failed |= ra_reserve(&e->v, &e->cap, (size_t)more);
        MPI_Recv(failed ? NULL : e->v, failed ? 0 : more, MPI_UINT64_T, h->stage[j].from[f], tag,
                 h->comm, MPI_STATUS_IGNORE);
        e->n = failed ? 0 : (size_t)more;
    }
    exchange_timed(h, t0);
    return failed;
}

static long long received_words(const struct hc *h, const struct exchange *x, int j)
{
    long long n = 0;
    for (int f = 0; f < h->stage[j].nrecv; f++)
        n += x->recvd[j][f] + (long long)x->extra[j][f].n;
    return n;
}

/* The sends of exchange x are complete: their lists are free again and
 * the updates in them no longer held here. */
static void complete_sends(struct hc *h, struct exchange *x)
{
    uint64_t t0 = ra_ticks();
    ra_mpi_waitall(h->nstages * 2 * 2, &x->sreq[0][0][0], MPI_STATUSES_IGNORE);
    exchange_timed(h, t0);
    for (int j = 0; j < h->nstages; j++)
        x->send[j].n = 0;
}

static void note_pending(struct ra_state *s, long long held)
{
    s->max_pending = held > s->max_pending ? held : s->max_pending;
}

/* A tick: the exchange of this tick and the one whose messages stage j
 * reads (the same one lock-step, PIPELINED_LAG ticks back pipelined), and
 * whether this tick's messages are sent at all (not in the pipelined form's
 * last ticks, where no one would read them) or read (not in its first). */
struct tick {
    struct exchange *now, *in;
    int sends, reads;
};

static int nonblocking_sends(const struct ra_state *s)
{
    return s->p.overlap || (s->p.mods & RA_MOD_ISEND);
}

static int apart(const struct ra_state *s)
{
    return s->p.overlap || (s->p.mods & RA_MOD_LATE_UPDATE);
}

/* Split a list into stage j's outputs: mine, the keep-list stage j+1 reads
 * (keep[j % 2]) and this tick's send[j]. Pipelined, generating a batch
 * feeds the applier as it goes. */
static int split_into(struct ra_state *s, struct hc *h, struct tick *t, int j, const uint64_t *v,
                      uint64_t *rng_state, size_t n)
{
    struct list *keep = &h->keep[j % 2], *send = &t->now->send[j];
    if (reserve_outputs(&h->mine, keep, send, n))
        return -1;
    if (h->lag && rng_state && h->apply.depth) {
        /* The ring full first, from what is queued, for the loop's swaps. */
        size_t fill = h->apply.depth - h->apply.held, queued = h->mine.n - h->fed;
        fill = fill < queued ? fill : queued;
        ra_applier_add(&h->apply, h->mine.v + h->fed, fill);
        h->fed += fill;
        if (h->apply.held == h->apply.depth) {
            split_feeding_any(s, &h->stage[j], h->me, rng_state, n, &h->mine, keep, send, &h->apply,
                              &h->fed);
            return 0;
        }
    }
    split(s, &h->stage[j], h->me, apart(s), v, rng_state, n, &h->mine, keep, send);
    return 0;
}

/* Copy a list's words to the end of another; -1 when out of memory. An
 * empty list may have no words at all (v NULL). */
static int append(struct list *to, const struct list *from)
{
    if (!from->n)
        return 0;
    if (ra_reserve(&to->v, &to->cap, to->n + from->n + 1))
        return -1;
    memcpy(to->v + to->n, from->v, from->n * sizeof(uint64_t));
    to->n += from->n;
    return 0;
}

/* Pipelined: the last stage's arrivals of exchange x join mine, to be fed
 * to the applier while this tick's batch is generated. */
static int queue_arrivals(struct hc *h, struct exchange *x, int j)
{
    if (lands_in_queue(h, j)) { /* mine is empty at a tick's start: swap, then the overflow */
        struct list was = h->mine;
        h->mine = x->queue;
        h->mine.n = (size_t)x->recvd[j][0];
        x->queue = was;
        return append(&h->mine, &x->extra[j][0]);
    }
    for (int f = 0; f < h->stage[j].nrecv; f++) {
        const struct list got = {recv_slot(h, x, j, f), (size_t)x->recvd[j][f], 0};
        if (append(&h->mine, &got) || append(&h->mine, &x->extra[j][f]))
            return -1;
    }
    return 0;
}

/* What stage j-1 delivered to this tick's stage j, split into stage j's lists. */
static int split_received(struct ra_state *s, struct hc *h, struct tick *t, int j)
{
    int failed = 0;
    if (!t->reads)
        return 0;
    for (int f = 0; f < h->stage[j - 1].nrecv && !failed; f++)
        failed = split_into(s, h, t, j, recv_slot(h, t->in, j - 1, f), NULL,
                            (size_t)t->in->recvd[j - 1][f]) ||
                 split_into(s, h, t, j, t->in->extra[j - 1][f].v, NULL, t->in->extra[j - 1][f].n);
    return failed;
}

/* Put stage j's messages on their way; updates that reached their owner
 * join the applier while they travel. */
static void launch_stage(struct ra_state *s, struct hc *h, struct tick *t, int j)
{
    if (t->sends) {
        if (!(s->p.mods & RA_MOD_PREPOST) && !s->p.overlap)
            post_receives(h, t->now, j);
        send_stage(s, h, t->now, j, nonblocking_sends(s));
    }
    if (apart(s) && !h->lag) {
        ra_applier_add(&h->apply, h->mine.v, h->mine.n);
        h->mine.n = 0;
    }
}

/* Stage j >= 1: the keep-list of stage j-1 and what stage j-1's partners
 * sent, split into stage j's lists. */
static int run_stage(struct ra_state *s, struct hc *h, struct tick *t, int j)
{
    struct list *kept = &h->keep[(j - 1) % 2];
    int failed = 0;
    if ((s->p.mods & RA_MOD_LATE_WAIT) || s->p.overlap) {
        failed = split_into(s, h, t, j, kept->v, NULL, kept->n);
        kept->n = 0;
        failed = failed || (t->reads && wait_receives(h, t->in, j - 1));
    } else {
        failed = t->reads && wait_receives(h, t->in, j - 1);
        failed = failed || split_into(s, h, t, j, kept->v, NULL, kept->n);
        kept->n = 0;
    }
    failed = failed || split_received(s, h, t, j);
    if (!failed) {
        note_pending(s,
                     (long long)(h->mine.n + h->keep[j % 2].n + t->now->send[j].n) + h->apply.held);
        launch_stage(s, h, t, j);
    }
    return failed;
}

/* After the last stage everything held is owned here. Lock-step, its
 * updates are not routing, so their time comes off route_ns (what the
 * model's T_C is); pipelined, routing and updates share one loop, and
 * route_ns is not kept (0). */
static int finish_tick(struct ra_state *s, struct hc *h, struct tick *t)
{
    if (h->lag) { /* pipelined: what was not fed yet; the last stage's arrivals came first */
        struct list *kept = &h->keep[h->nstages > 0 ? (h->nstages - 1) % 2 : 0];
        ra_applier_add(&h->apply, h->mine.v + h->fed, h->mine.n - h->fed);
        ra_applier_add(&h->apply, kept->v, kept->n);
        h->mine.n = h->fed = kept->n = 0;
        return 0;
    }
    int j = h->nstages - 1, failed = j >= 0 && t->reads && wait_receives(h, t->in, j);
    struct list *kept = &h->keep[j >= 0 ? j % 2 : 0];
    double t0 = MPI_Wtime();
    long long arrived = j >= 0 && t->reads ? received_words(h, t->in, j) : 0;
    note_pending(s, (long long)(h->mine.n + kept->n) + arrived + h->apply.held);
    ra_applier_add(&h->apply, h->mine.v, h->mine.n);
    ra_applier_add(&h->apply, kept->v, kept->n);
    for (int f = 0; j >= 0 && t->reads && f < h->stage[j].nrecv; f++) {
        ra_applier_add(&h->apply, recv_slot(h, t->in, j, f), (size_t)t->in->recvd[j][f]);
        ra_applier_add(&h->apply, t->in->extra[j][f].v, t->in->extra[j][f].n);
    }
    if (!h->lag) /* lock-step: a step applies all it holds */
        ra_applier_drain(&h->apply);
    h->mine.n = kept->n = 0;
    s->route_ns -= ra_elapsed_ns(t0);
    return failed;
}

/* Stage 0 of a tick: this tick's batch (none once every batch is out),
 * generated and split in one pass. The look-ahead in use is its size plus
 * what the applier still holds: the last tick's sends are complete. */
static int begin_tick(struct ra_state *s, struct hc *h, struct tick *t, size_t n,
                      uint64_t *rng_state)
{
    long long in_use = (long long)n + h->apply.held;
    s->max_lookahead = in_use > s->max_lookahead ? in_use : s->max_lookahead;
    if (h->nstages == 0) {
        note_pending(s, in_use);
        if (reserve_outputs(&h->mine, &h->keep[0], &h->keep[1], n))
            return -1;
        ra_generate(s->p.rng, rng_state, h->mine.v, n);
        h->mine.n = n;
        return 0;
    }
    if ((s->p.mods & RA_MOD_PREPOST) || s->p.overlap)
        for (int j = 0; t->sends && j < h->nstages; j++)
            post_receives(h, t->now, j);
    int last = h->nstages - 1;
    if (h->lag && t->reads && (wait_receives(h, t->in, last) || queue_arrivals(h, t->in, last)))
        return -1;
    note_pending(s, in_use + (long long)h->mine.n);
    if (split_into(s, h, t, 0, NULL, rng_state, n))
        return -1;
    launch_stage(s, h, t, 0);
    return 0;
}

static int run_tick(struct ra_state *s, struct hc *h, struct tick *t, size_t n, uint64_t *rng_state)
{
    int failed = begin_tick(s, h, t, n, rng_state);
    for (int j = 1; j < h->nstages && !failed; j++)
        failed = run_stage(s, h, t, j);
    return failed || finish_tick(s, h, t);
}

/* Batches of the run: every rank takes as many as the rank with the most
 * updates needs; a rank past its own end sends empty lists. */
struct batches {
    uint64_t total, done, rng_state;
    double t0;
    int stopped;
};

/* This tick's batch size: 0 once all are out or the time limit has run out
 * (asked of every rank at the same tick, so all stop together). */
static size_t next_batch(struct ra_state *s, struct hc *h, struct batches *bt, uint64_t k)
{
    if (bt->stopped || k >= bt->total)
        return 0;
    if (ra_mpi_time_up(s, h->comm, bt->t0, k)) {
        bt->stopped = 1;
        h->ticks = k + (uint64_t)h->drain;
        return 0;
    }
    uint64_t left = s->my_updates - bt->done;
    size_t n = left < h->batch ? (size_t)left : h->batch;
    bt->done += n;
    return n;
}

static void run_ticks(struct ra_state *s, struct hc *h, struct batches *bt)
{
    for (uint64_t k = 0; k < h->ticks; k++) {
        struct tick t = {.now = &h->ex[k % EXCHANGES],
                         .in = &h->ex[(k + EXCHANGES - (uint64_t)h->lag) % EXCHANGES]};
        t.reads = k >= (uint64_t)h->lag;
        double t1 = h->lag ? 0 : MPI_Wtime();
        complete_sends(h, &h->ex[(k + EXCHANGES - 1) % EXCHANGES]); /* the last tick's */
        size_t n = next_batch(s, h, bt, k);
        if (k >= h->ticks) /* the time limit ended the run here */
            break;
        t.sends = k + (uint64_t)h->lag < h->ticks;
        if (run_tick(s, h, &t, n, &bt->rng_state))
            ra_mpi_out_of_memory("the hypercube's lists");
        if (!h->lag)
            s->route_ns += ra_elapsed_ns(t1);
    }
    for (int i = 0; i < EXCHANGES; i++)
        complete_sends(h, &h->ex[i]);
    ra_applier_drain(&h->apply);
}

static int hc_run(struct hpcp_bench *b, double *seconds)
{
    struct ra_state *s = b->state;
    struct hc *h = s->algo;
    uint64_t most = (uint64_t)s->p.updates_per_word * ra_dist_count(&s->dist, 0);
    struct batches bt = {.total = (most + h->batch - 1) / h->batch,
                         .rng_state = ra_rng_jump(s->p.rng, s->seq_start)};
    ra_table_init(&s->table, s->my_start);
    ra_applier_init(&h->apply, s, applier_depth(&s->p));
    h->ticks = bt.total + (uint64_t)h->drain;
    h->exchange_ticks = h->exchange_calls = 0;
    s->stages = h->nstages;
    s->partners = h->partners;
    MPI_Barrier(b->comm);
    bt.t0 = MPI_Wtime();
    uint64_t stamp0 = ra_ticks();
    run_ticks(s, h, &bt);
    uint64_t stamps = ra_ticks() - stamp0;
    double run_s = MPI_Wtime() - bt.t0;
    MPI_Barrier(b->comm);
    *seconds = MPI_Wtime() - bt.t0;
    s->steps = (long long)(h->ticks - (uint64_t)h->drain);
    s->executed = bt.done;
    s->exchange_ns = exchange_ns(h, ra_ticks_per_ns(stamps, run_s));
    return 0;
}

/* The record names the optimisations that ran and the batch a tick generates.
 * Here, by the descriptor, rather than with the set-up: moved out, it made GCC 12
 * allocate hc_run's registers differently (the same instructions). */
static void hypercube_record_params(struct hpcp_record *r, const struct ra_params *p)
{
    char text[128];
    hpcp_record_param_string(r, "mods", ra_mods_string(p->mods, text, sizeof text));
    hpcp_record_param_int(r, "batch", (long long)batch_size(p));
    hpcp_record_param_int(r, "lag_ticks", p->overlap ? PIPELINED_LAG : 0);
}

static const struct ra_algorithm hypercube = {.scope = RA_SCOPE_MPI,
                                              .takes = RA_TAKES_MULTICORE | RA_TAKES_OWNER |
                                                       RA_TAKES_MODS | RA_TAKES_OVERLAP,
                                              .modes = RA_MODE_RANK_PER_CORE,
                                              .default_mode = 1,
                                              /* bench/ra_ceiling: 1.3x lock-step, 2 ranks */
                                              .overlap_default = 1,
                                              .sync_refusal = "",
                                              .record_params = hypercube_record_params};

const struct hpcp_kernel hpcp_ra_mpi_hypercube = {
    .family = "ra",
    .variant = "mpi",
    .algorithm = "hypercube",
    .summary = "RandomAccess on one table over all ranks, updates routed through the "
               "dimensions of a hypercube, any P (Plimpton et al.)",
    .driver = hpcp_ra_driver,
    .setup = ra_hypercube_setup,
    .run = hc_run,
    .verify = ra_mpi_verify,
    .teardown = ra_hypercube_teardown,
    .family_data = &hypercube,
    .options = &ra_options_desc,
    .records = &ra_records,
};
