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

enum { MAX_STAGES = 40, OVERFLOW_TAG = 64 };

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

struct hc {
    MPI_Comm comm;
    int nstages, msg_cap, partners;
    struct stage stage[MAX_STAGES];
    uint64_t *batch, *recvbuf;          /* recvbuf: nstages x 2 x msg_cap words */
    int recvd[MAX_STAGES][2];           /* words that arrived in each receive */
    MPI_Request rreq[MAX_STAGES][2], sreq[MAX_STAGES][2][2];
    struct list keep[2], mine, send[MAX_STAGES], extra[MAX_STAGES][2];
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

/* Sort `in` into mine (owned here; only when `apart`), keep (owned in this
 * half) and send (owned in the other half). Branch-free: each value is
 * written to all three and only one count advances, because which list a
 * random update joins cannot be predicted. */
static void split(const struct ra_state *s, const struct stage *st, int me, int apart,
                  const uint64_t *in, size_t n, struct list *mine, struct list *keep,
                  struct list *send)
{
    uint64_t *pm = mine->v + mine->n, *pk = keep->v + keep->n, *ps = send->v + send->n;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = in[i];
        int o = ra_owner_of(s, v);
        int m = apart & (o == me);
        int k = !m & ((o >= st->mid) == st->upper);
        *pm = v;
        *pk = v;
        *ps = v;
        pm += m;
        pk += k;
        ps += !m & !k;
    }
    mine->n = (size_t)(pm - mine->v);
    keep->n = (size_t)(pk - keep->v);
    send->n = (size_t)(ps - send->v);
}

static uint64_t *recv_slot(struct hc *h, int j, int f)
{
    return h->recvbuf + ((size_t)j * 2 + (size_t)f) * (size_t)h->msg_cap;
}

static void post_receives(struct hc *h, int j)
{
    for (int f = 0; f < h->stage[j].nrecv; f++)
        MPI_Irecv(recv_slot(h, j, f), h->msg_cap, MPI_UINT64_T, h->stage[j].from[f], j, h->comm,
                  &h->rreq[j][f]);
}

/* Send stage j's list: a share to each target, the part beyond msg_cap in
 * a second, always non-blocking, message (two blocking overflow sends
 * towards each other could wait for each other forever). */
static void send_stage(struct ra_state *s, struct hc *h, int j, int nonblocking)
{
    const struct stage *st = &h->stage[j];
    struct list *l = &h->send[j];
    size_t first = (size_t)((long long)l->n * st->share_num / st->share_den);
    for (int t = 0; t < st->nsend; t++) {
        const uint64_t *v = l->v + (t ? first : 0);
        size_t n = t ? l->n - first : (st->nsend == 1 ? l->n : first);
        size_t head = n < (size_t)h->msg_cap ? n : (size_t)h->msg_cap;
        if (nonblocking)
            MPI_Isend(v, (int)head, MPI_UINT64_T, st->to[t], j, h->comm, &h->sreq[j][t][0]);
        else
            MPI_Send(v, (int)head, MPI_UINT64_T, st->to[t], j, h->comm);
        if (head == (size_t)h->msg_cap)
            MPI_Isend(v + head, (int)(n - head), MPI_UINT64_T, st->to[t], OVERFLOW_TAG + j, h->comm,
                      &h->sreq[j][t][1]);
        s->messages_sent += 1 + (head == (size_t)h->msg_cap);
        s->bytes_sent += (long long)(n * sizeof(uint64_t));
    }
}

/* Wait for stage j's receives; a full one has an overflow message behind it. */
static int wait_receives(struct hc *h, int j)
{
    MPI_Status st[2];
    int failed = 0;
    MPI_Waitall(h->stage[j].nrecv, h->rreq[j], st);
    for (int f = 0; f < h->stage[j].nrecv; f++) {
        MPI_Get_count(&st[f], MPI_UINT64_T, &h->recvd[j][f]);
        h->extra[j][f].n = 0;
        if (h->recvd[j][f] < h->msg_cap)
            continue;
        MPI_Status ost;
        int more = 0;
        MPI_Probe(h->stage[j].from[f], OVERFLOW_TAG + j, h->comm, &ost);
        MPI_Get_count(&ost, MPI_UINT64_T, &more);
        struct list *x = &h->extra[j][f];
        failed |= ra_reserve(&x->v, &x->cap, (size_t)more);
        MPI_Recv(failed ? NULL : x->v, failed ? 0 : more, MPI_UINT64_T, h->stage[j].from[f],
                 OVERFLOW_TAG + j, h->comm, MPI_STATUS_IGNORE);
        x->n = failed ? 0 : (size_t)more;
    }
    return failed;
}

