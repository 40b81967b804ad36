/* `hpcprobe-bench beff`: HPCC's b_eff figures (ping-pong latency and
 * bandwidth over pairs, naturally and randomly ordered rings), validated,
 * in one record. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beff.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/link.h"
#include "hpcprobe/util.h"

struct beff_results {
    struct beff_pingpong lat, bw;
    struct beff_rings ring_lat, ring_bw;
    double wtick;
    long full_wrong;
};

/* HPCC does not trust MPI_Wtick below a microsecond or above 10 ms. */
static double clock_tick(MPI_Comm comm)
{
    double mine = fabs(MPI_Wtick()), tick;
    MPI_Allreduce(&mine, &tick, 1, MPI_DOUBLE, MPI_MAX, comm);
    return tick < 1e-6 ? 1e-6 : tick > 0.01 ? 0.01 : tick;
}

/* Every byte, not only the stamps: one exchange around `order` with both
 * neighbours, patterned data compared in full. Messages wrong, all ranks. */
static long full_check(MPI_Comm comm, const int *order, int msg, int corrupt)
{
    int me, ranks, left = 0, right = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &ranks);
    for (int i = 0; i < ranks; i++)
        if (order[i] == me)
            left = order[(i + ranks - 1) % ranks], right = order[(i + 1) % ranks];
    char *b = malloc(4 * (size_t)msg);
    long wrong = 0, total;
    if (b) {
        comm_fill(b, (size_t)msg, me, right, 1);
        comm_fill(b + msg, (size_t)msg, me, left, 2);
        MPI_Sendrecv(b, msg, MPI_BYTE, right, 7, b + 2 * (size_t)msg, msg, MPI_BYTE, left, 7, comm,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(b + msg, msg, MPI_BYTE, left, 8, b + 3 * (size_t)msg, msg, MPI_BYTE, right, 8,
                     comm, MPI_STATUS_IGNORE);
        if (corrupt && me == 0)
            b[2 * (size_t)msg] ^= 0x5a; /* HPCPROBE_INJECT_FAULT=corrupt:N */
        wrong += comm_check(b + 2 * (size_t)msg, (size_t)msg, left, me, 1) >= 0;
        wrong += comm_check(b + 3 * (size_t)msg, (size_t)msg, right, me, 2) >= 0;
    }
    wrong += !b;
    MPI_Allreduce(&wrong, &total, 1, MPI_LONG, MPI_SUM, comm);
    free(b);
    return total;
}

/* What the phases share (b->state). */
struct beff_state {
    const struct comm_params *p;
    struct beff_results R;
    const char *note;
    int corrupt;
};

static int beff_setup(struct hpcp_bench *b)
{
    struct beff_state *s = b->state;
    memset(&s->R, 0, sizeof s->R);
    s->R.wtick = clock_tick(b->comm);
    return 0;
}

/* The timed figures: ping-pong pairs and rings, every message's stamps
 * checked on receipt as HPCC does. */
static int beff_run(struct hpcp_bench *b, double *seconds)
{
    struct beff_state *s = b->state;
    const struct comm_params *p = s->p;
    struct beff_results *R = &s->R;
    double t0 = MPI_Wtime();
    int rc;
    if ((rc = beff_pingpong_run(b->comm, BEFF_LAT_BYTES, BEFF_PP_LAT_LOOP, BEFF_PP_LAT_MEAS,
                                p->lat_pairs_time, R->wtick, &R->lat)) ||
        (rc = beff_pingpong_run(b->comm, BEFF_BW_BYTES, BEFF_PP_BW_LOOP, BEFF_PP_BW_MEAS,
                                p->bw_pairs_time, R->wtick, &R->bw)) ||
        (rc = beff_rings_run(b->comm, BEFF_LAT_BYTES, BEFF_RING_LAT_LOOP, BEFF_RING_LAT_MEAS,
                             BEFF_RING_LAT_RANDOM, p->run.seed, R->wtick, &R->ring_lat)) ||
        (rc = beff_rings_run(b->comm, BEFF_BW_BYTES, BEFF_RING_BW_LOOP, BEFF_RING_BW_MEAS,
                             BEFF_RING_BW_RANDOM, p->run.seed, R->wtick, &R->ring_bw)))
        hpcp_error(b->comm, "beff: out of memory for the messages");
    *seconds = MPI_Wtime() - t0;
    return rc;
}

