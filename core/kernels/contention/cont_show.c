/* `hpcprobe-bench topology show [topology options]`: resolve the topology
 * exactly as the contention benchmarks do and print it as one JSON line on
 * rank 0 (`hpcprobe topology show` turns it into tables). No measurement. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/json.h"
#include "hpcprobe/util.h"

static void int_array(struct hpcp_json *j, const char *key, const int *v, long long n)
{
    hpcp_json_begin_array(j, key);
    for (long long i = 0; i < n; i++)
        hpcp_json_int(j, NULL, v[i]);
    hpcp_json_end_array(j);
}

static void describe(struct hpcp_json *j, const struct cont_topo *t)
{
    char text[160];
    hpcp_json_string(j, "kind", cont_topo_kind_name(t));
    hpcp_json_int(j, "ranks", t->ranks);
    hpcp_json_int(j, "nodes", t->nodes);
    hpcp_json_int(j, "ranks_per_node", t->ranks_per_node);
    hpcp_json_string(j, "ranks_per_node_source",
                     t->nodes_emulated ? "option" : "mpi_comm_split_type_shared");
    hpcp_json_string(j, "coordinate_source", t->coord_source);
    if (t->coord_file[0])
        hpcp_json_string(j, "coordinate_file", t->coord_file);
    cont_topo_dims_text(t, text, sizeof text);
    hpcp_json_string(j, "dims_text", text);
    hpcp_json_bool(j, "dims_inferred", t->dims_inferred);
    int_array(j, "dims", t->dims, t->kind == CONT_GRID ? t->ndims : 0);
    int_array(j, "wrap", t->wrap, t->kind == CONT_GRID ? t->ndims : 0);
    if (t->kind == CONT_TREE)
        hpcp_json_int(j, "levels", t->ndims);
    int_array(j, "rank_node", t->rank_node, t->ranks);
    hpcp_json_begin_array(j, "node_coords");
    for (int n = 0; t->kind != CONT_FLAT && n < t->nodes; n++)
        int_array(j, NULL, t->node_coord + (size_t)n * t->ndims, t->ndims);
    hpcp_json_end_array(j);
}

/* Each node's host (its lowest rank's processor name), and in a tree the
 * node's switch path, for people to find their nodes. */
static void names(struct hpcp_json *j, const struct cont_topo *t, const char *hosts)
{
    hpcp_json_begin_array(j, "node_hosts");
    for (int n = 0; hosts && n < t->nodes; n++)
        hpcp_json_string(j, NULL,
                         hosts + (size_t)t->node_rank[t->node_start[n]] * MPI_MAX_PROCESSOR_NAME);
    hpcp_json_end_array(j);
    if (t->switch_names) {
        hpcp_json_begin_array(j, "node_addresses");
        for (int n = 0; n < t->nodes; n++)
            hpcp_json_string(j, NULL, t->switch_names + (size_t)n * CONT_ADDR_MAX);
        hpcp_json_end_array(j);
    }
}

/* What the phases share (b->state). */
struct show_state {
    const struct cont_params *p;
    struct cont_topo t;
    char *hosts; /* rank 0: each rank's processor name, MPI_MAX_PROCESSOR_NAME apart */
    struct hpcp_json j;
};

static int show_setup(struct hpcp_bench *b)
{
    struct show_state *s = b->state;
    hpcp_json_init(&s->j);
    /* without it the JSON line has no host names (names() takes NULL) */
    s->hosts = b->rank == 0 ? malloc((size_t)b->ranks * MPI_MAX_PROCESSOR_NAME) : NULL;
    return 0;
}

/* Resolving where each rank sits as the contention kernels do (the topology
 * options), and each rank's host name. */
static int show_run(struct hpcp_bench *b, double *seconds)
{
    struct show_state *s = b->state;
    char err[512], name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len = 0;
    double t0 = MPI_Wtime();
    if (cont_topo_resolve(&s->t, &s->p->topo, b->si, err, sizeof err)) {
        hpcp_error(b->comm, "%s", err);
        return HPCP_EXIT_USAGE;
    }
    MPI_Get_processor_name(name, &len);
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, s->hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
               0, b->comm);
    *seconds = MPI_Wtime() - t0;
    return 0;
}

