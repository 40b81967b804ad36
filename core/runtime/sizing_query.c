/* `hpcprobe-bench sizes --json [--node SPEC] [--memory-cap F]`: every
 * default size the sizing layer chooses, with its rule and the memory it
 * takes per rank and per node, for the node the launch runs on (its ranks
 * and nodes) or for a described one; for --ranks N over --nodes M when
 * given. `hpcprobe run --plan` reads it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/json.h"
#include "hpcprobe/sizing.h"
#include "hpcprobe/sysinfo.h"
#include "hpcprobe/util.h"

#define HPL_NB 192

/* One size: its kernel, the option that would give it by hand, the value,
 * how a value becomes bytes per rank (per_unit bytes for each unit, the
 * units being the value, 2^value or value^2 as `scale` says), and the rule. */
static void entry(struct hpcp_json *j, const char *kernel, const char *option, int copies,
                  const struct hpcp_sized *s, const char *scale, double per_unit)
{
    double v = (double)s->value;
    double units = !strcmp(scale, "log2")     ? ldexp(1.0, (int)s->value)
                   : !strcmp(scale, "square") ? v * v
                                              : v;
    hpcp_json_begin_object(j, NULL);
    hpcp_json_string(j, "kernel", kernel);
    hpcp_json_string(j, "option", option);
    hpcp_json_uint(j, "value", s->value);
    hpcp_json_string(j, "scale", scale);
    hpcp_json_double(j, "bytes_per_rank_per_unit", per_unit);
    hpcp_json_int(j, "ranks_on_node", copies);
    hpcp_json_double(j, "memory_bytes_per_rank", units * per_unit);
    hpcp_json_double(j, "memory_bytes_per_node", units * per_unit * copies);
    hpcp_json_bool(j, "capped", s->capped);
    hpcp_json_string(j, "size_rule", s->rule);
    hpcp_json_end_object(j);
}

static void node_json(struct hpcp_json *j, const struct hpcp_node *n, double cap)
{
    hpcp_json_begin_object(j, "node");
    hpcp_json_int(j, "cores", n->cores);
    hpcp_json_int(j, "numa_domains", n->numa);
    hpcp_json_uint(j, "memory_bytes", n->memory);
    hpcp_json_uint(j, "memory_available_bytes", n->available);
    hpcp_json_int(j, "ranks_per_node", n->ranks);
    hpcp_json_int(j, "nodes", n->nodes);
    hpcp_json_begin_array(j, "caches");
    for (int i = 0; i < n->ncaches; i++) {
        hpcp_json_begin_object(j, NULL);
        hpcp_json_int(j, "level", n->cache[i].level);
        hpcp_json_uint(j, "bytes", n->cache[i].bytes);
        hpcp_json_int(j, "shared_by", n->cache[i].shared_by);
        hpcp_json_end_object(j);
    }
    hpcp_json_end_array(j);
    hpcp_json_end_object(j);
    hpcp_json_double(j, "memory_cap", cap);
    hpcp_json_double(j, "memory_cap_bytes_per_node", hpcp_node_cap_bytes(n, cap));
}

/* peak bandwidth: each level it measures ("peak bandwidth-single l1"; a level
 * skipped has none), and the variant's buffer, its memory level's working set. */
static void peak_bandwidth(struct hpcp_json *j, const struct hpcp_node *n, int copies, double cap,
                           const char *variant)
{
    static const char *const names[] = {"memory", "l1", "l2", "l3"};
    struct hpcp_sized s;
    char kernel[64];
    for (int level = 1; level <= 4; level++) {
        hpcp_size_peak_level(n, copies, level % 4, cap, &s);
        snprintf(kernel, sizeof kernel, "peak bandwidth-%s %s", variant, names[level % 4]);
        if (s.value)
            entry(j, kernel, "--working-set", copies, &s, "linear", 1.0);
    }
    snprintf(kernel, sizeof kernel, "peak bandwidth-%s", variant);
    if (s.value) /* the memory level, last */
        entry(j, kernel, "--working-set", copies, &s, "linear", 1.0);
}