/* One exchange around the natural and the first random ring with every
 * byte compared; error = every wrong message, the stamps' included. */
static int beff_verify(struct hpcp_bench *b, double *error)
{
    struct beff_state *s = b->state;
    struct beff_results *R = &s->R;
    int *order = malloc((size_t)b->ranks * sizeof *order);
    if (hpcp_any(b->comm, !order)) {
        free(order);
        hpcp_error(b->comm, "beff: out of memory for the messages");
        return HPCP_EXIT_RUNTIME;
    }
    for (int i = 0; i < b->ranks; i++)
        order[i] = i;
    R->full_wrong = full_check(b->comm, order, BEFF_BW_BYTES, 0);
    beff_random_ring(b->ranks, s->p->run.seed, 1, order);
    R->full_wrong += full_check(b->comm, order, BEFF_BW_BYTES, s->corrupt);
    free(order);
    *error =
        (double)(R->lat.wrong + R->bw.wrong + R->ring_lat.wrong + R->ring_bw.wrong + R->full_wrong);
    return 0;
}

static void beff_teardown(struct hpcp_bench *b)
{
    struct beff_state *s = b->state;
    free(s->R.lat.latency), free(s->R.bw.latency);
    s->R.lat.latency = s->R.bw.latency = NULL;
}

/* "corrupt:N": the random ring's full-content exchange spoils a byte. */
static void beff_corrupt(struct hpcp_bench *b, uint64_t words)
{
    (void)words;
    ((struct beff_state *)b->state)->corrupt = 1;
}

static void add_parameters(struct hpcp_record *r, const struct comm_params *p,
                           const struct beff_results *R)
{
    hpcp_record_param_int(r, "latency_bytes", BEFF_LAT_BYTES);
    hpcp_record_param_int(r, "bandwidth_bytes", BEFF_BW_BYTES);
    hpcp_record_param_string(r, "pingpong_latency_loop_x_measurements", "8x5");
    hpcp_record_param_string(r, "pingpong_bandwidth_loop_x_measurements", "1x2");
    hpcp_record_param_string(r, "ring_latency_loop_x_measurements", "5x8");
    hpcp_record_param_string(r, "ring_bandwidth_loop_x_measurements", "2x3");
    hpcp_record_param_int(r, "random_rings_latency", BEFF_RING_LAT_RANDOM);
    hpcp_record_param_int(r, "random_rings_bandwidth", BEFF_RING_BW_RANDOM);
    hpcp_record_param_int(r, "seed", (long long)p->run.seed);
    hpcp_record_param_double(r, "latency_pairs_time_s", p->lat_pairs_time);
    hpcp_record_param_double(r, "bandwidth_pairs_time_s", p->bw_pairs_time);
    hpcp_record_param_int(r, "pingpong_stride_latency", R->lat.stride);
    hpcp_record_param_int(r, "pingpong_stride_bandwidth", R->bw.stride);
    hpcp_record_param_double(r, "wtick_s", R->wtick);
}

/* Bandwidths of per-message times: msg / t each. */
static void bandwidths(const double *t, int n, double *bw)
{
    for (int i = 0; i < n; i++)
        bw[i] = t[i] > 0 ? BEFF_BW_BYTES / t[i] : NAN;
}

