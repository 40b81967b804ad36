/* The registry: one line per kernel. Adding a kernel = one file + one line. */
#include <string.h>

#include "hpcprobe/kernel.h"

extern const struct hpcp_kernel hpcp_ra_single;
extern const struct hpcp_kernel hpcp_ra_star;
extern const struct hpcp_kernel hpcp_ra_ceiling;
extern const struct hpcp_kernel hpcp_ra_mpi_reference;
extern const struct hpcp_kernel hpcp_ra_mpi_alltoall;
extern const struct hpcp_kernel hpcp_ra_mpi_hypercube;
extern const struct hpcp_kernel hpcp_ra_mpi_torus;
extern const struct hpcp_kernel hpcp_ra_mpi_staged;
extern const struct hpcp_kernel hpcp_ra_mpi_shared;
extern const struct hpcp_kernel hpcp_ra_mpi_pipeline;
extern const struct hpcp_kernel hpcp_stream_single;
extern const struct hpcp_kernel hpcp_stream_star;
extern const struct hpcp_kernel hpcp_mem_stride;
extern const struct hpcp_kernel hpcp_mem_latency;
extern const struct hpcp_kernel hpcp_hpl_mpi;
extern const struct hpcp_kernel hpcp_dgemm_single;
extern const struct hpcp_kernel hpcp_dgemm_star;
extern const struct hpcp_kernel hpcp_ptrans_mpi;
extern const struct hpcp_kernel hpcp_fft_single;
extern const struct hpcp_kernel hpcp_fft_star;
extern const struct hpcp_kernel hpcp_fft_mpi;
extern const struct hpcp_kernel hpcp_contention_wocon;
extern const struct hpcp_kernel hpcp_contention_wicon;
extern const struct hpcp_kernel hpcp_contention_stress_link;
extern const struct hpcp_kernel hpcp_contention_equidistant;
extern const struct hpcp_kernel hpcp_topology_show;
extern const struct hpcp_kernel hpcp_comm_all;
extern const struct hpcp_kernel hpcp_comm_pingpong;
extern const struct hpcp_kernel hpcp_comm_pingping;
extern const struct hpcp_kernel hpcp_comm_sendrecv;
extern const struct hpcp_kernel hpcp_comm_exchange;
extern const struct hpcp_kernel hpcp_comm_allreduce;
extern const struct hpcp_kernel hpcp_comm_reduce;
extern const struct hpcp_kernel hpcp_comm_reduce_scatter;
extern const struct hpcp_kernel hpcp_comm_allgather;
extern const struct hpcp_kernel hpcp_comm_allgatherv;
extern const struct hpcp_kernel hpcp_comm_gather;
extern const struct hpcp_kernel hpcp_comm_scatter;
extern const struct hpcp_kernel hpcp_comm_alltoall;
extern const struct hpcp_kernel hpcp_comm_alltoallv;
extern const struct hpcp_kernel hpcp_comm_bcast;
extern const struct hpcp_kernel hpcp_comm_barrier;
extern const struct hpcp_kernel hpcp_beff_hpcc;
extern const struct hpcp_kernel hpcp_pairs_bandwidth;
extern const struct hpcp_kernel hpcp_congestion_load;
extern const struct hpcp_kernel hpcp_peak_bandwidth_single;
extern const struct hpcp_kernel hpcp_peak_bandwidth_star;
extern const struct hpcp_kernel hpcp_gpu_stream;
extern const struct hpcp_kernel hpcp_gpu_ra_atomic;
extern const struct hpcp_kernel hpcp_gpu_ra_plain;
extern const struct hpcp_kernel hpcp_gpu_copy;
extern const struct hpcp_kernel hpcp_gpu_info;
extern const struct hpcp_kernel hpcp_peak_clock;
extern const struct hpcp_kernel hpcp_peak_flops_single;
extern const struct hpcp_kernel hpcp_peak_flops_star;

const struct hpcp_kernel *const hpcp_kernels[] = {
    &hpcp_ra_single,
    &hpcp_ra_star,
    &hpcp_ra_ceiling,
    &hpcp_ra_mpi_reference,
    &hpcp_ra_mpi_alltoall,
    &hpcp_ra_mpi_hypercube,
    &hpcp_ra_mpi_torus,
    &hpcp_ra_mpi_staged,
    &hpcp_ra_mpi_shared,
    &hpcp_ra_mpi_pipeline,
    &hpcp_stream_single,
    &hpcp_stream_star,
    &hpcp_mem_stride,
    &hpcp_mem_latency,
    &hpcp_hpl_mpi,
    &hpcp_dgemm_single,
    &hpcp_dgemm_star,
    &hpcp_ptrans_mpi,
    &hpcp_fft_single,
    &hpcp_fft_star,
    &hpcp_fft_mpi,
    &hpcp_contention_wocon,
    &hpcp_contention_wicon,
    &hpcp_contention_stress_link,
    &hpcp_contention_equidistant,
    &hpcp_topology_show,
    &hpcp_comm_all,
    &hpcp_comm_pingpong,
    &hpcp_comm_pingping,
    &hpcp_comm_sendrecv,
    &hpcp_comm_exchange,
    &hpcp_comm_allreduce,
    &hpcp_comm_reduce,
    &hpcp_comm_reduce_scatter,
    &hpcp_comm_allgather,
    &hpcp_comm_allgatherv,
    &hpcp_comm_gather,
    &hpcp_comm_scatter,
    &hpcp_comm_alltoall,
    &hpcp_comm_alltoallv,
    &hpcp_comm_bcast,
    &hpcp_comm_barrier,
    &hpcp_beff_hpcc,
    &hpcp_pairs_bandwidth,
    &hpcp_congestion_load,
    &hpcp_peak_bandwidth_single,
    &hpcp_peak_bandwidth_star,
    &hpcp_gpu_stream,
    &hpcp_gpu_ra_atomic,
    &hpcp_gpu_ra_plain,
    &hpcp_gpu_copy,
    &hpcp_peak_clock,
    &hpcp_peak_flops_single,
    &hpcp_peak_flops_star,
    &hpcp_gpu_info, /* last: it asks the devices and measures nothing */
};
const int hpcp_nkernels = (int)(sizeof hpcp_kernels / sizeof hpcp_kernels[0]);

const struct hpcp_kernel *hpcp_find_kernel(const char *family, const char *variant,
                                           const char *algorithm)
{
    for (int i = 0; i < hpcp_nkernels; i++) {
        const struct hpcp_kernel *k = hpcp_kernels[i];
        if (strcmp(k->family, family) == 0 && strcmp(k->variant, variant) == 0 &&
            (!algorithm || strcmp(k->algorithm, algorithm) == 0))
            return k;
    }
    return NULL;
}
