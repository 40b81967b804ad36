/* gpu stream: BabelStream's Copy, Mul, Add, Triad and Dot on device arrays, one element
 * per thread (Dot: a grid-stride loop over 4 blocks per multiprocessor, reduced in shared
 * memory, the partial sums added on the host as BabelStream does). Each kernel is timed
 * by device events around it; Dot's interval includes copying its partial sums back. */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"
#include "gpu_cuda.h"

static char last_error[256] = "no error";

extern "C" const char *gpu_last_error(void)
{
    return last_error;
}

int gpu_cuda_failed(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 0;
    snprintf(last_error, sizeof last_error, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}

int gpu_launch_failed(const char *kernel)
{
    return gpu_cuda_failed(cudaGetLastError(), kernel);
}

struct gpu_stream_arrays {
    double *a, *b, *c;
    double *partial;       /* device: one sum per dot block (3 per block for deviation) */
    double *host_partial;  /* pinned */
    unsigned long long n;
    unsigned dot_blocks;
    cudaEvent_t start, stop;
};

__global__ void init_kernel(double *a, double *b, double *c, double a0, double b0, double c0,
                            unsigned long long n)
{
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = a0, b[i] = b0, c[i] = c0;
}

__global__ void copy_kernel(const double *__restrict__ a, double *__restrict__ c,
                            unsigned long long n)
{
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i];
}

__global__ void mul_kernel(double *__restrict__ b, const double *__restrict__ c, double scalar,
                           unsigned long long n)
{
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        b[i] = scalar * c[i];
}

__global__ void add_kernel(const double *__restrict__ a, const double *__restrict__ b,
                           double *__restrict__ c, unsigned long long n)
{
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

__global__ void triad_kernel(double *__restrict__ a, const double *__restrict__ b,
                             const double *__restrict__ c, double scalar, unsigned long long n)
{
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = b[i] + scalar * c[i];
}

/* Sum of a block's `value`s into out (tree reduction in shared memory). */
__device__ void block_sum(double value, double *out)
{
    __shared__ double sums[GPU_BLOCK];
    sums[threadIdx.x] = value;
    for (unsigned offset = blockDim.x / 2; offset > 0; offset /= 2) {
        __syncthreads();
        if (threadIdx.x < offset)
            sums[threadIdx.x] += sums[threadIdx.x + offset];
    }
    if (threadIdx.x == 0)
        *out = sums[0];
}

__global__ void dot_kernel(const double *__restrict__ a, const double *__restrict__ b,
                           double *partial, unsigned long long n)
{
    double sum = 0;
    unsigned long long stride = (unsigned long long)blockDim.x * gridDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        sum += a[i] * b[i];
    block_sum(sum, &partial[blockIdx.x]);
}

/* Per block: the sums of |a - ga|, |b - gb| and |c - gc| (partial[3 * block + k]). */
__global__ void deviation_kernel(const double *a, const double *b, const double *c, double ga,
                                 double gb, double gc, double *partial, unsigned long long n)
{
    double da = 0, db = 0, dc = 0;
    unsigned long long stride = (unsigned long long)blockDim.x * gridDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        da += fabs(a[i] - ga), db += fabs(b[i] - gb), dc += fabs(c[i] - gc);
    }
    block_sum(da, &partial[3 * blockIdx.x]);
    __syncthreads();
    block_sum(db, &partial[3 * blockIdx.x + 1]);
    __syncthreads();
    block_sum(dc, &partial[3 * blockIdx.x + 2]);
}

extern "C" struct gpu_stream_arrays *gpu_stream_create(uint64_t n)
{
    struct gpu_stream_arrays *s = (struct gpu_stream_arrays *)calloc(1, sizeof *s);
    int device = 0, sms = 0;
    if (!s || gpu_cuda_failed(cudaGetDevice(&device), "cudaGetDevice") ||
        gpu_cuda_failed(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
                        "cudaDeviceGetAttribute")) {
        free(s);
        return NULL;
    }
    s->n = n;
    s->dot_blocks = 4u * (unsigned)(sms > 0 ? sms : 1); /* BabelStream: 4 per SM */
    size_t bytes = n * sizeof(double), sums = 3 * s->dot_blocks * sizeof(double);
    if (gpu_cuda_failed(cudaMalloc(&s->a, bytes), "cudaMalloc a") ||
        gpu_cuda_failed(cudaMalloc(&s->b, bytes), "cudaMalloc b") ||
        gpu_cuda_failed(cudaMalloc(&s->c, bytes), "cudaMalloc c") ||
        gpu_cuda_failed(cudaMalloc(&s->partial, sums), "cudaMalloc sums") ||
        gpu_cuda_failed(cudaMallocHost(&s->host_partial, sums), "cudaMallocHost sums") ||
        gpu_cuda_failed(cudaEventCreate(&s->start), "cudaEventCreate") ||
        gpu_cuda_failed(cudaEventCreate(&s->stop), "cudaEventCreate")) {
        gpu_stream_destroy(s);
        return NULL;
    }
    return s;
}

