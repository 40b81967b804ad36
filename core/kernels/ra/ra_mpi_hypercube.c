/* RandomAccess `mpi`, algorithm `hypercube`: Plimpton et al.'s synchronous
 * all-to-all routed through the dimensions of a hypercube. Each step a rank
 * generates `lookahead` updates; then, stage by stage, the partition of
 * ranks (first all of them) is halved: a rank keeps the updates owned in its
 * half and sends the others to the other half; after the last stage it owns
 * everything it holds. log2(P) messages of ~Q/2 words per rank per step
 * instead of P - 1 messages.
 *
 * Any P: a partition of 2N+1 ranks has halves of N and N+1. Lower rank i
 * sends (N-i)/(N+1) of its list to upper rank i and the rest to upper i+1;
 * upper rank j sends j/N to lower j-1 and the rest to lower j. Each rank
 * then receives about as much as the others of its half (the paper's
 * balanced odd exchange: two messages each way, one at the ends).
 *
 * A message holds at most `msg_cap` words (the size of a posted receive);
 * a longer list sends the rest in a second message with an overflow tag, so
 * no list length is ever refused. Switches (--mods, docs/kernels/randomaccess.md)
 * follow the paper's Table 3: prepost (Mod1), late-update (Mod2),
 * late-wait (Mod3), isend (Mod6/7). */
#include <stdlib.h>

#include "hpcprobe/record.h"
#include "hpcprobe/util.h"
#include "ra_mpi.h"

/* Tags: a lane's stage j sends with tag lane * LANE_TAGS + j, the
 * overflow of a long list with OVERFLOW_TAG more. */
enum { MAX_STAGES = 40, MAX_LANES = 2, OVERFLOW_TAG = 64, LANE_TAGS = 128 };

struct stage {
    int mid;            /* first rank of the partition's upper half */
    int upper;          /* this rank is in the upper half */
    int nsend, to[2];
    long long share_num, share_den; /* fraction of the send list for to[0] */
    int nrecv, from[2];
};

struct list {
    uint64_t *v;
    size_t n, cap;
};

/* One batch on its way through the stages. Without --overlap there is one
 * lane and a batch is the whole look-ahead; with it, two lanes of half the
 * look-ahead each take turns: while one lane's messages travel, the other
 * lane's arrivals are split, sent on or applied. */
struct lane {
    int stage;          /* the stage whose messages are in flight; -1: idle */
    int tag0;
    size_t n;           /* updates generated for the batch (look-ahead in use) */
    long long held;     /* updates it holds in its lists, for max_pending */
    uint64_t *batch, *recvbuf;          /* recvbuf: nstages x 2 x msg_cap words */
    int recvd[MAX_STAGES][2];           /* words that arrived in each receive */
    MPI_Request rreq[MAX_STAGES][2], sreq[MAX_STAGES][2][2];
    struct list keep[2], mine, send[MAX_STAGES], extra[MAX_STAGES][2];
};

struct hc {
    MPI_Comm comm;
    int nstages, msg_cap, partners, nlanes;
    size_t batch_max;   /* updates per batch: Q, or Q/2 per lane when overlapped */
    struct stage stage[MAX_STAGES];
    struct lane lane[MAX_LANES];
};

/* Lower rank i of an odd partition (N below, N+1 above). */
static void plan_odd_lower(struct stage *st, int i, int n)
{
    st->nsend = st->nrecv = 2;
    st->to[0] = st->from[0] = st->mid + i;
    st->to[1] = st->from[1] = st->mid + i + 1;
    st->share_num = n - i;
    st->share_den = n + 1;
}

/* Upper rank j of an odd partition: the ends send and receive once. */
static void plan_odd_upper(struct stage *st, int j, int n, int lo)
{
    st->nsend = st->nrecv = 0;
    st->share_num = j;
    st->share_den = n;
    if (j > 0) {
        st->to[st->nsend++] = lo + j - 1;
        st->from[st->nrecv++] = lo + j - 1;
    }
    if (j < n) {
        st->to[st->nsend++] = lo + j;
        st->from[st->nrecv++] = lo + j;
    }
    if (st->nsend == 1)
        st->share_num = st->share_den = 1;
}