static void add_figures(struct hpcp_record *r, const struct beff_results *R)
{
    int npp = (int)R->bw.pairs, nmeas = R->ring_bw.nmeas, nrand = R->ring_bw.nrandom;
    double *bw = malloc((size_t)(npp > 0 ? npp : 1) * sizeof *bw), ring[BEFF_RING_LAT_RANDOM];
    double x[BEFF_RING_LAT_RANDOM];
    hpcp_record_metric(r, "pingpong_latency", "s", R->lat.latency, (int)R->lat.pairs, 0);
    if (bw)
        bandwidths(R->bw.latency, npp, bw);
    hpcp_record_metric(r, "pingpong_bandwidth", "B/s", bw, bw ? npp : 0, 1);
    hpcp_record_metric(r, "natural_ring_latency", "s", R->ring_lat.natural, R->ring_lat.nmeas, 0);
    bandwidths(R->ring_bw.natural, nmeas, ring);
    hpcp_record_metric(r, "natural_ring_bandwidth", "B/s", ring, nmeas, 1);
    hpcp_record_metric(r, "random_ring_latency", "s", &R->ring_lat.random_geomean, 1, 0);
    double rand_bw = BEFF_BW_BYTES / R->ring_bw.random_geomean;
    hpcp_record_metric(r, "random_ring_bandwidth", "B/s", &rand_bw, 1, 1);
    r->headline_metric = "random_ring_bandwidth";
    r->headline_statistic = "last";
    for (int i = 0; i < BEFF_RING_LAT_RANDOM; i++)
        x[i] = i + 1;
    hpcp_record_series(r, "random_ring_latency_by_ordering", "ordering", "1", "s", "min", x,
                       R->ring_lat.random, R->ring_lat.nrandom);
    bandwidths(R->ring_bw.random, nrand, ring);
    hpcp_record_series(r, "random_ring_bandwidth_by_ordering", "ordering", "1", "B/s", "max", x,
                       ring, nrand);
    hpcp_record_counter_int(r, "pingpong_pairs_latency", R->lat.pairs);
    hpcp_record_counter_int(r, "pingpong_pairs_bandwidth", R->bw.pairs);
    free(bw);
}

/* The rings on two or more nodes against HPCPROBE_LINK_LIMIT: a ring then
 * crosses a node boundary, and the slowest rank's time per exchange covers
 * the stream across it, one message to one neighbour each exchange (half the
 * ring bandwidth, which counts both neighbours). The ping-pong pairs are not
 * judged: the record does not say which pairs were on different nodes. */
static void check_link(struct hpcp_record *r, const struct hpcp_sysinfo *si,
                       const struct beff_results *R, int nodes)
{
    const struct beff_rings *g = &R->ring_bw;
    double fastest = 0;
    int natural = 1;
    for (int i = 0; i < g->nmeas; i++)
        fastest = g->natural[i] > 0 ? fmax(fastest, BEFF_BW_BYTES / g->natural[i]) : fastest;
    for (int i = 0; i < g->nrandom; i++)
        if (g->random[i] > 0 && BEFF_BW_BYTES / g->random[i] > fastest)
            fastest = BEFF_BW_BYTES / g->random[i], natural = 0;
    if (nodes < 2 || fastest <= 0)
        return;
    hpcp_link_check(r, &si->link_limit,
                    natural ? "beff naturally ordered ring, one neighbour's stream"
                            : "beff randomly ordered ring, one neighbour's stream",
                    fastest / 2, BEFF_BW_BYTES);
}

static void build_record(struct hpcp_record *r, const struct hpcp_kernel *k,
                         const struct comm_params *p, const struct hpcp_sysinfo *si,
                         const struct beff_results *R, int nodes, int rpn, const char *note)
{
    hpcp_record_init(r, "beff", k->variant, k->algorithm, si);
    r->nodes = nodes, r->ranks_per_node_max = rpn;
    add_parameters(r, p, R);
    add_figures(r, R);
    double wrong =
        (double)(R->lat.wrong + R->bw.wrong + R->ring_lat.wrong + R->ring_bw.wrong + R->full_wrong);
    hpcp_record_validation(r,
                           "every message's first and last byte carry (sender, iteration, "
                           "direction) and are checked on receipt, as HPCC does; then one "
                           "exchange around the natural and the first random ring with "
                           "every byte patterned and compared; error = wrong messages",
                           "1", &wrong, 1, 0);
    if (wrong > 0)
        hpcp_record_validation_detail(r,
                                      "beff: %ld ping-pong, %ld ring and %ld full-content "
                                      "message(s) arrived wrong",
                                      R->lat.wrong + R->bw.wrong,
                                      R->ring_lat.wrong + R->ring_bw.wrong, R->full_wrong);
    check_link(r, si, R, nodes);
    if (note[0])
        hpcp_record_note(r, "%s", note);
}

