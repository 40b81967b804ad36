/* RandomAccess `star`: every rank runs the single-process benchmark on its
 * own table at the same time (HPCC StarRandomAccess, embarrassingly
 * parallel), so the memory system is shared the way applications share it. */
#include "hpcprobe/util.h"
#include "ra.h"

static int star_setup(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    s->active = 1;
    ra_dist_init(&s->dist, s->p.table_words, 1);
    s->my_start = 0;
    s->seq_start = 0;
    s->my_updates = (uint64_t)s->p.updates_per_word * s->p.table_words;
    int failed = ra_table_alloc(&s->table, s->p.table_words, s->p.hugepages);
    return hpcp_any(b->comm, failed) ? HPCP_EXIT_RUNTIME : 0;
}

static int star_run(struct hpcp_bench *b, double *seconds)
{
    struct ra_state *s = b->state;
    ra_table_init(&s->table, 0);
    MPI_Barrier(b->comm);
    double t0 = MPI_Wtime();
    s->executed = ra_update_serial(s->table.words, s->table.n, s->p.rng,
                                   ra_serial_ahead(s->p.loop, s->p.lookahead), 0, s->my_updates,
                                   s->p.time_limit_s);
    *seconds = MPI_Wtime() - t0;
    MPI_Barrier(b->comm);
    return 0;
}

/* Each rank verifies its own table; the worst rank is the error. */
static int star_verify(struct hpcp_bench *b, double *error)
{
    struct ra_state *s = b->state;
    uint64_t wrong = ra_verify_table(s, MPI_COMM_SELF), worst = 0;
    MPI_Allreduce(&wrong, &worst, 1, MPI_UINT64_T, MPI_MAX, b->comm);
    *error = (double)worst;
    return 0;
}

static void star_teardown(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    ra_table_free(&s->table);
}

static const struct ra_algorithm serial_star = {.scope = RA_SCOPE_STAR,
                                                .takes = RA_TAKES_LOOP,
                                                .sync_refusal = "",
                                                .record_params = ra_serial_record_params};

const struct hpcp_kernel hpcp_ra_star = {
    .family = "ra",
    .variant = "star",
    .algorithm = "serial",
    .summary = "RandomAccess on every rank at once, one table each (HPCC StarRandomAccess)",
    .driver = hpcp_ra_driver,
    .setup = star_setup,
    .run = star_run,
    .verify = star_verify,
    .teardown = star_teardown,
    .family_data = &serial_star,
    .options = &ra_options_desc,
    .records = &ra_star_records,
};