/* The recursive halving, as seen by rank `me`. Returns the stage count. */
static int plan_stages(struct stage *stages, int me, int ranks)
{
    int lo = 0, hi = ranks, n = 0;
    while (hi - lo > 1) {
        struct stage *st = &stages[n++];
        int half = (hi - lo) / 2;
        st->mid = lo + half;
        st->upper = me >= st->mid;
        if ((hi - lo) % 2 == 0) {
            st->nsend = st->nrecv = 1;
            st->to[0] = st->from[0] = st->upper ? me - half : me + half;
            st->share_num = st->share_den = 1;
        } else if (!st->upper) {
            plan_odd_lower(st, me - lo, half);
        } else {
            plan_odd_upper(st, me - st->mid, half, lo);
        }
        if (st->upper)
            lo = st->mid;
        else
            hi = st->mid;
    }
    return n;
}

static int count_partners(const struct hc *h)
{
    int n = 0;
    for (int j = 0; j < h->nstages; j++)
        for (int t = 0; t < h->stage[j].nsend; t++) {
            int seen = 0;
            for (int i = 0; i < j && !seen; i++)
                for (int u = 0; u < h->stage[i].nsend; u++)
                    seen |= h->stage[i].to[u] == h->stage[j].to[t];
            for (int u = 0; u < t; u++)
                seen |= h->stage[j].to[u] == h->stage[j].to[t];
            n += !seen;
        }
    return n;
}

/* Room in every output for all of `n` more words (+1: the split writes one
 * word past its count). -1 when out of memory. */
static int reserve_outputs(struct list *a, struct list *b, struct list *c, size_t n)
{
    return ra_reserve(&a->v, &a->cap, a->n + n + 1) | ra_reserve(&b->v, &b->cap, b->n + n + 1) |
           ra_reserve(&c->v, &c->cap, c->n + n + 1);
}

/* Sort n updates into mine (owned here; only when `apart`), keep (owned in
 * this half) and send (owned in the other half): those of `in`, or when it
 * is NULL the next n of the stream at *rng_state, generated here rather
 * than in a pass of their own. Branch-free: each value is written to all
 * three and only one count advances, because which list a random update
 * joins cannot be predicted. */
static void split(const struct ra_state *s, const struct stage *st, int me, int apart,
                  const uint64_t *in, uint64_t *rng_state, size_t n, struct list *mine,
                  struct list *keep, struct list *send)
{
    uint64_t *pm = mine->v + mine->n, *pk = keep->v + keep->n, *ps = send->v + send->n;
    uint64_t r = rng_state ? *rng_state : 0;
    enum ra_rng rng = s->p.rng;
    int log2 = s->p.table_log2;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = in ? in[i] : (r = ra_next(rng, r));
        uint64_t g = ra_index(rng, v, log2);
        int o = ra_dist_owner(&s->dist, g);
        int m = apart & (o == me);
        int k = !m & ((o >= st->mid) == st->upper);
        *pm = v;
        *pk = v;
        *ps = v;
        pm += m;
        pk += k;
        ps += !m & !k;
    }
    if (rng_state)
        *rng_state = r;
    mine->n = (size_t)(pm - mine->v);
    keep->n = (size_t)(pk - keep->v);
    send->n = (size_t)(ps - send->v);
}

static uint64_t *recv_slot(const struct hc *h, struct lane *l, int j, int f)
{
    return l->recvbuf + ((size_t)j * 2 + (size_t)f) * (size_t)h->msg_cap;
}

static void post_receives(struct hc *h, struct lane *l, int j)
{
    for (int f = 0; f < h->stage[j].nrecv; f++)
        MPI_Irecv(recv_slot(h, l, j, f), h->msg_cap, MPI_UINT64_T, h->stage[j].from[f], l->tag0 + j,
                  h->comm, &l->rreq[j][f]);
}

/* Send stage j's list: a share to each target, the part beyond msg_cap in
 * a second, always non-blocking, message (two blocking overflow sends
 * towards each other could wait for each other forever). */
