/* The kernel interface: every benchmark variant is one `struct hpcp_kernel`
 * in one .c file plus one line in runtime/registry.c. */
#ifndef HPCPROBE_KERNEL_H
#define HPCPROBE_KERNEL_H
#include <mpi.h>
#include "hpcprobe/sysinfo.h"

struct hpcp_kernel;
struct hpcp_cli; /* harness.h */

/* What `hpcprobe-bench describe --json` says of a kernel (runtime/describe.c). */

/* One metric of a kernel's record: its name (<...> marks a part named at
 * run time), its unit (SI base, as in the record) and one line. */
struct hpcp_metric_desc {
    const char *name, *unit, *about;
};

/* What a kernel records: its metrics, ending with {NULL}, and the one whose
 * statistic is the record's headline value (<...> as in the names). */
struct hpcp_records_desc {
    const struct hpcp_metric_desc *metrics;
    const char *headline;
};

/* The options the family parses for a kernel, and which of them it takes:
 * takes(k, i) for i < cli->n is own option i, for i >= cli->n the common
 * option i - cli->n (of those cli->takes has); NULL: every one. The same
 * data the family's parser refuses the others by, never a second list. */
struct hpcp_options_desc {
    const struct hpcp_cli *cli;
    int (*takes)(const struct hpcp_kernel *k, int option);
};

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
    const struct hpcp_options_desc *options; /* for describe: its options */
    const struct hpcp_records_desc *records; /* for describe: what it records */
};

/* The registry (runtime/registry.c). */
extern const struct hpcp_kernel *const hpcp_kernels[];
extern const int hpcp_nkernels;

/* The `describe --json` document (runtime/describe.c) into j. */
struct hpcp_json;
void hpcp_describe(struct hpcp_json *j);

/* Kernel with this family/variant/algorithm (algorithm NULL: the first). */
const struct hpcp_kernel *hpcp_find_kernel(const char *family, const char *variant,
                                           const char *algorithm);

#endif
