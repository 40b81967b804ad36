/* RandomAccess `ceiling`: this machine's limit for an `mpi` table. The
 * global table is distributed as `mpi` distributes it, but every rank
 * updates only the part it owns, with its own share of the updates (4 per
 * word it owns) and no messages: the single-process loop of ra_serial.c on
 * each part at once, by default the prefetching one (the fastest loop this
 * project has; --update-loop plain gives HPCC's). No `mpi` algorithm moves
 * fewer words or does less work per update, so each `mpi` figure divided by
 * this one says how much of the machine its exchanges cost
 * (docs/kernels/randomaccess.md). */
#include "hpcprobe/util.h"
#include "ra.h"

/* n updates from position pos into this rank's part. */
static uint64_t ceiling_updates(const struct ra_state *s, uint64_t pos, uint64_t n, double limit_s)
{
    return ra_update_serial(s->table.words, s->table.n, s->p.rng,
                            ra_serial_ahead(s->p.loop, s->p.lookahead), pos, n, limit_s);
}

static int ceiling_setup(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    s->active = 1;
    ra_dist_init(&s->dist, s->p.table_words, b->ranks);
    s->my_start = ra_dist_start(&s->dist, b->rank);
    s->seq_start = (uint64_t)s->p.updates_per_word * s->my_start;
    s->my_updates = (uint64_t)s->p.updates_per_word * ra_dist_count(&s->dist, b->rank);
    int failed = ra_table_alloc(&s->table, ra_dist_count(&s->dist, b->rank), s->p.hugepages);
    return hpcp_any(b->comm, failed) ? HPCP_EXIT_RUNTIME : 0;
}

static int ceiling_run(struct hpcp_bench *b, double *seconds)
{
    struct ra_state *s = b->state;
    ra_table_init(&s->table, s->my_start);
    MPI_Barrier(b->comm);
    double t0 = MPI_Wtime();
    s->executed = ceiling_updates(s, s->seq_start, s->my_updates, s->p.time_limit_s);
    MPI_Barrier(b->comm); /* the figure is the whole table's, as for mpi */
    *seconds = MPI_Wtime() - t0;
    return 0;
}

/* XOR is its own inverse: the same updates again restore T[i] = index, so
 * every word that differs afterwards is an update lost or misapplied. */
static int ceiling_verify(struct hpcp_bench *b, double *error)
{
    struct ra_state *s = b->state;
    ceiling_updates(s, s->seq_start, s->executed, 0);
    uint64_t wrong = 0, total = 0;
    for (uint64_t i = 0; i < s->table.n; i++)
        wrong += s->table.words[i] != s->my_start + i;
    MPI_Allreduce(&wrong, &total, 1, MPI_UINT64_T, MPI_SUM, b->comm);
    *error = (double)total;
    return 0;
}

static void ceiling_teardown(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    ra_table_free(&s->table);
}

/* Sized and recorded as `mpi` (a global table); it takes none of the
 * algorithms' options. */
static const struct ra_algorithm owned_ceiling = {.scope = RA_SCOPE_MPI,
                                                  .takes = RA_TAKES_LOOP,
                                                  .modes = RA_MODE_RANK_PER_CORE,
                                                  .default_mode = 1,
                                                  .sync_refusal = "",
                                                  .record_params = ra_serial_record_params};

const struct hpcp_kernel hpcp_ra_ceiling = {
    .family = "ra",
    .variant = "ceiling",
    .algorithm = "owned",
    .summary = "RandomAccess limit for an mpi table: every rank updates only the part it owns, "
               "with no messages",
    .driver = hpcp_ra_driver,
    .setup = ceiling_setup,
    .run = ceiling_run,
    .verify = ceiling_verify,
    .teardown = ceiling_teardown,
    .family_data = &owned_ceiling,
    .options = &ra_options_desc,
    .records = &ra_records,
};
