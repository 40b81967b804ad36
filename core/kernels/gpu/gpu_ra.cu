/* gpu ra: HPCC's RandomAccess on a device table. One device thread per generator stream:
 * stream s starts HPCC's one sequence at its own first update (hpcp_gups_starts, the
 * jump-ahead every host algorithm uses) and applies its updates in order, so each stream
 * has at most one update in flight (look-ahead 1). XOR is atomic (no update lost) or
 * plain (racing updates may be lost, within HPCC's 1 %). Verification replays every
 * update with atomic XOR, which restores table[i] = i wherever no update was lost. */
#include <stdlib.h>

#include "gpu.h"
#include "gpu_cuda.h"
#include "hpcprobe/gups_rng.h"

#define RA_BLOCK 256

struct gpu_ra_table {
    unsigned long long *t;
    unsigned long long *wrong; /* device counter for the check */
    struct gpu_ra_plan p;
    cudaEvent_t start, stop;
};

__global__ void ra_reset_kernel(unsigned long long *t, unsigned long long words)
{
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < words)
        t[i] = i;
}

template <bool ATOMIC> __global__ void ra_update_kernel(unsigned long long *t, struct gpu_ra_plan p)
{
    unsigned long long s = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= p.streams)
        return;
    unsigned long long first = s * p.per_stream + (s < p.extra ? s : p.extra);
    unsigned long long count = p.per_stream + (s < p.extra ? 1 : 0);
    unsigned long long mask = p.words - 1;
    uint64_t r = hpcp_gups_starts(first);
    for (unsigned long long k = 0; k < count; k++) {
        r = hpcp_gups_next(r);
        if (ATOMIC)
            atomicXor(&t[r & mask], (unsigned long long)r);
        else
            t[r & mask] ^= r;
    }
}

__global__ void ra_count_kernel(const unsigned long long *t, unsigned long long words,
                                unsigned long long *wrong)
{
    unsigned long long mine = 0, stride = (unsigned long long)blockDim.x * gridDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < words; i += stride)
        mine += t[i] != i;
    if (mine)
        atomicAdd(wrong, mine);
}

__global__ void ra_spoil_kernel(unsigned long long *t, unsigned long long words,
                                unsigned long long n)
{
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        t[i * (words / n)] ^= 1; /* n <= words: distinct words */
}

extern "C" struct gpu_ra_table *gpu_ra_create(const struct gpu_ra_plan *p)
{
    struct gpu_ra_table *r = (struct gpu_ra_table *)calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->p = *p;
    if (gpu_cuda_failed(cudaMalloc(&r->t, p->words * sizeof *r->t), "cudaMalloc table") ||
        gpu_cuda_failed(cudaMalloc(&r->wrong, sizeof *r->wrong), "cudaMalloc counter") ||
        gpu_cuda_failed(cudaEventCreate(&r->start), "cudaEventCreate") ||
        gpu_cuda_failed(cudaEventCreate(&r->stop), "cudaEventCreate")) {
        gpu_ra_destroy(r);
        return NULL;
    }
    return r;
}

extern "C" void gpu_ra_destroy(struct gpu_ra_table *r)
{
    if (!r)
        return;
    cudaFree(r->t), cudaFree(r->wrong);
    if (r->start)
        cudaEventDestroy(r->start);
    if (r->stop)
        cudaEventDestroy(r->stop);
    free(r);
}

extern "C" int gpu_ra_reset(struct gpu_ra_table *r)
{
    ra_reset_kernel<<<gpu_blocks(r->p.words, GPU_BLOCK), GPU_BLOCK>>>(r->t, r->p.words);
    if (gpu_launch_failed("ra_reset_kernel"))
        return -1;
    return gpu_cuda_failed(cudaDeviceSynchronize(), "ra_reset_kernel");
}

static int launch_updates(struct gpu_ra_table *r, int atomic)
{
    unsigned blocks = gpu_blocks(r->p.streams, RA_BLOCK);
    if (atomic)
        ra_update_kernel<true><<<blocks, RA_BLOCK>>>(r->t, r->p);
    else
        ra_update_kernel<false><<<blocks, RA_BLOCK>>>(r->t, r->p);
    return gpu_launch_failed("ra_update_kernel");
}

extern "C" int gpu_ra_update(struct gpu_ra_table *r, int atomic, double *seconds)
{
    float ms = 0;
    if (gpu_cuda_failed(cudaEventRecord(r->start), "cudaEventRecord") ||
        launch_updates(r, atomic) || gpu_cuda_failed(cudaEventRecord(r->stop), "cudaEventRecord") ||
        gpu_cuda_failed(cudaEventSynchronize(r->stop), "ra_update_kernel") ||
        gpu_cuda_failed(cudaEventElapsedTime(&ms, r->start, r->stop), "cudaEventElapsedTime"))
        return -1;
    *seconds = 1e-3 * ms;
    return 0;
}

extern "C" int gpu_ra_verify(struct gpu_ra_table *r, uint64_t *wrong)
{
    unsigned long long count = 0;
    int device = 0, sms = 1;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (launch_updates(r, 1) || gpu_cuda_failed(cudaMemset(r->wrong, 0, sizeof count), "memset"))
        return -1;
    ra_count_kernel<<<4 * sms, GPU_BLOCK>>>(r->t, r->p.words, r->wrong);
    if (gpu_launch_failed("ra_count_kernel") ||
        gpu_cuda_failed(cudaMemcpy(&count, r->wrong, sizeof count, cudaMemcpyDeviceToHost),
                        "ra_count_kernel"))
        return -1;
    *wrong = count;
    return 0;
}

extern "C" int gpu_ra_spoil(struct gpu_ra_table *r, uint64_t words)
{
    unsigned long long n = words < r->p.words ? words : r->p.words;
    if (n == 0)
        return 0;
    ra_spoil_kernel<<<gpu_blocks(n, GPU_BLOCK), GPU_BLOCK>>>(r->t, r->p.words, n);
    if (gpu_launch_failed("ra_spoil_kernel"))
        return -1;
    return gpu_cuda_failed(cudaDeviceSynchronize(), "ra_spoil_kernel");
}
