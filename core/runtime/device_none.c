/* The accelerator layer of a build without CUDA (hpcprobe/device.h): no device, and one
 * line that says why, so `gpu` and `comm --buffers device` refuse before any work. */
#include <stdio.h>
#include <string.h>

#include "hpcprobe/device.h"

static const char why_none[] = "this hpcprobe was built without CUDA (no nvcc when it was "
                               "compiled; docs/building.md: HPCP_CUDA)";

const char *hpcp_device_build(void)
{
    return "none";
}

int hpcp_device_count(int *count, char *why, size_t len)
{
    *count = 0;
    snprintf(why, len, "%s", why_none);
    return -1;
}

int hpcp_device_info(int device, struct hpcp_device_info *info, char *why, size_t len)
{
    memset(info, 0, sizeof *info);
    snprintf(why, len, "%s", why_none);
    return -1;
}

int hpcp_device_select(int device)
{
    return -1;
}

void *hpcp_device_alloc(size_t bytes)
{
    return NULL;
}

void hpcp_device_free(void *p)
{
}

void *hpcp_host_pinned_alloc(size_t bytes)
{
    return NULL;
}

void hpcp_host_pinned_free(void *p)
{
}

int hpcp_device_copy(void *dst, const void *src, size_t bytes)
{
    return -1;
}

int hpcp_device_memset(void *p, int byte, size_t bytes)
{
    return -1;
}

int hpcp_device_sync(void)
{
    return -1;
}

const char *hpcp_device_last_error(void)
{
    return why_none;
}
