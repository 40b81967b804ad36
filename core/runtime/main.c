/* hpcprobe-bench: one MPI executable, one subcommand per benchmark family.
 * Usage and exit statuses: docs/cli.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/json.h"
#include "hpcprobe/kernel.h"
#include "hpcprobe/options.h"
#include "hpcprobe/sizing.h"
#include "hpcprobe/sysinfo.h"
#include "hpcprobe/util.h"

#define MAX_NAMES 64

/* Distinct families (with the built-in commands first) or variants of one family. */
static int list_names(const char *family, const char **names)
{
    int n = 0;
    if (!family) {
        names[n++] = "list";
        names[n++] = "sysinfo";
        names[n++] = "describe";
        names[n++] = "sizes";
    }
    for (int i = 0; i < hpcp_nkernels && n < MAX_NAMES; i++) {
        const char *s = family ? hpcp_kernels[i]->variant : hpcp_kernels[i]->family;
        if (family && strcmp(hpcp_kernels[i]->family, family) != 0)
            continue;
        int seen = 0;
        for (int k = 0; k < n; k++)
            seen |= strcmp(names[k], s) == 0;
        if (!seen)
            names[n++] = s;
    }
    return n;
}

static int unknown_name(const char *what, const char *word, const char **names, int n)
{
    char allowed[512] = "";
    for (int i = 0; i < n; i++)
        snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s", i ? ", " : "",
                 names[i]);
    const char *s = hpcp_suggest(word, names, n);
    hpcp_error(MPI_COMM_WORLD, "unknown %s '%s' (allowed: %s)%s%s%s", what, word, allowed,
               s ? "; did you mean '" : "", s ? s : "", s ? "'?" : "");
    return HPCP_EXIT_USAGE;
}

static int cmd_list(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; rank == 0 && i < hpcp_nkernels; i++) {
        const struct hpcp_kernel *k = hpcp_kernels[i];
        printf("%-10s %-14s %-12s %s\n", k->family, k->variant, k->algorithm, k->summary);
    }
    return HPCP_EXIT_OK;
}

/* describe --json: every family, kernel and option as one JSON document. */
static int cmd_describe(int argc, char **argv)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 3 || strcmp(argv[2], "--json") != 0) {
        hpcp_error(MPI_COMM_WORLD, "describe takes --json (the only form it has)");
        return HPCP_EXIT_USAGE;
    }
    if (rank != 0)
        return HPCP_EXIT_OK;
    struct hpcp_json j;
    hpcp_json_init(&j);
    hpcp_describe(&j);
    int bad = j.failed;
    if (!bad)
        printf("%s\n", j.buf);
    else
        fprintf(stderr, "hpcprobe-bench: describe: out of memory\n");
    hpcp_json_free(&j);
    return bad ? HPCP_EXIT_RUNTIME : HPCP_EXIT_OK;
}

static int cmd_sysinfo(int argc, char **argv)
{
    struct hpcp_sysinfo si;
    hpcp_sysinfo_collect(&si, MPI_COMM_WORLD, argc, argv);
    if (si.rank == 0) {
        struct hpcp_json j;
        hpcp_json_init(&j);
        hpcp_json_begin_object(&j, NULL);
        hpcp_json_int(&j, "ranks", si.ranks);
        hpcp_json_int(&j, "nodes", si.nodes);
        hpcp_json_int(&j, "ranks_per_node_max", si.ranks_per_node_max);
        hpcp_json_uint(&j, "memory_available_bytes_min_node", si.memory_available_min_node);
        hpcp_sysinfo_to_json(&si, &j);
        hpcp_json_end_object(&j);
        printf("%s\n", j.failed ? "{}" : j.buf);
        hpcp_json_free(&j);
    }
    hpcp_sysinfo_free(&si);
    return HPCP_EXIT_OK;
}

/* Copy argv to opts without "--algo NAME" (the registry, not the family,
 * resolves it); argv stays whole for the record's command line. */
static const char *take_algo(int argc, char **argv, int *nopt, char **opts)
{
    const char *algo = NULL;
    int out = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--algo") == 0 && i + 1 < argc)
            algo = argv[++i];
        else if (strncmp(argv[i], "--algo=", 7) == 0)
            algo = argv[i] + 7;
        else
            opts[out++] = argv[i];
    }
    *nopt = out;
    return algo;
}

static int unknown_algo(const char *family, const char *variant, const char *algo)
{
    const char *names[MAX_NAMES];
    int n = 0;
    for (int i = 0; i < hpcp_nkernels && n < MAX_NAMES; i++)
        if (!strcmp(hpcp_kernels[i]->family, family) && !strcmp(hpcp_kernels[i]->variant, variant))
            names[n++] = hpcp_kernels[i]->algorithm;
    return unknown_name("algorithm", algo, names, n);
}

/* The variant run when none is named: the family's "all", or its only
 * variant; NULL when the family has several and no "all". */
