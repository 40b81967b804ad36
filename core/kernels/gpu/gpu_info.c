/* `hpcprobe-bench gpu info`: the devices of rank 0's node and the build, as one JSON
 * line (`hpcprobe gpu info` turns it into a table). No measurement. */
#include <stdio.h>
#include <string.h>

#include "gpu_drv.h"
#include "hpcprobe/json.h"
#include "hpcprobe/util.h"

/* No options (a table of none: the parser copies from it). */
static const struct hpcp_optspec no_spec[1] = {
    {"--none", HPCP_OPT_FLAG, 0, 0, 0, 0, 0, NULL, 0, "(no options)", NULL}};
static const struct hpcp_cli info_cli = {no_spec, 0, 0, 0, 0, 0, 0};

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

/* Rank 0: the JSON line, or one line saying which device could not be read. */
static int print_devices(int count)
{
    struct hpcp_json j;
    char why[512] = "";
    int rc = 0;
    hpcp_json_init(&j);
    hpcp_json_begin_object(&j, NULL);
    hpcp_json_string(&j, "build", hpcp_device_build());
    hpcp_json_begin_array(&j, "devices");
    for (int i = 0; i < count && !rc; i++) {
        struct hpcp_device_info d;
        rc = hpcp_device_info(i, &d, why, sizeof why) ? HPCP_EXIT_RUNTIME : 0;
        if (!rc)
            describe(&j, &d);
    }
    hpcp_json_end_array(&j);
    hpcp_json_end_object(&j);
    if (rc)
        fprintf(stderr, "hpcprobe-bench: gpu info: %s\n", why);
    else if (j.failed)
        fprintf(stderr, "hpcprobe-bench: gpu info: out of memory writing the JSON line\n");
    else
        printf("%s\n", j.buf);
    fflush(stdout);
    rc = rc ? rc : j.failed ? HPCP_EXIT_RUNTIME : 0;
    hpcp_json_free(&j);
    return rc;
}

static int info_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                       char **argv)
{
    struct hpcp_common c;
    struct hpcp_optval none[1];
    int count = 0, rc = gpu_parse(&info_cli, "gpu info", argc, argv, none, &c);
    if (rc)
        return rc;
    char err[512] = "", why[520] = "";
    int bad = hpcp_device_count(&count, err, sizeof err) != 0;
    if (bad)
        snprintf(why, sizeof why, "gpu: %s", err);
    if (gpu_agree(MPI_COMM_WORLD, bad, why))
        return HPCP_EXIT_USAGE;
    if (si->rank == 0)
        rc = print_devices(count);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}

static const struct hpcp_options_desc info_options = {&info_cli, NULL};
static const struct hpcp_metric_desc no_metrics[] = {{NULL, NULL, NULL}};
static const struct hpcp_records_desc info_records = {no_metrics, NULL};

const struct hpcp_kernel hpcp_gpu_info = {
    "gpu",         "info",
    "query",       "the devices of rank 0's node and the build, as one JSON line (no measurement)",
    info_driver,   NULL,
    NULL,          NULL,
    NULL,          NULL,
    &info_options, &info_records};
