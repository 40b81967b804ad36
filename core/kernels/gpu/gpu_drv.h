/* What the gpu family's drivers share (gpu_params.c): their command lines, the choice of
 * each rank's device, one-line refusals agreed by every rank, and the device's part of
 * the record. Host C with MPI; the device code sits behind gpu.h. */
#ifndef HPCP_GPU_DRV_H
#define HPCP_GPU_DRV_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu.h"
#include "hpcprobe/device.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/record.h"
#include "hpcprobe/sysinfo.h"

/* This rank's device and what the ranks' devices add up to. */
struct gpu_device_use {
    int device;        /* this rank's device index on its node */
    int count;         /* devices on this rank's node */
    int sharers;       /* ranks of this node driving the same device (>= 1) */
    int sharers_max;   /* the most over all devices (every rank) */
    int devices;       /* distinct devices over all ranks (every rank) */
    double nominal;    /* their nominal bandwidths summed, B/s (every rank) */
    struct hpcp_device_info info;
};

/* Collective: 1 when `bad` is set on any rank, after rank 0 printed the lowest such
 * rank's `why` as one line ("hpcprobe-bench: <why>"); else 0. */
int gpu_agree(MPI_Comm comm, int bad, const char *why);

/* Parse a gpu command line (hpcp_cli_parse) and check that --out can be written: 0, or
 * HPCP_EXIT_USAGE after one line on rank 0. Collective. */
int gpu_parse(const struct hpcp_cli *cli, const char *context, int argc, char **argv,
              struct hpcp_optval *own, struct hpcp_common *c);

/* Collective over MPI_COMM_WORLD: devices on every rank's node, or one line
 * "gpu: <why>" and HPCP_EXIT_USAGE; then this rank's device (`requested` >= 0: that
 * one, else its index on the node modulo the node's devices), made current, with its
 * properties and the ranks sharing it. 0, or an HPCP_EXIT_* status after one line. */
int gpu_device_prepare(const struct hpcp_sysinfo *si, const char *context, int requested,
                       struct gpu_device_use *u);

/* "device 0 (NVIDIA H200, cc 9.0)" for plan lines. */
const char *gpu_device_text(const struct gpu_device_use *u, char *buf, size_t len);

/* Rank 0: the device parameters of a record (rank 0's device; the index -1 when several
 * ranks ran, the nominal bandwidth summed over the distinct devices). */
void gpu_record_device(struct hpcp_record *r, const struct gpu_device_use *u, int ranks);

#endif