static const char *default_variant(const char *family)
{
    const char *names[MAX_NAMES];
    int n = list_names(family, names);
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], "all") == 0)
            return names[i];
    return n == 1 ? names[0] : NULL;
}

/* A variant named in two words, "peak bandwidth single" for the variant
 * "bandwidth-single": its name in `joined` when argv[1] is no variant of the
 * family and argv[1]-argv[2] is; NULL otherwise. */
static const char *two_word_variant(const char *family, int argc, char **argv, char *joined,
                                    size_t len)
{
    if (argc < 3 || argv[1][0] == '-' || argv[2][0] == '-' ||
        hpcp_find_kernel(family, argv[1], NULL))
        return NULL;
    snprintf(joined, len, "%s-%s", argv[1], argv[2]);
    return hpcp_find_kernel(family, joined, NULL) ? joined : NULL;
}

static int cmd_family(int argc, char **argv, int full_argc, char **full_argv)
{
    const char *names[MAX_NAMES];
    const char *family = argv[0];
    int named = argc >= 2 && argv[1][0] != '-';
    char joined[64];
    const char *variant = two_word_variant(family, argc, argv, joined, sizeof joined);
    if (variant) /* its second word is no option of the kernel: skip it */
        argv++, argc--;
    else
        variant = named ? argv[1] : default_variant(family);
    if (!variant)
        return unknown_name("variant", argc < 2 ? "" : argv[1], names, list_names(family, names));
    if (!hpcp_find_kernel(family, variant, NULL))
        return unknown_name("variant", variant, names, list_names(family, names));
    int nopt = 0, first = named ? 2 : 1;
    char **opts = malloc((size_t)argc * sizeof *opts);
    if (!opts) {
        hpcp_error(MPI_COMM_WORLD, "out of memory reading the command line");
        return HPCP_EXIT_RUNTIME;
    }
    const char *algo = take_algo(argc - first, argv + first, &nopt, opts);
    const struct hpcp_kernel *k = hpcp_find_kernel(family, variant, algo);
    int rc;
    if (!k) {
        rc = unknown_algo(family, variant, algo);
    } else {
        struct hpcp_sysinfo si;
        hpcp_sysinfo_collect(&si, MPI_COMM_WORLD, full_argc, full_argv);
        rc = k->driver(k, &si, nopt, opts);
        hpcp_sysinfo_free(&si);
    }
    free(opts);
    return rc;
}

static int dispatch(int argc, char **argv)
{
    const char *names[MAX_NAMES];
    int n = list_names(NULL, names);
    if (argc < 2) {
        char allowed[512] = "";
        for (int i = 0; i < n; i++)
            snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s",
                     i ? ", " : "", names[i]);
        hpcp_error(MPI_COMM_WORLD, "missing benchmark (allowed: %s); see docs/cli.md", allowed);
        return HPCP_EXIT_USAGE;
    }
    if (strcmp(argv[1], "list") == 0)
        return cmd_list();
    if (strcmp(argv[1], "sysinfo") == 0)
        return cmd_sysinfo(argc, argv);
    if (strcmp(argv[1], "describe") == 0)
        return cmd_describe(argc, argv);
    if (strcmp(argv[1], "--version") == 0) {
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            printf("hpcprobe-bench %s\n", hpcp_version_string());
        return HPCP_EXIT_OK;
    }
    if (strcmp(argv[1], "sizes") == 0)
        return hpcp_sizes_query(argc, argv);
    for (int i = 4; i < n; i++) /* after list, sysinfo, describe, sizes */
        if (strcmp(argv[1], names[i]) == 0)
            return cmd_family(argc - 1, argv + 1, argc, argv);
    return unknown_name("benchmark", argv[1], names, n);
}

/* Threads that call MPI themselves (the RandomAccess pipeline's routers)
 * need MPI_THREAD_MULTIPLE. Families whose libraries may run threads that
 * leave MPI to the main thread (OpenMP in STREAM, a threaded BLAS) ask for
 * MPI_THREAD_FUNNELED; the communication families run one thread and ask for
 * MPI_THREAD_SINGLE, because some MPI libraries pay on every call for more
 * (Open MPI 4.1 adds ~25 ns to a shared-memory ping-pong at FUNNELED, found
 * by bench/comm_vs_hpcc). */
static int thread_level_wanted(int argc, char **argv)
{
    static const char *const one_thread[] = {"comm", "beff", "pairs"};
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--threads") == 0 || strncmp(argv[i], "--threads=", 10) == 0)
            return MPI_THREAD_MULTIPLE;
    for (size_t i = 0; argc > 1 && i < sizeof one_thread / sizeof one_thread[0]; i++)
        if (strcmp(argv[1], one_thread[i]) == 0)
            return MPI_THREAD_SINGLE;
    return MPI_THREAD_FUNNELED;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, thread_level_wanted(argc, argv), &provided);
    int rc = dispatch(argc, argv);
    fflush(stdout);
    MPI_Finalize();
    return rc;
}
