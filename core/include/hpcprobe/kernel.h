/* The kernel interface: every benchmark variant is one `struct hpcp_kernel`
 * in one .c file plus one line in runtime/registry.c. */
#ifndef HPCPROBE_KERNEL_H
#define HPCPROBE_KERNEL_H
#include <mpi.h>
#include "hpcprobe/sysinfo.h"

struct hpcp_kernel;

/* Everything a kernel sees of one run. `state` belongs to the family. */
struct hpcp_bench {
    MPI_Comm comm;
    int rank, ranks;
    const struct hpcp_sysinfo *si;
    void *state;
    const struct hpcp_kernel *kernel; /* the kernel being run */
};

/* A family's driver parses its options, sizes and runs a kernel through the
 * phases below, and writes the record. Returns an HPCP_EXIT_* status. */
typedef int (*hpcp_family_main)(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si,
                                int argc, char **argv);

struct hpcp_kernel {
    const char *family;     /* subcommand: "ra" */
    const char *variant;    /* "single", "star", "mpi" */
    const char *algorithm;  /* "serial", "reference", ... */
    const char *summary;    /* one line for `hpcprobe-bench list` */
    hpcp_family_main driver;
    /* Phases; each returns 0 or an HPCP_EXIT_* status, collectively. */
    int (*setup)(struct hpcp_bench *b);
    int (*run)(struct hpcp_bench *b, double *seconds);   /* one timed repetition */
    int (*verify)(struct hpcp_bench *b, double *error);  /* error in family units */
    void (*teardown)(struct hpcp_bench *b);
    /* What the family knows of this kernel beyond the phases, or NULL (ra:
     * a struct ra_algorithm), so shared code reads data, not names. */
    const void *family_data;
};

/* The registry (runtime/registry.c). */
extern const struct hpcp_kernel *const hpcp_kernels[];
extern const int hpcp_nkernels;

/* Kernel with this family/variant/algorithm (algorithm NULL: the first). */
const struct hpcp_kernel *hpcp_find_kernel(const char *family, const char *variant,
                                           const char *algorithm);

#endif
