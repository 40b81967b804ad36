/* Whether the MPI moves device buffers itself (hpcprobe/device.h): asked of the library
 * at run time, never assumed from how it was built. */
#include <mpi.h>
#include <stdio.h>

#include "hpcprobe/device.h"

/* Open MPI declares its CUDA query in mpi-ext.h. */
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

static void say(char *how, size_t len, const char *text)
{
    if (how)
        snprintf(how, len, "%s", text);
}

int hpcp_mpi_device_aware(char *how, size_t len)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    say(how, len, "MPIX_Query_cuda_support()");
    return MPIX_Query_cuda_support() ? 1 : 0;
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
    say(how, len, "Open MPI built without CUDA (MPIX_CUDA_AWARE_SUPPORT 0)");
    return 0;
#elif defined(MPICH_NUMVERSION) && MPICH_NUMVERSION >= 40000000
    int supported = 0;
    say(how, len, "MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA)");
    if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &supported) != MPI_SUCCESS)
        return -1;
    return supported ? 1 : 0;
#else
    say(how, len, "this MPI has no query for device buffers");
    return -1;
#endif
}
