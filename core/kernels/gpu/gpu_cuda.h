/* What the gpu family's CUDA files share (never included by host C): the check of
 * every runtime call, which keeps the first failure's words for gpu_last_error. */
#ifndef HPCP_GPU_CUDA_H
#define HPCP_GPU_CUDA_H
#include <cuda_runtime.h>

/* 0 when e is cudaSuccess; else -1, and what failed is kept for gpu_last_error. */
int gpu_cuda_failed(cudaError_t e, const char *what);
/* The same for the launch just made (cudaGetLastError). */
int gpu_launch_failed(const char *kernel);

/* Threads per block of the bandwidth kernels (BabelStream's TBSIZE). */
#define GPU_BLOCK 1024
/* Blocks needed for one thread per element. */
static inline unsigned gpu_blocks(unsigned long long n, unsigned block)
{
    return (unsigned)((n + block - 1) / block);
}

#endif
