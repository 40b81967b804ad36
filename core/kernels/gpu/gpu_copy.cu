/* gpu copy: cudaMemcpy between host and device, within a device and between devices.
 * Each copy is timed on the host clock from the call until the device is done with it, so
 * a time is what a program waits for one copy (call overhead included: the latency at
 * small sizes).
 * Pageable host memory is malloc's; pinned is cudaMallocHost's. After the timed copies
 * the destination is compared with the source's pattern: a copy that moved the wrong
 * bytes fails validation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu.h"
#include "gpu_cuda.h"

/* A buffer of a copy: where it lives, and how to free it. */
struct buffer {
    void *p;
    int where; /* 0 pageable host, 1 pinned host, 2 device */
    int device;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int buffer_alloc(struct buffer *b, int where, int device, size_t bytes)
{
    b->where = where, b->device = device, b->p = NULL;
    if (where == 0)
        return (b->p = malloc(bytes)) ? 0 : gpu_cuda_failed(cudaErrorMemoryAllocation, "malloc");
    if (where == 1)
        return gpu_cuda_failed(cudaMallocHost(&b->p, bytes), "cudaMallocHost");
    if (gpu_cuda_failed(cudaSetDevice(device), "cudaSetDevice"))
        return -1;
    return gpu_cuda_failed(cudaMalloc(&b->p, bytes), "cudaMalloc");
}

static void buffer_free(struct buffer *b)
{
    if (!b->p)
        return;
    if (b->where == 0)
        free(b->p);
    else if (b->where == 1)
        cudaFreeHost(b->p);
    else
        cudaSetDevice(b->device), cudaFree(b->p);
    b->p = NULL;
}

/* The bytes every copy carries: a pattern no stale or zeroed buffer matches. */
static void pattern(unsigned char *host, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        host[i] = (unsigned char)((i * 2654435761u) >> 13 ^ 0x5a);
}

/* Fill src with the pattern, and dst with something else, so that a copy that does not
 * happen is seen. */
static int fill(struct buffer *src, struct buffer *dst, unsigned char *host, size_t bytes)
{
    pattern(host, bytes);
    if (gpu_cuda_failed(cudaMemcpy(src->p, host, bytes, cudaMemcpyDefault), "fill source"))
        return -1;
    if (dst->where != 2) {
        memset(dst->p, 0xff, bytes);
        return 0;
    }
    return gpu_cuda_failed(cudaMemset(dst->p, 0xff, bytes), "fill destination");
}

/* 1 when dst holds the pattern. */
static int intact(struct buffer *dst, unsigned char *host, size_t bytes)
{
    unsigned char *back = (unsigned char *)malloc(bytes);
    if (!back || gpu_cuda_failed(cudaMemcpy(back, dst->p, bytes, cudaMemcpyDefault), "read back")) {
        free(back);
        return 0;
    }
    int same = memcmp(back, host, bytes) == 0;
    free(back);
    return same;
}

/* Where the source and destination of kind k live (0 pageable, 1 pinned, 2 device). */
static void places(enum gpu_copy_kind k, int pinned, int *src, int *dst)
{
    int host = pinned ? 1 : 0;
    *src = k == GPU_COPY_H2D ? host : 2;
    *dst = k == GPU_COPY_D2H ? host : 2;
}

static int timed_copies(struct buffer *src, struct buffer *dst, size_t bytes, int reps,
                        double *seconds)
{
    /* one untimed copy first: the first touch of a buffer maps it */
    if (gpu_cuda_failed(cudaMemcpy(dst->p, src->p, bytes, cudaMemcpyDefault), "cudaMemcpy"))
        return -1;
    /* cudaMemcpy may return before a device-to-device copy, or the DMA of a pageable
     * host-to-device one, is done: the time ends when the device is done. */
    for (int i = 0; i < reps; i++) {
        double t0 = now();
        if (gpu_cuda_failed(cudaMemcpy(dst->p, src->p, bytes, cudaMemcpyDefault), "cudaMemcpy") ||
            gpu_cuda_failed(cudaDeviceSynchronize(), "cudaMemcpy"))
            return -1;
        seconds[i] = now() - t0;
    }
    return 0;
}

extern "C" int gpu_copy_time(enum gpu_copy_kind k, int pinned, int device, int peer, uint64_t bytes,
                             int reps, double *seconds, int *ok, char *why, size_t len)
{
    struct buffer src = {NULL, 0, 0}, dst = {NULL, 0, 0};
    int from, to, rc = -1;
    places(k, pinned, &from, &to);
    unsigned char *host = (unsigned char *)malloc(bytes);
    *ok = 0;
    if (k == GPU_COPY_P2P && gpu_cuda_failed(cudaSetDevice(device), "cudaSetDevice"))
        goto out;
    if (k == GPU_COPY_P2P) {
        cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
        if (e != cudaErrorPeerAccessAlreadyEnabled && gpu_cuda_failed(e, "peer access"))
            goto out;
        cudaGetLastError(); /* "already enabled" is not an error here */
    }
    if (!host || buffer_alloc(&src, from, device, bytes) ||
        buffer_alloc(&dst, to, k == GPU_COPY_P2P ? peer : device, bytes) ||
        cudaSetDevice(device) != cudaSuccess || fill(&src, &dst, host, bytes) ||
        timed_copies(&src, &dst, bytes, reps, seconds))
        goto out;
    *ok = intact(&dst, host, bytes);
    rc = 0;
out:
    if (rc)
        snprintf(why, len, "%s", gpu_last_error());
    buffer_free(&src), buffer_free(&dst), free(host);
    return rc;
}

extern "C" int gpu_peer_access(int device, int peer)
{
    int can = 0;
    if (device == peer || cudaDeviceCanAccessPeer(&can, device, peer) != cudaSuccess)
        return 0;
    return can;
}
