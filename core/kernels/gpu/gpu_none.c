/* The gpu family's device side in a build without CUDA (gpu.h): every call fails. The
 * drivers never get here, as hpcp_device_count has refused first; these only link. */
#include <stdio.h>

#include "gpu.h"

const char *gpu_last_error(void)
{
    return "this hpcprobe was built without CUDA";
}

struct gpu_stream_arrays *gpu_stream_create(uint64_t n)
{
    return NULL;
}

void gpu_stream_destroy(struct gpu_stream_arrays *s)
{
}

int gpu_stream_init(struct gpu_stream_arrays *s)
{
    return -1;
}

int gpu_stream_run(struct gpu_stream_arrays *s, enum gpu_stream_op op, double *seconds, double *dot)
{
    return -1;
}

int gpu_stream_deviation(struct gpu_stream_arrays *s, const struct gpu_stream_gold *g,
                         double mean_abs_dev[3])
{
    return -1;
}

int gpu_stream_spoil(struct gpu_stream_arrays *s)
{
    return -1;
}

struct gpu_ra_table *gpu_ra_create(const struct gpu_ra_plan *p)
{
    return NULL;
}

void gpu_ra_destroy(struct gpu_ra_table *t)
{
}

int gpu_ra_reset(struct gpu_ra_table *t)
{
    return -1;
}

int gpu_ra_update(struct gpu_ra_table *t, int atomic, double *seconds)
{
    return -1;
}

int gpu_ra_verify(struct gpu_ra_table *t, uint64_t *wrong)
{
    return -1;
}

int gpu_ra_spoil(struct gpu_ra_table *t, uint64_t words)
{
    return -1;
}

int gpu_copy_time(enum gpu_copy_kind k, int pinned, int device, int peer, uint64_t bytes, int reps,
                  double *seconds, int *intact, char *why, size_t len)
{
    *intact = 0;
    snprintf(why, len, "this hpcprobe was built without CUDA");
    return -1;
}

int gpu_peer_access(int device, int peer)
{
    return 0;
}