/* The map's invariants: every rank on a node, each node's rank list the
 * ascending inverse of that, and on a grid every node at its own position
 * within the dims. The problems found (0: consistent). */
static int map_problems(const struct cont_topo *t)
{
    int bad = !t->node_start || t->node_start[0] != 0 || t->node_start[t->nodes] != t->ranks;
    for (int r = 0; !bad && r < t->ranks; r++)
        bad += t->rank_node[r] < 0 || t->rank_node[r] >= t->nodes;
    for (int n = 0; !bad && n < t->nodes; n++)
        for (int i = t->node_start[n]; i < t->node_start[n + 1]; i++)
            bad += t->rank_node[t->node_rank[i]] != n ||
                   (i > t->node_start[n] && t->node_rank[i] <= t->node_rank[i - 1]);
    for (int n = 0; !bad && t->kind == CONT_GRID && n < t->nodes; n++) {
        const int *c = t->node_coord + (size_t)n * t->ndims;
        long long at = 0;
        for (int k = 0; k < t->ndims && !bad; k++) {
            bad += c[k] < 0 || c[k] >= t->dims[k];
            at = at * t->dims[k] + c[k];
        }
        bad += !bad && (!t->position_node || t->position_node[at] != n);
    }
    return bad;
}

/* Every rank checks the map; rank 0 then writes its JSON line. */
static int show_verify(struct hpcp_bench *b, double *error)
{
    struct show_state *s = b->state;
    int bad = map_problems(&s->t);
    *error = bad;
    if (hpcp_any(b->comm, bad)) {
        hpcp_error(b->comm, "topology show: the resolved map is inconsistent (a bug)");
        return HPCP_EXIT_RUNTIME;
    }
    int rc = 0;
    if (b->rank == 0) {
        hpcp_json_begin_object(&s->j, NULL);
        describe(&s->j, &s->t);
        names(&s->j, &s->t, s->hosts);
        hpcp_json_end_object(&s->j);
        if (s->j.failed) { /* as before the harness: an empty object, then the status */
            printf("{}\n");
            fflush(stdout);
            rc = HPCP_EXIT_RUNTIME;
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, b->comm);
    return rc;
}

static void show_teardown(struct hpcp_bench *b)
{
    struct show_state *s = b->state;
    hpcp_json_free(&s->j);
    free(s->hosts);
    s->hosts = NULL;
    cont_topo_free(&s->t);
}

static void show_print(const struct hpcp_record *r, struct hpcp_bench *b)
{
    (void)r; /* a query: no record */
    printf("%s\n", ((struct show_state *)b->state)->j.buf);
    fflush(stdout);
}

static const struct hpcp_family_hooks show_hooks = {.print = show_print};

/* One query through the harness; the line is printed even with --quiet,
 * as it always was (it is the command's output, not a summary). */
int cont_show_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                     char **argv)
{
    struct cont_params p;
    struct show_state s;
    memset(&s, 0, sizeof s);
    int rc = cont_params_prepare(&p, &s.t, "show", argc, argv, si);
    if (rc) {
        cont_topo_free(&s.t);
        return rc;
    }
    s.p = &p;
    struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, &s, k};
    struct hpcp_common c = p.run;
    c.repeat = 1, c.warmup = 0, c.verify = 1, c.quiet = 0;
    return hpcp_harness_run(k, &b, &c, &show_hooks);
}

const struct hpcp_kernel hpcp_topology_show = {
    "topology",         "show",
    "resolve",          "where each rank sits: nodes, coordinates, the topology (no measurement)",
    cont_show_driver,   show_setup,
    show_run,           show_verify,
    show_teardown,      NULL,
    &cont_options_desc, &cont_show_records};
