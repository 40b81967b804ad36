/* The gpu drivers' shared steps (gpu_drv.h): the command line, each rank's device, and
 * refusals that every rank agrees on before anything is allocated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_drv.h"
#include "hpcprobe/util.h"

#define WHY_LEN 512

int gpu_agree(MPI_Comm comm, int bad, const char *why)
{
    int rank, ranks, first;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    int mine = bad ? rank : ranks;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == ranks)
        return 0;
    /* The failing rank's own words, not a generic line: it may be the only one that
     * lacks a device or memory. */
    char line[WHY_LEN] = "";
    if (rank == first)
        hpcp_copy_truncated(line, sizeof line, why ? why : "failed");
    MPI_Bcast(line, (int)sizeof line, MPI_CHAR, first, comm);
    hpcp_error(comm, "%s", line);
    return 1;
}

int gpu_parse(const struct hpcp_cli *cli, const char *context, int argc, char **argv,
              struct hpcp_optval *own, struct hpcp_common *c)
{
    char err[WHY_LEN];
    /* The same argv on every rank: a parse error is the same everywhere. */
    int bad = hpcp_cli_parse(cli, argc, argv, context, own, c, err, sizeof err) ||
              hpcp_check_writable(MPI_COMM_WORLD, c->out, "--out", err, sizeof err);
    if (bad)
        hpcp_error(MPI_COMM_WORLD, "%s", err);
    return bad ? HPCP_EXIT_USAGE : 0;
}

/* The node's ranks on the same device, and whether this rank is the first of them
 * (whose device counts once in the totals). */
static int share_device(const struct hpcp_sysinfo *si, struct gpu_device_use *u, int *first)
{
    int n, me;
    MPI_Comm_size(si->node_comm, &n);
    MPI_Comm_rank(si->node_comm, &me);
    int *dev = malloc((size_t)n * sizeof *dev);
    if (!dev)
        return -1;
    MPI_Allgather(&u->device, 1, MPI_INT, dev, 1, MPI_INT, si->node_comm);
    u->sharers = 0, *first = 1;
    for (int i = 0; i < n; i++) {
        u->sharers += dev[i] == u->device;
        if (i < me && dev[i] == u->device)
            *first = 0;
    }
    free(dev);
    return 0;
}

static int pick(const struct hpcp_sysinfo *si, const char *context, int requested,
                struct gpu_device_use *u, char *why, size_t len)
{
    int node_rank;
    MPI_Comm_rank(si->node_comm, &node_rank);
    if (requested >= u->count) {
        snprintf(why, len, "%s: --device %d is not allowed (this node has %d device%s: 0 to %d)",
                 context, requested, u->count, u->count == 1 ? "" : "s", u->count - 1);
        return -1;
    }
    u->device = requested >= 0 ? requested : node_rank % u->count;
    char err[WHY_LEN / 2] = ""; /* room for the prefix in why */
    if (hpcp_device_info(u->device, &u->info, err, sizeof err) || hpcp_device_select(u->device)) {
        snprintf(why, len, "gpu: device %d: %s", u->device,
                 err[0] ? err : hpcp_device_last_error());
        return -1;
    }
    return 0;
}

int gpu_device_prepare(const struct hpcp_sysinfo *si, const char *context, int requested,
                       struct gpu_device_use *u)
{
    char why[WHY_LEN] = "", err[WHY_LEN / 2] = "";
    memset(u, 0, sizeof *u);
    int bad = hpcp_device_count(&u->count, err, sizeof err) != 0;
    if (bad)
        snprintf(why, sizeof why, "gpu: %s", err);
    if (gpu_agree(MPI_COMM_WORLD, bad, why))
        return HPCP_EXIT_USAGE;
    bad = pick(si, context, requested, u, why, sizeof why) != 0;
    /* An index past the node's devices is the user's; a device that fails, the node's. */
    int usage = requested >= u->count;
    if (gpu_agree(MPI_COMM_WORLD, bad, why))
        return hpcp_any(MPI_COMM_WORLD, usage) ? HPCP_EXIT_USAGE : HPCP_EXIT_RUNTIME;
    int first = 1;
    bad = share_device(si, u, &first) != 0;
    if (gpu_agree(MPI_COMM_WORLD, bad, "gpu: out of memory sharing the device list"))
        return HPCP_EXIT_RUNTIME;
    double mine[2] = {first ? 1.0 : 0.0, first ? hpcp_device_nominal_bandwidth(&u->info) : 0.0};
    double sum[2];
    MPI_Allreduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    u->devices = (int)sum[0], u->nominal = sum[1];
    MPI_Allreduce(&u->sharers, &u->sharers_max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return 0;
}

const char *gpu_device_text(const struct gpu_device_use *u, char *buf, size_t len)
{
    snprintf(buf, len, "device %d (%s, cc %d.%d)", u->device, u->info.name, u->info.cc_major,
             u->info.cc_minor);
    return buf;
}

void gpu_record_device(struct hpcp_record *r, const struct gpu_device_use *u, int ranks)
{
    const struct hpcp_device_info *d = &u->info;
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    hpcp_record_param_int(r, "device", ranks > 1 ? -1 : u->device);
    hpcp_record_param_int(r, "devices", u->devices);
    hpcp_record_param_string(r, "device_name", d->name);
    hpcp_record_param_string(r, "compute_capability", cc);
    hpcp_record_param_string(r, "pci_bus_id", d->pci_bus_id);
    hpcp_record_param_int(r, "multiprocessors", d->multiprocessors);
    hpcp_record_param_int(r, "l2_bytes", (long long)d->l2_bytes);
    hpcp_record_param_int(r, "memory_bytes", (long long)d->memory_bytes);
    hpcp_record_param_double(r, "nominal_bandwidth", u->nominal);
    hpcp_record_param_double(r, "memory_clock_hz", d->memory_clock_hz);
    hpcp_record_param_int(r, "bus_width_bits", d->bus_width_bits);
    hpcp_record_param_double(r, "sm_clock_hz", d->sm_clock_hz);
    if (d->ecc < 0)
        hpcp_record_param_null(r, "ecc");
    else
        hpcp_record_param_bool(r, "ecc", d->ecc);
    hpcp_record_param_int(r, "driver_version", d->driver_version);
    hpcp_record_param_int(r, "runtime_version", d->runtime_version);
    /* the host link, from sysfs: 0 where it says nothing */
    hpcp_record_param_double(r, "pcie_transfer_rate", d->pcie_transfer_rate);
    hpcp_record_param_int(r, "pcie_width", d->pcie_width);
    hpcp_record_param_double(r, "pcie_bandwidth",
                             hpcp_pcie_bandwidth(d->pcie_transfer_rate, d->pcie_width));
    hpcp_record_param_string(r, "build", hpcp_device_build());
    if (u->sharers_max > 1)
        hpcp_record_note(r,
                         "up to %d ranks drive one device: they share its memory and "
                         "bandwidth",
                         u->sharers_max);
}
