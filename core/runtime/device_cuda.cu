/* The accelerator layer through CUDA's runtime (hpcprobe/device.h). Linked statically,
 * so a node without a driver runs the binary and gets a one-line reason here. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "hpcprobe/device.h"

static char last_error[256] = "no error";

static int failed(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 0;
    snprintf(last_error, sizeof last_error, "%s: %s (CUDA error %d)", what, cudaGetErrorString(e),
             (int)e);
    return -1;
}

extern "C" const char *hpcp_device_build(void)
{
    static char text[32];
    snprintf(text, sizeof text, "cuda %d.%d", CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    return text;
}

extern "C" int hpcp_device_count(int *count, char *why, size_t len)
{
    *count = 0;
    cudaError_t e = cudaGetDeviceCount(count);
    if (e == cudaErrorInsufficientDriver) {
        snprintf(why, len,
                 "no CUDA driver on this node, or one older than this build's %s "
                 "runtime",
                 hpcp_device_build());
        *count = 0;
        return -1;
    }
    if (e == cudaErrorNoDevice || (e == cudaSuccess && *count == 0)) {
        snprintf(why, len, "no CUDA device on this node");
        *count = 0;
        return -1;
    }
    if (failed(e, "cudaGetDeviceCount")) {
        snprintf(why, len, "%s", last_error);
        *count = 0;
        return -1;
    }
    return 0;
}

static int attribute(enum cudaDeviceAttr a, int device)
{
    int v = 0;
    return cudaDeviceGetAttribute(&v, a, device) == cudaSuccess ? v : 0;
}

extern "C" int hpcp_device_info(int device, struct hpcp_device_info *info, char *why, size_t len)
{
    memset(info, 0, sizeof *info);
    cudaDeviceProp p;
    if (failed(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties")) {
        snprintf(why, len, "device %d: %s", device, last_error);
        return -1;
    }
    info->index = device;
    snprintf(info->name, sizeof info->name, "%s", p.name);
    cudaDeviceGetPCIBusId(info->pci_bus_id, (int)sizeof info->pci_bus_id, device);
    info->cc_major = p.major, info->cc_minor = p.minor;
    info->multiprocessors = p.multiProcessorCount;
    info->memory_bytes = p.totalGlobalMem;
    info->l2_bytes = (uint64_t)p.l2CacheSize;
    /* The clocks are attributes in kHz (cudaDeviceProp's fields went in CUDA 13). */
    info->memory_clock_hz = 1e3 * attribute(cudaDevAttrMemoryClockRate, device);
    info->bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
    info->sm_clock_hz = 1e3 * attribute(cudaDevAttrClockRate, device);
    info->ecc = p.ECCEnabled ? 1 : 0;
    info->max_threads_per_block = p.maxThreadsPerBlock;
    cudaDriverGetVersion(&info->driver_version);
    cudaRuntimeGetVersion(&info->runtime_version);
    hpcp_pcie_link("/sys", info->pci_bus_id, &info->pcie_transfer_rate, &info->pcie_width);
    size_t free_bytes = 0, total = 0;
    if (cudaSetDevice(device) == cudaSuccess && cudaMemGetInfo(&free_bytes, &total) == cudaSuccess)
        info->memory_free_bytes = free_bytes;
    return 0;
}

extern "C" int hpcp_device_select(int device)
{
    return failed(cudaSetDevice(device), "cudaSetDevice");
}

extern "C" void *hpcp_device_alloc(size_t bytes)
{
    void *p = NULL;
    return failed(cudaMalloc(&p, bytes), "cudaMalloc") ? NULL : p;
}

extern "C" void hpcp_device_free(void *p)
{
    if (p)
        cudaFree(p);
}

extern "C" void *hpcp_host_pinned_alloc(size_t bytes)
{
    void *p = NULL;
    return failed(cudaMallocHost(&p, bytes), "cudaMallocHost") ? NULL : p;
}

extern "C" void hpcp_host_pinned_free(void *p)
{
    if (p)
        cudaFreeHost(p);
}

extern "C" int hpcp_device_copy(void *dst, const void *src, size_t bytes)
{
    return failed(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
}

extern "C" int hpcp_device_memset(void *p, int byte, size_t bytes)
{
    return failed(cudaMemset(p, byte, bytes), "cudaMemset");
}

extern "C" int hpcp_device_sync(void)
{
    return failed(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

extern "C" const char *hpcp_device_last_error(void)
{
    return last_error;
}
