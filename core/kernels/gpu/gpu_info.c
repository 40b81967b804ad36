/* `hpcprobe-bench gpu info`: the devices of rank 0's node and the build, as one JSON
 * line (`hpcprobe gpu info` turns it into a table). No measurement. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_drv.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/json.h"
#include "hpcprobe/util.h"

/* No options (a table of none: the parser copies from it). */
static const struct hpcp_optspec no_spec[1] = {
    {"--none", HPCP_OPT_FLAG, 0, 0, 0, 0, 0, NULL, 0, "(no options)", NULL}};
static const struct hpcp_cli info_cli = {no_spec, 0, 0, 0, 0, 0, 0, NULL};

static void describe(struct hpcp_json *j, const struct hpcp_device_info *d)
{
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    hpcp_json_begin_object(j, NULL);
    hpcp_json_int(j, "index", d->index);
    hpcp_json_string(j, "name", d->name);
    hpcp_json_string(j, "pci_bus_id", d->pci_bus_id);
    hpcp_json_string(j, "compute_capability", cc);
    hpcp_json_int(j, "multiprocessors", d->multiprocessors);
    hpcp_json_uint(j, "memory_bytes", d->memory_bytes);
    hpcp_json_uint(j, "memory_free_bytes", d->memory_free_bytes);
    hpcp_json_uint(j, "l2_bytes", d->l2_bytes);
    hpcp_json_double(j, "memory_clock_hz", d->memory_clock_hz);
    hpcp_json_int(j, "bus_width_bits", d->bus_width_bits);
    hpcp_json_double(j, "nominal_bandwidth", hpcp_device_nominal_bandwidth(d));
    hpcp_json_double(j, "sm_clock_hz", d->sm_clock_hz);
    if (d->ecc < 0)
        hpcp_json_null(j, "ecc");
    else
        hpcp_json_bool(j, "ecc", d->ecc);
    hpcp_json_int(j, "driver_version", d->driver_version);
    hpcp_json_int(j, "runtime_version", d->runtime_version);
    hpcp_json_double(j, "pcie_transfer_rate", d->pcie_transfer_rate);
    hpcp_json_int(j, "pcie_width", d->pcie_width);
    hpcp_json_double(j, "pcie_bandwidth",
                     hpcp_pcie_bandwidth(d->pcie_transfer_rate, d->pcie_width));
    hpcp_json_end_object(j);
}

/* What the phases share (b->state): rank 0's devices and their JSON line. */
struct info_state {
    int count;
    struct hpcp_device_info *dev;
    struct hpcp_json j;
};

static int info_setup(struct hpcp_bench *b)
{
    struct info_state *s = b->state;
    hpcp_json_init(&s->j);
    s->dev = b->rank == 0 ? calloc((size_t)(s->count > 0 ? s->count : 1), sizeof *s->dev) : NULL;
    return hpcp_any(b->comm, b->rank == 0 && !s->dev) ? HPCP_EXIT_RUNTIME : 0;
}

static void info_setup_failed(struct hpcp_bench *b)
{
    hpcp_error(b->comm, "gpu info: out of memory for %d devices",
               ((struct info_state *)b->state)->count);
}

/* The query, on rank 0: every device of its node, or one line saying which
 * could not be read. */
static int info_run(struct hpcp_bench *b, double *seconds)
{
    struct info_state *s = b->state;
    char why[512] = "";
    int rc = 0;
    double t0 = MPI_Wtime();
    for (int i = 0; b->rank == 0 && i < s->count && !rc; i++)
        rc = hpcp_device_info(i, &s->dev[i], why, sizeof why) ? HPCP_EXIT_RUNTIME : 0;
    *seconds = MPI_Wtime() - t0;
    if (rc)
        fprintf(stderr, "hpcprobe-bench: gpu info: %s\n", why);
    MPI_Bcast(&rc, 1, MPI_INT, 0, b->comm);
    return rc;
}

/* Rank 0: each device answered as the one asked for, and the JSON line of
 * them all is whole; error = what is wrong, the exit status runtime. */
static int info_verify(struct hpcp_bench *b, double *error)
{
    struct info_state *s = b->state;
    int wrong = 0;
    if (b->rank == 0) {
        hpcp_json_begin_object(&s->j, NULL);
        hpcp_json_string(&s->j, "build", hpcp_device_build());
        hpcp_json_begin_array(&s->j, "devices");
        for (int i = 0; i < s->count; i++) {
            if (s->dev[i].index != i && ++wrong == 1)
                fprintf(stderr, "hpcprobe-bench: gpu info: device %d answered as device %d\n", i,
                        s->dev[i].index);
            describe(&s->j, &s->dev[i]);
        }
        hpcp_json_end_array(&s->j);
        hpcp_json_end_object(&s->j);
        if (s->j.failed) {
            wrong++;
            fprintf(stderr, "hpcprobe-bench: gpu info: out of memory writing the JSON line\n");
        }
    }
    *error = wrong;
    return hpcp_any(b->comm, wrong > 0) ? HPCP_EXIT_RUNTIME : 0;
}

static void info_teardown(struct hpcp_bench *b)
{
    struct info_state *s = b->state;
    hpcp_json_free(&s->j);
    free(s->dev);
    s->dev = NULL;
}

static void info_print(const struct hpcp_record *r, struct hpcp_bench *b)
{
    (void)r; /* a query: no record */
    printf("%s\n", ((struct info_state *)b->state)->j.buf);
    fflush(stdout);
}

static const struct hpcp_family_hooks info_hooks = {.setup_failed = info_setup_failed,
                                                    .print = info_print};

/* One query through the harness: no warm-up, no record, always verified. */
static int info_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                       char **argv)
{
    struct hpcp_common c;
    struct hpcp_optval none[1];
    struct info_state s;
    memset(&s, 0, sizeof s);
    int rc = gpu_parse(&info_cli, "gpu info", argc, argv, none, &c);
    if (rc)
        return rc;
    char err[512] = "", why[520] = "";
    int bad = hpcp_device_count(&s.count, err, sizeof err) != 0;
    if (bad)
        snprintf(why, sizeof why, "gpu: %s", err);
    if (gpu_agree(MPI_COMM_WORLD, bad, why))
        return HPCP_EXIT_USAGE;
    struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, &s, k};
    c.repeat = 1, c.warmup = 0, c.verify = 1, c.quiet = 0;
    return hpcp_harness_run(k, &b, &c, &info_hooks);
}

static const struct hpcp_options_desc info_options = {&info_cli, NULL};
static const struct hpcp_metric_desc no_metrics[] = {{NULL, NULL, NULL}};
static const struct hpcp_records_desc info_records = {no_metrics, NULL};

const struct hpcp_kernel hpcp_gpu_info = {
    "gpu",         "info",
    "query",       "the devices of rank 0's node and the build, as one JSON line (no measurement)",
    info_driver,   info_setup,
    info_run,      info_verify,
    info_teardown, NULL,
    &info_options, &info_records};