static void print_results(const struct hpcp_record *r, const void *ctx)
{
    const struct beff_results *R = ctx;
    const struct hpcp_metric *m = r->metrics;
    double lmin = INFINITY, lmax = 0, bmin = INFINITY, bmax = 0, nat_lat = INFINITY, nat_bw = 0;
    for (int i = 0; i < m[0].nsamples; i++)
        lmin = fmin(lmin, m[0].samples[i]), lmax = fmax(lmax, m[0].samples[i]);
    for (int i = 0; i < m[1].nsamples; i++)
        bmin = fmin(bmin, m[1].samples[i]), bmax = fmax(bmax, m[1].samples[i]);
    for (int i = 0; i < m[2].nsamples; i++)
        nat_lat = fmin(nat_lat, m[2].samples[i]);
    for (int i = 0; i < m[3].nsamples; i++)
        nat_bw = fmax(nat_bw, m[3].samples[i]);
    printf("beff (HPCC b_eff) on %d rank(s): validation %s\n", r->ranks,
           hpcp_verdict_word(r->validation.verdict));
    printf("  ping-pong latency   min/max  %10.3f / %10.3f us  (%lld pairs)\n", lmin * 1e6,
           lmax * 1e6, R->lat.pairs);
    printf("  ping-pong bandwidth min/max  %10.3f / %10.3f GB/s (%lld pairs)\n", bmin / 1e9,
           bmax / 1e9, R->bw.pairs);
    printf("  naturally ordered ring       %10.3f us   %10.3f GB/s\n", nat_lat * 1e6, nat_bw / 1e9);
    printf("  randomly ordered ring        %10.3f us   %10.3f GB/s\n",
           R->ring_lat.random_geomean * 1e6, BEFF_BW_BYTES / R->ring_bw.random_geomean / 1e9);
    fflush(stdout);
}

static void beff_record(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v)
{
    struct beff_state *s = b->state;
    int nodes, rpn;
    (void)v; /* the results hold what every check found, by kind */
    comm_layout(b->comm, &nodes, &rpn);
    if (b->rank == 0)
        build_record(r, b->kernel, s->p, b->si, &s->R, nodes, rpn, s->note);
    comm_record_done(r, b->comm, s->p);
}

static void beff_print(const struct hpcp_record *r, struct hpcp_bench *b)
{
    print_results(r, &((struct beff_state *)b->state)->R);
}

static const struct hpcp_family_hooks beff_hooks = {
    .corrupt = beff_corrupt, .record = beff_record, .print = beff_print};

/* One repetition: beff takes neither --repeat nor --warmup. */
int hpcp_beff_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                     char **argv)
{
    struct comm_params p;
    MPI_Comm work;
    char note[256];
    int rc = comm_begin(&p, "beff", k->variant, argc, argv, si, 2,
                        "HPCC's b_eff measures between ranks", &work, note, sizeof note);
    if (rc)
        return rc;
    struct beff_state s;
    memset(&s, 0, sizeof s);
    s.p = &p, s.note = note;
    struct hpcp_bench b = comm_bench(work, si, &s, k);
    struct hpcp_common c = p.run;
    c.repeat = 1, c.warmup = 0, c.verify = 1;
    rc = hpcp_harness_run(k, &b, &c, &beff_hooks);
    MPI_Comm_free(&work);
    return rc;
}

const struct hpcp_kernel hpcp_beff_hpcc = {
    "beff",
    "hpcc",
    "reference",
    "HPCC b_eff: ping-pong latency/bandwidth over pairs, natural and random rings",
    hpcp_beff_driver,
    beff_setup,
    beff_run,
    beff_verify,
    beff_teardown,
    NULL,
    &comm_options_desc,
    &beff_records};
