/* RandomAccess `single`: one process updates its own table while the other
 * ranks wait asleep, with the serial loop of ra_serial.c (HPCC
 * SingleRandomAccess). */
#include "hpcprobe/util.h"
#include "ra.h"

static int single_setup(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    s->active = b->rank == 0;
    ra_dist_init(&s->dist, s->p.table_words, 1);
    s->my_start = 0;
    s->seq_start = 0;
    s->my_updates = s->active ? (uint64_t)s->p.updates_per_word * s->p.table_words : 0;
    int failed = s->active && ra_table_alloc(&s->table, s->p.table_words, s->p.hugepages);
    return hpcp_any(b->comm, failed) ? HPCP_EXIT_RUNTIME : 0;
}

static int single_run(struct hpcp_bench *b, double *seconds)
{
    struct ra_state *s = b->state;
    *seconds = 0;
    if (s->active) {
        ra_table_init(&s->table, 0);
        double t0 = MPI_Wtime();
        s->executed = ra_update_serial(s->table.words, s->table.n, s->p.rng,
                                       ra_serial_ahead(s->p.loop, s->p.lookahead), 0, s->my_updates,
                                       s->p.time_limit_s);
        *seconds = MPI_Wtime() - t0;
    }
    hpcp_idle_barrier(b->comm);
    return 0;
}

static int single_verify(struct hpcp_bench *b, double *error)
{
    struct ra_state *s = b->state;
    uint64_t wrong = s->active ? ra_verify_table(s, MPI_COMM_SELF) : 0;
    hpcp_idle_barrier(b->comm);
    MPI_Bcast(&wrong, 1, MPI_UINT64_T, 0, b->comm);
    *error = (double)wrong;
    return 0;
}

static void single_teardown(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    ra_table_free(&s->table);
}

static const struct ra_algorithm serial_single = {.scope = RA_SCOPE_SINGLE,
                                                  .takes = RA_TAKES_LOOP,
                                                  .sync_refusal = "",
                                                  .record_params = ra_serial_record_params};

const struct hpcp_kernel hpcp_ra_single = {
    .family = "ra",
    .variant = "single",
    .algorithm = "serial",
    .summary = "RandomAccess on one process (HPCC SingleRandomAccess)",
    .driver = hpcp_ra_driver,
    .setup = single_setup,
    .run = single_run,
    .verify = single_verify,
    .teardown = single_teardown,
    .family_data = &serial_single,
    .options = &ra_options_desc,
    .records = &ra_records,
};