static void send_stage(struct ra_state *s, struct hc *h, struct lane *l, int j, int nonblocking)
{
    const struct stage *st = &h->stage[j];
    struct list *sl = &l->send[j];
    size_t first = (size_t)((long long)sl->n * st->share_num / st->share_den);
    int tag = l->tag0 + j;
    for (int t = 0; t < st->nsend; t++) {
        const uint64_t *v = sl->v + (t ? first : 0);
        size_t n = t ? sl->n - first : (st->nsend == 1 ? sl->n : first);
        size_t head = n < (size_t)h->msg_cap ? n : (size_t)h->msg_cap;
        if (nonblocking)
            MPI_Isend(v, (int)head, MPI_UINT64_T, st->to[t], tag, h->comm, &l->sreq[j][t][0]);
        else
            MPI_Send(v, (int)head, MPI_UINT64_T, st->to[t], tag, h->comm);
        if (head == (size_t)h->msg_cap)
            MPI_Isend(v + head, (int)(n - head), MPI_UINT64_T, st->to[t], tag + OVERFLOW_TAG,
                      h->comm, &l->sreq[j][t][1]);
        s->messages_sent += 1 + (head == (size_t)h->msg_cap);
        s->bytes_sent += (long long)(n * sizeof(uint64_t));
    }
}

/* Wait for stage j's receives; a full one has an overflow message behind it. */
static int wait_receives(struct hc *h, struct lane *l, int j)
{
    MPI_Status st[2];
    int failed = 0, tag = l->tag0 + j + OVERFLOW_TAG;
    MPI_Waitall(h->stage[j].nrecv, l->rreq[j], st);
    for (int f = 0; f < h->stage[j].nrecv; f++) {
        MPI_Get_count(&st[f], MPI_UINT64_T, &l->recvd[j][f]);
        l->extra[j][f].n = 0;
        if (l->recvd[j][f] < h->msg_cap)
            continue;
        MPI_Status ost;
        int more = 0;
        MPI_Probe(h->stage[j].from[f], tag, h->comm, &ost);
        MPI_Get_count(&ost, MPI_UINT64_T, &more);
        struct list *x = &l->extra[j][f];
        failed |= ra_reserve(&x->v, &x->cap, (size_t)more);
        MPI_Recv(failed ? NULL : x->v, failed ? 0 : more, MPI_UINT64_T, h->stage[j].from[f], tag,
                 h->comm, MPI_STATUS_IGNORE);
        x->n = failed ? 0 : (size_t)more;
    }
    return failed;
}

/* Split a list into stage j's outputs: mine, the keep-list that stage j+1
 * reads (keep[j % 2]) and send[j]. */
static int split_into(struct ra_state *s, struct hc *h, struct lane *l, int j, int me,
                      const uint64_t *v, uint64_t *rng_state, size_t n)
{
    int apart = (s->p.mods & RA_MOD_LATE_UPDATE) != 0;
    struct list *keep = &l->keep[j % 2];
    if (reserve_outputs(&l->mine, keep, &l->send[j], n))
        return -1;
    split(s, &h->stage[j], me, apart, v, rng_state, n, &l->mine, keep, &l->send[j]);
    return 0;
}

/* What stage j received, split into stage j+1's lists. */
static int split_received(struct ra_state *s, struct hc *h, struct lane *l, int j, int me)
{
    int failed = 0;
    for (int f = 0; f < h->stage[j].nrecv && !failed; f++)
        failed =
            split_into(s, h, l, j + 1, me, recv_slot(h, l, j, f), NULL, (size_t)l->recvd[j][f]) ||
            split_into(s, h, l, j + 1, me, l->extra[j][f].v, NULL, l->extra[j][f].n);
    return failed;
}

static void apply_received(struct ra_state *s, struct hc *h, struct lane *l, int j)
{
    for (int f = 0; f < h->stage[j].nrecv; f++) {
        ra_apply_list(s, recv_slot(h, l, j, f), (size_t)l->recvd[j][f]);
        ra_apply_list(s, l->extra[j][f].v, l->extra[j][f].n);
    }
}

