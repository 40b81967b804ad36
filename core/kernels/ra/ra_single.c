/* RandomAccess `single`: one process updates its own table while the other
 * ranks wait asleep. The update loop is HPCC's definition, tightened: one
 * generator, the index from its bits, one XOR; the out-of-order core
 * overlaps the independent misses by itself, so interleaved generators or
 * software-prefetched batches add work without adding parallelism. */
#include "hpcprobe/util.h"
#include "ra.h"

static void poly_loop(uint64_t *restrict t, uint64_t mask, uint64_t *state, uint64_t n)
{
    uint64_t r = *state;
    for (uint64_t i = 0; i < n; i++) {
        r = ra_next_poly(r);
        t[r & mask] ^= r;
    }
    *state = r;
}

static void lcg_loop(uint64_t *restrict t, int shift, uint64_t *state, uint64_t n)
{
    uint64_t r = *state;
    for (uint64_t i = 0; i < n; i++) {
        r = ra_next_lcg(r);
        t[r >> shift] ^= r;
    }
    *state = r;
}

uint64_t ra_update_serial(uint64_t *table, int log2, enum ra_rng rng, uint64_t pos, uint64_t n,
                          double time_limit_s)
{
    /* With a time limit, check the clock between chunks, never per update. */
    const uint64_t chunk = time_limit_s > 0 ? (1u << 20) : n;
    uint64_t state = ra_rng_jump(rng, pos), done = 0;
    double t0 = MPI_Wtime();
    while (done < n) {
        uint64_t m = n - done < chunk ? n - done : chunk;
        if (rng == RA_RNG_POLY)
            poly_loop(table, (1ULL << log2) - 1, &state, m);
        else
            lcg_loop(table, 64 - log2, &state, m); /* log2 >= 4: the driver checks */
        done += m;
        if (time_limit_s > 0 && MPI_Wtime() - t0 > time_limit_s)
            break;
    }
    return done;
}

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
        s->executed = ra_update_serial(s->table.words, s->p.table_log2, s->p.rng, 0, s->my_updates,
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

static const struct ra_algorithm serial_single = {.scope = RA_SCOPE_SINGLE, .sync_refusal = ""};

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
};