/* Split a list into stage j's outputs: mine, the keep-list that stage j+1
 * reads (keep[j % 2]) and send[j]. */
static int split_into(struct ra_state *s, struct hc *h, int j, int me, const uint64_t *v, size_t n)
{
    int apart = (s->p.mods & RA_MOD_LATE_UPDATE) != 0;
    struct list *keep = &h->keep[j % 2];
    if (reserve_outputs(&h->mine, keep, &h->send[j], n))
        return -1;
    split(s, &h->stage[j], me, apart, v, n, &h->mine, keep, &h->send[j]);
    return 0;
}

/* What stage j received, split into stage j+1's lists. */
static int split_received(struct ra_state *s, struct hc *h, int j, int me)
{
    int failed = 0;
    for (int f = 0; f < h->stage[j].nrecv && !failed; f++)
        failed = split_into(s, h, j + 1, me, recv_slot(h, j, f), (size_t)h->recvd[j][f]) ||
                 split_into(s, h, j + 1, me, h->extra[j][f].v, h->extra[j][f].n);
    return failed;
}

static void apply_received(struct ra_state *s, struct hc *h, int j)
{
    for (int f = 0; f < h->stage[j].nrecv; f++) {
        ra_apply_list(s, recv_slot(h, j, f), (size_t)h->recvd[j][f]);
        ra_apply_list(s, h->extra[j][f].v, h->extra[j][f].n);
    }
}

static long long received_words(const struct hc *h, int j)
{
    long long n = 0;
    for (int f = 0; f < h->stage[j].nrecv; f++)
        n += h->recvd[j][f] + (long long)h->extra[j][f].n;
    return n;
}

static void note_pending(struct ra_state *s, long long held)
{
    s->max_pending = held > s->max_pending ? held : s->max_pending;
}

/* The keep-list stage j produced (stage j+1's own part of its input),
 * split into stage j+1's lists, then emptied. */
static int split_kept(struct ra_state *s, struct hc *h, int j, int me)
{
    struct list *kept = &h->keep[j % 2];
    int failed = split_into(s, h, j + 1, me, kept->v, kept->n);
    kept->n = 0;
    return failed;
}

/* The last stage: everything held is owned here. Its updates are not
 * routing, so their time comes off route_ns (what the model's T_C is). */
static int finish_last(struct ra_state *s, struct hc *h, int j)
{
    int failed = wait_receives(h, j);
    struct list *kept = &h->keep[j % 2];
    note_pending(s, (long long)(h->mine.n + kept->n) + received_words(h, j));
    double t0 = MPI_Wtime();
    ra_apply_list(s, h->mine.v, h->mine.n);
    ra_apply_list(s, kept->v, kept->n);
    apply_received(s, h, j);
    s->route_ns -= ra_elapsed_ns(t0);
    return failed;
}

/* One step of n generated updates through every stage. Stage j sends
 * send[j]; its keep-list and what it receives make stage j+1's input. */