extern "C" void gpu_stream_destroy(struct gpu_stream_arrays *s)
{
    if (!s)
        return;
    cudaFree(s->a), cudaFree(s->b), cudaFree(s->c), cudaFree(s->partial);
    cudaFreeHost(s->host_partial);
    if (s->start)
        cudaEventDestroy(s->start);
    if (s->stop)
        cudaEventDestroy(s->stop);
    free(s);
}

extern "C" int gpu_stream_init(struct gpu_stream_arrays *s)
{
    init_kernel<<<gpu_blocks(s->n, GPU_BLOCK), GPU_BLOCK>>>(s->a, s->b, s->c, GPU_STREAM_A0,
                                                            GPU_STREAM_B0, GPU_STREAM_C0, s->n);
    if (gpu_launch_failed("init_kernel"))
        return -1;
    return gpu_cuda_failed(cudaDeviceSynchronize(), "init_kernel");
}

/* Launch one op; dot also copies its partial sums back (part of its interval). */
static int launch(struct gpu_stream_arrays *s, enum gpu_stream_op op)
{
    unsigned blocks = gpu_blocks(s->n, GPU_BLOCK);
    switch (op) {
    case GPU_COPY: copy_kernel<<<blocks, GPU_BLOCK>>>(s->a, s->c, s->n); break;
    case GPU_MUL: mul_kernel<<<blocks, GPU_BLOCK>>>(s->b, s->c, GPU_STREAM_SCALAR, s->n); break;
    case GPU_ADD: add_kernel<<<blocks, GPU_BLOCK>>>(s->a, s->b, s->c, s->n); break;
    case GPU_TRIAD:
        triad_kernel<<<blocks, GPU_BLOCK>>>(s->a, s->b, s->c, GPU_STREAM_SCALAR, s->n);
        break;
    default:
        dot_kernel<<<s->dot_blocks, GPU_BLOCK>>>(s->a, s->b, s->partial, s->n);
        if (gpu_launch_failed("dot_kernel"))
            return -1;
        return gpu_cuda_failed(cudaMemcpyAsync(s->host_partial, s->partial,
                                               s->dot_blocks * sizeof(double),
                                               cudaMemcpyDeviceToHost),
                               "dot sums");
    }
    return gpu_launch_failed(gpu_stream_op_name(op));
}

extern "C" int gpu_stream_run(struct gpu_stream_arrays *s, enum gpu_stream_op op, double *seconds,
                              double *dot)
{
    float ms = 0;
    if (gpu_cuda_failed(cudaEventRecord(s->start), "cudaEventRecord") || launch(s, op) ||
        gpu_cuda_failed(cudaEventRecord(s->stop), "cudaEventRecord") ||
        gpu_cuda_failed(cudaEventSynchronize(s->stop), gpu_stream_op_name(op)) ||
        gpu_cuda_failed(cudaEventElapsedTime(&ms, s->start, s->stop), "cudaEventElapsedTime"))
        return -1;
    *seconds = 1e-3 * ms;
    if (op == GPU_DOT && dot) {
        double sum = 0;
        for (unsigned i = 0; i < s->dot_blocks; i++)
            sum += s->host_partial[i];
        *dot = sum;
    }
    return 0;
}

extern "C" int gpu_stream_deviation(struct gpu_stream_arrays *s, const struct gpu_stream_gold *g,
                                    double mean_abs_dev[3])
{
    deviation_kernel<<<s->dot_blocks, GPU_BLOCK>>>(s->a, s->b, s->c, g->a, g->b, g->c, s->partial,
                                                   s->n);
    if (gpu_launch_failed("deviation_kernel") ||
        gpu_cuda_failed(cudaMemcpy(s->host_partial, s->partial, 3 * s->dot_blocks * sizeof(double),
                                   cudaMemcpyDeviceToHost),
                        "deviation sums"))
        return -1;
    double sum[3] = {0, 0, 0};
    for (unsigned i = 0; i < s->dot_blocks; i++)
        for (int k = 0; k < 3; k++)
            sum[k] += s->host_partial[3 * i + k];
    for (int k = 0; k < 3; k++)
        mean_abs_dev[k] = sum[k] / (double)s->n;
    return 0;
}

extern "C" int gpu_stream_spoil(struct gpu_stream_arrays *s)
{
    double value = 0;
    double *at = s->a + s->n / 2;
    if (gpu_cuda_failed(cudaMemcpy(&value, at, sizeof value, cudaMemcpyDeviceToHost), "spoil"))
        return -1;
    value += 1.0;
    return gpu_cuda_failed(cudaMemcpy(at, &value, sizeof value, cudaMemcpyHostToDevice), "spoil");
}