static void sizes_json(struct hpcp_json *j, const struct hpcp_node *n, double cap)
{
    struct hpcp_sized s;
    int P = n->ranks;
    double all = n->all_ranks > 0 ? n->all_ranks : 1;
    hpcp_json_begin_array(j, "sizes");
    hpcp_size_stream(n, 1, cap, &s);
    entry(j, "stream single", "--array-bytes", 1, &s, "linear", 3.0);
    hpcp_size_stream(n, P, cap, &s);
    entry(j, "stream star", "--array-bytes", P, &s, "linear", 3.0);
    hpcp_size_stride(n, P, cap, &s);
    entry(j, "mem stride", "--buffer-bytes", P, &s, "linear", 1.0);
    hpcp_size_latency(n, P, cap, &s);
    entry(j, "mem latency", "--max-bytes", P, &s, "linear", 17.0 / 16.0);
    hpcp_size_ra_caches(n, 1, 0, cap, &s);
    entry(j, "ra single", "--table-log2", 1, &s, "log2", 8.0);
    hpcp_size_ra_caches(n, P, 0, cap, &s);
    entry(j, "ra star", "--table-log2", P, &s, "log2", 8.0);
    hpcp_size_ra_caches(n, P, 1, cap, &s);
    entry(j, "ra mpi", "--table-log2", P, &s, "log2", 8.0 / all);
    hpcp_size_fft_caches(n, 1, 0, cap, &s);
    entry(j, "fft single", "--log2", 1, &s, "log2", 48.0);
    hpcp_size_fft_caches(n, P, 0, cap, &s);
    entry(j, "fft star", "--log2", P, &s, "log2", 48.0);
    hpcp_size_fft_caches(n, P, 1, cap, &s);
    entry(j, "fft mpi", "--log2", P, &s, "log2", 64.0 / all);
    hpcp_size_dense_memory(n, "dgemm", "star", 0.25, HPL_NB, &s);
    entry(j, "dgemm star", "--n", P, &s, "square", 32.0); /* A, B, C and C kept */
    hpcp_size_hpl_cap(n, HPL_NB, cap, &s);
    entry(j, "hpl mpi", "--n", P, &s, "square", 8.0 * 1.05 / all); /* the panels: 5% */
    peak_bandwidth(j, n, 1, cap, "single");
    peak_bandwidth(j, n, P, cap, "star");
    hpcp_json_end_array(j);
}

static int usage(const char *why)
{
    hpcp_error(MPI_COMM_WORLD,
               "sizes: %s (allowed: sizes --json [--node SPEC] [--ranks N] [--nodes M] "
               "[--memory-cap F, 0 < F <= 0.9])",
               why);
    return HPCP_EXIT_USAGE;
}

static void launch_node(struct hpcp_node *n, int argc, char **argv)
{
    struct hpcp_sysinfo si;
    hpcp_sysinfo_collect(&si, MPI_COMM_WORLD, argc, argv);
    hpcp_node_of(n, &si);
    hpcp_sysinfo_free(&si);
}

struct query {
    const char *spec;
    double cap;
    int json, ranks, nodes;
};

/* The query's arguments: 0, or the exit status of a one-line refusal. */
static int query_args(int argc, char **argv, struct query *q)
{
    *q = (struct query){NULL, HPCP_DEFAULT_MEMORY_CAP, 0, 0, 0};
    for (int i = 2; i < argc; i++) {
        int value = i + 1 < argc;
        char *end;
        if (!strcmp(argv[i], "--json")) {
            q->json = 1;
        } else if (!strcmp(argv[i], "--node") && value) {
            q->spec = argv[++i];
        } else if ((!strcmp(argv[i], "--ranks") || !strcmp(argv[i], "--nodes")) && value) {
            long count = strtol(argv[i + 1], &end, 10);
            if (*end || count < 1 || count > 1 << 24)
                return usage("--ranks and --nodes take a whole number >= 1");
            *(argv[i][2] == 'r' ? &q->ranks : &q->nodes) = (int)count;
            i++;
        } else if (!strcmp(argv[i], "--memory-cap") && value) {
            q->cap = strtod(argv[++i], &end);
            if (*end || !(q->cap > 0 && q->cap <= 0.9))
                return usage("--memory-cap must be a fraction above 0 and at most 0.9");
        } else {
            return usage("unknown argument, or an option without its value");
        }
    }
    return q->json ? 0 : usage("--json is the only form it has");
}

int hpcp_sizes_query(int argc, char **argv)
{
    struct query q;
    int bad = query_args(argc, argv, &q);
    if (bad)
        return bad;
    struct hpcp_node n;
    char err[512];
    if (q.spec && hpcp_node_parse(q.spec, &n, err, sizeof err)) {
        hpcp_error(MPI_COMM_WORLD, "%s", err);
        return HPCP_EXIT_USAGE;
    }
    if (!q.spec)
        launch_node(&n, argc, argv);
    if (q.nodes)
        n.nodes = q.nodes;
    if (q.ranks) { /* a launch of this many ranks over the nodes (run --plan) */
        n.all_ranks = q.ranks;
        n.ranks = (q.ranks + n.nodes - 1) / n.nodes;
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0)
        return HPCP_EXIT_OK;
    struct hpcp_json j;
    hpcp_json_init(&j);
    hpcp_json_begin_object(&j, NULL);
    node_json(&j, &n, q.cap);
    sizes_json(&j, &n, q.cap);
    hpcp_json_end_object(&j);
    printf("%s\n", j.failed ? "{}" : j.buf);
    bad = j.failed;
    hpcp_json_free(&j);
    return bad ? HPCP_EXIT_RUNTIME : HPCP_EXIT_OK;
}