static int route_and_apply(struct ra_state *s, struct hc *h, size_t n, int me)
{
    int mods = s->p.mods, failed = 0;
    h->mine.n = h->keep[0].n = h->keep[1].n = 0;
    for (int j = 0; j < h->nstages; j++)
        h->send[j].n = 0;
    note_pending(s, (long long)n);
    if (h->nstages == 0) {
        double t0 = MPI_Wtime();
        ra_apply_list(s, h->batch, n);
        s->route_ns -= ra_elapsed_ns(t0);
        return 0;
    }
    if (mods & RA_MOD_PREPOST)
        for (int j = 0; j < h->nstages; j++)
            post_receives(h, j);
    failed = split_into(s, h, 0, me, h->batch, n);
    for (int j = 0; j < h->nstages && !failed; j++) {
        if (!(mods & RA_MOD_PREPOST))
            post_receives(h, j);
        send_stage(s, h, j, (mods & RA_MOD_ISEND) != 0);
        if (mods & RA_MOD_LATE_UPDATE) { /* while the messages travel */
            ra_apply_list(s, h->mine.v, h->mine.n);
            h->mine.n = 0;
        }
        if (j + 1 == h->nstages) {
            failed = finish_last(s, h, j);
            break;
        }
        if (mods & RA_MOD_LATE_WAIT)
            failed = split_kept(s, h, j, me) || wait_receives(h, j);
        else
            failed = wait_receives(h, j) || split_kept(s, h, j, me);
        failed = failed || split_received(s, h, j, me);
        note_pending(s, (long long)(h->mine.n + h->keep[(j + 1) % 2].n + h->send[j + 1].n));
    }
    return failed;
}

static void wait_sends(struct hc *h)
{
    MPI_Waitall(h->nstages * 2 * 2, &h->sreq[0][0][0], MPI_STATUSES_IGNORE);
}

static int hc_run(struct hpcp_bench *b, double *seconds)
{
    struct ra_state *s = b->state;
    struct hc *h = s->algo;
    uint64_t q = (uint64_t)s->p.lookahead, steps = ra_mpi_steps(s), done = 0, k;
    uint64_t rng_state = ra_rng_jump(s->p.rng, s->seq_start);
    ra_table_init(&s->table, s->my_start);
    s->stages = h->nstages;
    s->partners = h->partners;
    MPI_Barrier(b->comm);
    double t0 = MPI_Wtime();
    for (k = 0; k < steps;) {
        uint64_t n = s->my_updates - done < q ? s->my_updates - done : q;
        ra_generate(s->p.rng, &rng_state, h->batch, n);
        double t1 = MPI_Wtime();
        int failed = route_and_apply(s, h, (size_t)n, b->rank);
        s->route_ns += ra_elapsed_ns(t1);
        wait_sends(h);
        done += n;
        if (failed)
            ra_mpi_out_of_memory("the hypercube's lists");
        if (ra_mpi_time_up(s, h->comm, t0, k++))
            break;
    }
    MPI_Barrier(b->comm);
    *seconds = MPI_Wtime() - t0;
    s->steps = (long long)k;
    s->executed = done;
    return 0;
}

static void init_requests(struct hc *h)
{
    for (int j = 0; j < MAX_STAGES; j++)
        for (int f = 0; f < 2; f++) {
            h->rreq[j][f] = MPI_REQUEST_NULL;
            h->sreq[j][f][0] = h->sreq[j][f][1] = MPI_REQUEST_NULL;
        }
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
        /* Room for the usual list and its random excess; longer ones overflow. */
        h->msg_cap = (int)(q + q / 2 + 64);
        init_requests(h);
        h->batch = malloc(q * sizeof *h->batch);
        h->recvbuf = malloc(((size_t)h->nstages * 2 + 1) * (size_t)h->msg_cap * sizeof(uint64_t));
        failed = !h->batch || !h->recvbuf;
    }
    return ra_mpi_setup(b, h ? &h->comm : NULL, failed) ? HPCP_EXIT_RUNTIME : 0;
}

static void free_list(struct list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

static void hc_teardown(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    struct hc *h = s->algo;
    if (h) {
        free(h->batch);
        free(h->recvbuf);
        free_list(&h->keep[0]);
        free_list(&h->keep[1]);
        free_list(&h->mine);
        for (int j = 0; j < MAX_STAGES; j++) {
            free_list(&h->send[j]);
            free_list(&h->extra[j][0]);
            free_list(&h->extra[j][1]);
        }
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
}

static const struct ra_algorithm hypercube = {.scope = RA_SCOPE_MPI,
                                              .takes = RA_TAKES_MULTICORE | RA_TAKES_OWNER |
                                                       RA_TAKES_MODS,
                                              .modes = RA_MODE_RANK_PER_CORE,
                                              .default_mode = 1,
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
