/* Every kernel in the registry (what `describe` lists) runs through the
 * harness: a driver, and setup, run, verify and teardown for
 * hpcp_harness_run (mem's phases: hpcp_harness_loop) to call; none may
 * leave a phase to a loop of its own. */
#include <mpi.h>
#include <stdio.h>

#include "check.h"
#include "hpcprobe/kernel.h"

static int complete(const struct hpcp_kernel *k)
{
    const char *missing = !k->driver     ? "driver"
                          : !k->setup    ? "setup"
                          : !k->run      ? "run"
                          : !k->verify   ? "verify"
                          : !k->teardown ? "teardown"
                                         : NULL;
    if (missing)
        fprintf(stderr, "%s %s (%s): no %s phase\n", k->family, k->variant, k->algorithm, missing);
    return missing == NULL;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(hpcp_nkernels > 0);
    for (int i = 0; i < hpcp_nkernels; i++)
        CHECK(complete(hpcp_kernels[i]));
    MPI_Finalize();
    return check_summary("test_registry");
}