static long long received_words(const struct hc *h, const struct lane *l, int j)
{
    long long n = 0;
    for (int f = 0; f < h->stage[j].nrecv; f++)
        n += l->recvd[j][f] + (long long)l->extra[j][f].n;
    return n;
}

/* The most updates held at once: this lane's lists now, plus what the
 * other lanes still hold. */
static void note_pending(struct ra_state *s, const struct hc *h, struct lane *l, long long held)
{
    l->held = held;
    long long all = 0;
    for (int i = 0; i < h->nlanes; i++)
        all += h->lane[i].held;
    s->max_pending = all > s->max_pending ? all : s->max_pending;
}

/* The look-ahead in use: the batches of every lane not yet through. */
static void note_lookahead(struct ra_state *s, const struct hc *h)
{
    long long all = 0;
    for (int i = 0; i < h->nlanes; i++)
        all += (long long)h->lane[i].n;
    s->max_lookahead = all > s->max_lookahead ? all : s->max_lookahead;
}

/* The keep-list stage j produced (stage j+1's own part of its input),
 * split into stage j+1's lists, then emptied. */
static int split_kept(struct ra_state *s, struct hc *h, struct lane *l, int j, int me)
{
    struct list *kept = &l->keep[j % 2];
    int failed = split_into(s, h, l, j + 1, me, kept->v, NULL, kept->n);
    kept->n = 0;
    return failed;
}

/* The last stage: everything held is owned here. Its updates are not
 * routing, so their time comes off route_ns (what the model's T_C is). */
static int finish_last(struct ra_state *s, struct hc *h, struct lane *l, int j)
{
    int failed = wait_receives(h, l, j);
    struct list *kept = &l->keep[j % 2];
    note_pending(s, h, l, (long long)(l->mine.n + kept->n) + received_words(h, l, j));
    double t0 = MPI_Wtime();
    ra_apply_list(s, l->mine.v, l->mine.n);
    ra_apply_list(s, kept->v, kept->n);
    apply_received(s, h, l, j);
    s->route_ns -= ra_elapsed_ns(t0);
    l->mine.n = kept->n = 0;
    note_pending(s, h, l, 0);
    return failed;
}

static int nonblocking_sends(const struct ra_state *s)
{
    return s->p.overlap || (s->p.mods & RA_MOD_ISEND);
}

/* Put stage j's messages on their way; with late-update, apply what has
 * reached its owner while they travel. The lane then holds its keep-list. */
static void launch_stage(struct ra_state *s, struct hc *h, struct lane *l, int j)
{
    if (!(s->p.mods & RA_MOD_PREPOST))
        post_receives(h, l, j);
    send_stage(s, h, l, j, nonblocking_sends(s));
    if (s->p.mods & RA_MOD_LATE_UPDATE) {
        ra_apply_list(s, l->mine.v, l->mine.n);
        l->mine.n = 0;
    }
    l->stage = j;
    l->held = (long long)(l->mine.n + l->keep[j % 2].n);
}

/* Generate the next n updates of the stream at *rng_state and start them
 * on their way. */
static int lane_begin(struct ra_state *s, struct hc *h, struct lane *l, uint64_t *rng_state,
                      size_t n, int me)
{
    l->n = n;
    l->mine.n = l->keep[0].n = l->keep[1].n = 0;
    for (int j = 0; j < h->nstages; j++)
        l->send[j].n = 0;
    note_lookahead(s, h);
    note_pending(s, h, l, (long long)n);
    if (s->p.mods & RA_MOD_PREPOST)
        for (int j = 0; j < h->nstages; j++)
            post_receives(h, l, j);
    if (split_into(s, h, l, 0, me, NULL, rng_state, n))
        return -1;
    launch_stage(s, h, l, 0);
    return 0;
}

/* Take the lane's stage in flight one step further: its arrivals split into
 * the next stage, which is launched, or after the last stage applied. Sets
 * *done when the batch is through; -1 when out of memory. */
