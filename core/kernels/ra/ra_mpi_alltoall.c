/* RandomAccess `mpi`, algorithm `alltoall`: Plimpton et al.'s synchronous
 * loop with a 1-D all-to-all. Every step each rank generates `lookahead`
 * updates, groups them by owner, swaps the group sizes (MPI_Alltoall), then
 * the groups (MPI_Alltoallv), and applies what it received. Each rank talks
 * to every other rank each step: P - 1 messages, Q(P-1)/P words. */
#include <stdlib.h>

#include "hpcprobe/util.h"
#include "ra_mpi.h"

struct a2a {
    MPI_Comm comm;
    uint64_t *batch, *grouped, *recv;
    size_t recv_cap;
    int *dest;                          /* owner of batch[i] */
    int *scount, *sdispl, *rcount, *rdispl;
    unsigned char *sent_to;
};

/* Group the batch by owner: counts, offsets, then each update in its slot. */
static void group_by_owner(struct ra_state *s, struct a2a *a, uint64_t n, int ranks)
{
    for (int p = 0; p < ranks; p++)
        a->scount[p] = 0;
    for (uint64_t i = 0; i < n; i++) {
        a->dest[i] = ra_owner_of(s, a->batch[i]);
        a->scount[a->dest[i]]++;
    }
    int at = 0;
    for (int p = 0; p < ranks; p++) {
        a->sdispl[p] = at;
        at += a->scount[p];
    }
    for (uint64_t i = 0; i < n; i++)
        a->grouped[a->sdispl[a->dest[i]]++] = a->batch[i];
    for (int p = 0; p < ranks; p++)
        a->sdispl[p] -= a->scount[p];
}

static void count_sends(struct ra_state *s, struct a2a *a, int me, int ranks)
{
    for (int p = 0; p < ranks; p++) {
        if (p == me || a->scount[p] == 0)
            continue;
        s->messages_sent++;
        s->bytes_sent += (long long)a->scount[p] * (long long)sizeof(uint64_t);
        s->partners += !a->sent_to[p];
        a->sent_to[p] = 1;
    }
}

static void step(struct ra_state *s, struct a2a *a, uint64_t *rng_state, uint64_t n, int me,
                 int ranks)
{
    ra_generate(s->p.rng, rng_state, a->batch, n);
    double t0 = MPI_Wtime();
    group_by_owner(s, a, n, ranks);
    MPI_Alltoall(a->scount, 1, MPI_INT, a->rcount, 1, MPI_INT, a->comm);
    size_t total = 0;
    for (int p = 0; p < ranks; p++) {
        a->rdispl[p] = (int)total;
        total += (size_t)a->rcount[p];
    }
    if (ra_reserve(&a->recv, &a->recv_cap, total))
        ra_mpi_out_of_memory("the all-to-all's receive buffer");
    MPI_Alltoallv(a->grouped, a->scount, a->sdispl, MPI_UINT64_T, a->recv, a->rcount, a->rdispl,
                  MPI_UINT64_T, a->comm);
    s->route_ns += ra_elapsed_ns(t0);
    count_sends(s, a, me, ranks);
    long long held = (long long)(total > n ? total : n);
    s->max_pending = held > s->max_pending ? held : s->max_pending;
    ra_apply_list(s, a->recv, total);
}

static int a2a_run(struct hpcp_bench *b, double *seconds)
{
    struct ra_state *s = b->state;
    struct a2a *a = s->algo;
    uint64_t q = (uint64_t)s->p.lookahead, steps = ra_mpi_steps(s), done = 0, k;
    uint64_t rng_state = ra_rng_jump(s->p.rng, s->seq_start);
    ra_table_init(&s->table, s->my_start);
    for (int p = 0; p < b->ranks; p++)
        a->sent_to[p] = 0;
    s->stages = 1;
    MPI_Barrier(b->comm);
    double t0 = MPI_Wtime();
    for (k = 0; k < steps;) {
        uint64_t n = s->my_updates - done < q ? s->my_updates - done : q;
        step(s, a, &rng_state, n, b->rank, b->ranks);
        done += n;
        if (ra_mpi_time_up(s, a->comm, t0, k++))
            break;
    }
    MPI_Barrier(b->comm);
    *seconds = MPI_Wtime() - t0;
    s->steps = (long long)k;
    s->executed = done;
    return 0;
}

static int a2a_setup(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    struct a2a *a = calloc(1, sizeof *a);
    s->algo = a;
    size_t q = (size_t)s->p.lookahead, P = (size_t)b->ranks;
    int failed = !a;
    if (a) {
        a->comm = MPI_COMM_NULL;
        a->batch = malloc(q * sizeof *a->batch);
        a->grouped = malloc(q * sizeof *a->grouped);
        a->dest = malloc(q * sizeof *a->dest);
        a->scount = malloc(4 * P * sizeof *a->scount);
        a->sent_to = calloc(P, 1);
        failed = !a->batch || !a->grouped || !a->dest || !a->scount || !a->sent_to ||
                 ra_reserve(&a->recv, &a->recv_cap, 2 * q);
        if (a->scount) {
            a->sdispl = a->scount + P;
            a->rcount = a->scount + 2 * P;
            a->rdispl = a->scount + 3 * P;
        }
    }
    return ra_mpi_setup(b, a ? &a->comm : NULL, failed) ? HPCP_EXIT_RUNTIME : 0;
}

static void a2a_teardown(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    struct a2a *a = s->algo;
    if (a) {
        free(a->batch);
        free(a->grouped);
        free(a->recv);
        free(a->dest);
        free(a->scount);
        free(a->sent_to);
        ra_mpi_teardown(b, &a->comm);
        free(a);
    }
    s->algo = NULL;
}

static const struct ra_algorithm alltoall = {.scope = RA_SCOPE_MPI,
                                             .takes = RA_TAKES_MULTICORE | RA_TAKES_OWNER,
                                             .modes = RA_MODE_RANK_PER_CORE,
                                             .default_mode = 1,
                                             .sync_refusal = ""};

const struct hpcp_kernel hpcp_ra_mpi_alltoall = {
    .family = "ra",
    .variant = "mpi",
    .algorithm = "alltoall",
    .summary = "RandomAccess on one table over all ranks, a 1-D all-to-all per step of "
               "look-ahead updates (Plimpton et al.)",
    .driver = hpcp_ra_driver,
    .setup = a2a_setup,
    .run = a2a_run,
    .verify = ra_mpi_verify,
    .teardown = a2a_teardown,
    .family_data = &alltoall,
    .options = &ra_options_desc,
    .records = &ra_records,
};
