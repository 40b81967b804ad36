/* The accelerator layer: what any family needs of a GPU (how many, what they
 * are, memory on them and copies to and from them), and whether the MPI can
 * send from device memory. runtime/device_cuda.cu implements it when the
 * build found a CUDA compiler (HPCP_CUDA), runtime/device_none.c otherwise,
 * so that one binary serves nodes with and without a device: without one,
 * every call fails and hpcp_device_count says why in one line. */
#ifndef HPCPROBE_DEVICE_H
#define HPCPROBE_DEVICE_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the runtime says of one device (SI units; 0 or "" where it says nothing). */
struct hpcp_device_info {
    int index;
    char name[256];
    char pci_bus_id[32];        /* "0000:41:00.0" */
    int cc_major, cc_minor;     /* compute capability */
    int multiprocessors;
    uint64_t memory_bytes;      /* total device memory */
    uint64_t memory_free_bytes; /* free when asked */
    uint64_t l2_bytes;
    double memory_clock_hz;     /* peak memory clock */
    int bus_width_bits;         /* global memory bus */
    double sm_clock_hz;         /* peak SM clock */
    int ecc;                    /* 1 on, 0 off, -1 unknown */
    int driver_version;         /* CUDA's encoding: 1000 major + 10 minor */
    int runtime_version;
    int max_threads_per_block;
    double pcie_transfer_rate;  /* transfers/s per lane of the current PCIe link (sysfs) */
    int pcie_width;             /* lanes of the current link, 0 when sysfs does not say */
};

/* The build: "cuda 13.0" when built with CUDA, "none" otherwise. */
const char *hpcp_device_build(void);

/* 0 and *count >= 1 devices; or -1, *count = 0 and one line in why (built
 * without CUDA, no driver, no device), for a refusal that names what is
 * missing. */
int hpcp_device_count(int *count, char *why, size_t len);

/* 0 and the device's properties, or -1 with one line in why. */
int hpcp_device_info(int device, struct hpcp_device_info *info, char *why, size_t len);

/* Nominal memory bandwidth in B/s from the clocks and bus: 2 transfers per
 * clock (DDR/HBM) x bus width; 0 when either is unknown. (runtime/device_common.c, as
 * the two below: plain host C, built with or without CUDA.) */
double hpcp_device_nominal_bandwidth(const struct hpcp_device_info *info);

/* Bytes/s one direction of a PCIe link carries at `transfer_rate` transfers/s per lane
 * over `width` lanes, after the line code (8b/10b up to 5 GT/s, 128b/130b from 8 GT/s
 * on): gen5 x16 (32 GT/s) is 63.0 GB/s. 0 when either is unknown. */
double hpcp_pcie_bandwidth(double transfer_rate, int width);

/* The current link of PCI device `bus_id` ("0000:41:00.0", any case) from sysfs under
 * `sysfs_root` ("/sys" on a real node; a test's fake tree): 0, or -1 when not there. */
int hpcp_pcie_link(const char *sysfs_root, const char *bus_id, double *transfer_rate, int *width);

/* The calling thread's current device: 0 or -1. */
int hpcp_device_select(int device);

/* Device memory (NULL on failure), pinned host memory (NULL on failure). */
void *hpcp_device_alloc(size_t bytes);
void hpcp_device_free(void *p);
void *hpcp_host_pinned_alloc(size_t bytes);
void hpcp_host_pinned_free(void *p);

/* Synchronous copies (any direction the runtime can tell from the pointers):
 * 0 or -1. */
int hpcp_device_copy(void *dst, const void *src, size_t bytes);
/* bytes of device memory set to `byte`: 0 or -1. */
int hpcp_device_memset(void *p, int byte, size_t bytes);
/* Wait for the current device: 0 or -1. */
int hpcp_device_sync(void);
/* The last error, in words (for a one-line refusal). */
const char *hpcp_device_last_error(void);

/* Whether the MPI library moves device buffers itself (CUDA-aware): 1 yes,
 * 0 no, -1 the library cannot tell. `how` (may be NULL) gets the query used.
 * Implemented in runtime/device_mpi.c (plain C: it needs mpi.h). */
int hpcp_mpi_device_aware(char *how, size_t len);

#ifdef __cplusplus
}
#endif
#endif