static int lane_advance(struct ra_state *s, struct hc *h, struct lane *l, int me, int *done)
{
    int j = l->stage, failed;
    *done = j + 1 == h->nstages;
    if (*done) {
        failed = finish_last(s, h, l, j);
        l->stage = -1;
        l->n = 0;
        MPI_Waitall(h->nstages * 2 * 2, &l->sreq[0][0][0], MPI_STATUSES_IGNORE);
        return failed;
    }
    if (s->p.mods & RA_MOD_LATE_WAIT)
        failed = split_kept(s, h, l, j, me) || wait_receives(h, l, j);
    else
        failed = wait_receives(h, l, j) || split_kept(s, h, l, j, me);
    failed = failed || split_received(s, h, l, j, me);
    if (failed)
        return -1;
    note_pending(s, h, l, (long long)(l->mine.n + l->keep[(j + 1) % 2].n + l->send[j + 1].n));
    launch_stage(s, h, l, j + 1);
    return 0;
}

/* Batches of the run: every rank takes as many as the rank with the most
 * updates needs; a rank past its own end sends empty lists. */
struct batches {
    uint64_t total, next, done, rng_state;
    double t0;
    int stopped;
};

/* Generate batch `next` into the lane and start it; 0 when none is left or
 * the time limit has run out (asked of every rank at the same batch). */
static int start_next(struct ra_state *s, struct hc *h, struct lane *l, struct batches *bt, int me)
{
    if (bt->stopped || bt->next == bt->total)
        return 0;
    if (ra_mpi_time_up(s, h->comm, bt->t0, bt->next)) {
        bt->stopped = 1;
        return 0;
    }
    uint64_t left = s->my_updates - bt->done;
    size_t n = left < h->batch_max ? (size_t)left : h->batch_max;
    bt->done += n;
    bt->next++;
    double t1 = MPI_Wtime();
    if (lane_begin(s, h, l, &bt->rng_state, n, me))
        ra_mpi_out_of_memory("the hypercube's lists");
    s->route_ns += ra_elapsed_ns(t1);
    return 1;
}

/* One rank alone: nothing to route. */
static void run_alone(struct ra_state *s, struct hc *h, struct batches *bt)
{
    struct lane *l = &h->lane[0];
    for (; bt->next < bt->total && !ra_mpi_time_up(s, h->comm, bt->t0, bt->next); bt->next++) {
        size_t n =
            s->my_updates - bt->done < h->batch_max ? s->my_updates - bt->done : h->batch_max;
        ra_generate(s->p.rng, &bt->rng_state, l->batch, n);
        l->n = n;
        note_lookahead(s, h);
        note_pending(s, h, l, (long long)n);
        ra_apply_list(s, l->batch, n);
        bt->done += n;
    }
    l->n = 0;
}

/* The lanes take turns, each advanced one stage at a time; a lane whose
 * batch is through starts the next one. Every rank runs the same sequence,
 * and sends never block, so a wait only ever waits for a send that its
 * partner posted earlier in that sequence. */
static void run_lanes(struct ra_state *s, struct hc *h, struct batches *bt, int me)
{
    int active = 0;
    for (int i = 0; i < h->nlanes; i++)
        active += start_next(s, h, &h->lane[i], bt, me);
    while (active)
        for (int i = 0; i < h->nlanes; i++) {
            struct lane *l = &h->lane[i];
            int done = 0;
            if (l->stage < 0)
                continue;
            double t1 = MPI_Wtime();
            if (lane_advance(s, h, l, me, &done))
                ra_mpi_out_of_memory("the hypercube's lists");
            s->route_ns += ra_elapsed_ns(t1);
            if (done && !start_next(s, h, l, bt, me))
                active--;
        }
}

static int hc_run(struct hpcp_bench *b, double *seconds)
{
    struct ra_state *s = b->state;
    struct hc *h = s->algo;
    uint64_t most = (uint64_t)s->p.updates_per_word * ra_dist_count(&s->dist, 0);
    struct batches bt = {.total = (most + h->batch_max - 1) / h->batch_max,
                         .rng_state = ra_rng_jump(s->p.rng, s->seq_start)};
    ra_table_init(&s->table, s->my_start);
    s->stages = h->nstages;
    s->partners = h->partners;
    MPI_Barrier(b->comm);
    bt.t0 = MPI_Wtime();
    if (h->nstages == 0)
        run_alone(s, h, &bt);
    else
        run_lanes(s, h, &bt, b->rank);
    MPI_Barrier(b->comm);
    *seconds = MPI_Wtime() - bt.t0;
    s->steps = (long long)bt.next;
    s->executed = bt.done;
    return 0;
}

static int lane_setup(const struct hc *h, struct lane *l, int index)
{
    l->stage = -1;
    l->tag0 = index * LANE_TAGS;
    for (int j = 0; j < MAX_STAGES; j++)
        for (int f = 0; f < 2; f++) {
            l->rreq[j][f] = MPI_REQUEST_NULL;
            l->sreq[j][f][0] = l->sreq[j][f][1] = MPI_REQUEST_NULL;
        }
    l->batch = malloc(h->batch_max * sizeof *l->batch);
    l->recvbuf = malloc(((size_t)h->nstages * 2 + 1) * (size_t)h->msg_cap * sizeof(uint64_t));
    return !l->batch || !l->recvbuf;
}

static int hc_setup(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    struct hc *h = calloc(1, sizeof *h);
    s->algo = h;
    int failed = !h;
    if (h) {
        size_t q = (size_t)s->p.lookahead;
        h->comm = MPI_COMM_NULL;
        h->nstages = plan_stages(h->stage, b->rank, b->ranks);
        h->partners = count_partners(h);
        /* Two halves need a look-ahead of at least 2; one is Q/2 (an odd Q
         * leaves one update of it unused, never more than Q in use). */
        h->nlanes = s->p.overlap && q >= 2 ? 2 : 1;
        h->batch_max = q / (size_t)h->nlanes;
        /* Room for the usual list and its random excess; longer ones overflow. */
        h->msg_cap = (int)(h->batch_max + h->batch_max / 2 + 64);
        for (int i = 0; i < h->nlanes && !failed; i++)
            failed = lane_setup(h, &h->lane[i], i);
    }
    return ra_mpi_setup(b, h ? &h->comm : NULL, failed) ? HPCP_EXIT_RUNTIME : 0;
}

static void free_list(struct list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

static void lane_free(struct lane *l)
{
    free(l->batch);
    free(l->recvbuf);
    free_list(&l->keep[0]);
    free_list(&l->keep[1]);
    free_list(&l->mine);
    for (int j = 0; j < MAX_STAGES; j++) {
        free_list(&l->send[j]);
        free_list(&l->extra[j][0]);
        free_list(&l->extra[j][1]);
    }
}

static void hc_teardown(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    struct hc *h = s->algo;
    if (h) {
        for (int i = 0; i < MAX_LANES; i++)
            lane_free(&h->lane[i]);
        ra_mpi_teardown(b, &h->comm);
        free(h);
    }
    s->algo = NULL;
}

/* The record names the optimisations that ran. */
static void hypercube_record_params(struct hpcp_record *r, const struct ra_params *p)
{
    char text[128];
    hpcp_record_param_string(r, "mods", ra_mods_string(p->mods, text, sizeof text));
    hpcp_record_param_string(r, "overlap", p->overlap ? "on" : "off");
}

static const struct ra_algorithm hypercube = {.scope = RA_SCOPE_MPI,
                                              .takes = RA_TAKES_MULTICORE | RA_TAKES_OWNER |
                                                       RA_TAKES_MODS | RA_TAKES_OVERLAP,
                                              .modes = RA_MODE_RANK_PER_CORE,
                                              .default_mode = 1,
                                              /* bench/ra_ceiling: faster off on shared memory */
                                              .overlap_default = 0,
                                              .sync_refusal = "",
                                              .record_params = hypercube_record_params};

const struct hpcp_kernel hpcp_ra_mpi_hypercube = {
    .family = "ra",
    .variant = "mpi",
    .algorithm = "hypercube",
    .summary = "RandomAccess on one table over all ranks, updates routed through the "
               "dimensions of a hypercube, any P (Plimpton et al.)",
    .driver = hpcp_ra_driver,
    .setup = hc_setup,
    .run = hc_run,
    .verify = ra_mpi_verify,
    .teardown = hc_teardown,
    .family_data = &hypercube,
};
