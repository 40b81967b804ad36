/* `hpcprobe-bench topology show [topology options]`: resolve the topology
 * exactly as the contention benchmarks do and print it as one JSON line on
 * rank 0 (`hpcprobe topology show` turns it into tables). No measurement. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention.h"
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

int cont_show_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                     char **argv)
{
    struct cont_params p;
    struct cont_topo t;
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len = 0, rc = cont_params_prepare(&p, &t, "show", argc, argv, si);
    if (rc) {
        cont_topo_free(&t);
        return rc;
    }
    MPI_Get_processor_name(name, &len);
    char *hosts = si->rank == 0 ? malloc((size_t)si->ranks * MPI_MAX_PROCESSOR_NAME) : NULL;
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (si->rank == 0) {
        struct hpcp_json j;
        hpcp_json_init(&j);
        hpcp_json_begin_object(&j, NULL);
        describe(&j, &t);
        names(&j, &t, hosts);
        hpcp_json_end_object(&j);
        printf("%s\n", j.failed ? "{}" : j.buf);
        fflush(stdout);
        rc = j.failed ? HPCP_EXIT_RUNTIME : 0;
        hpcp_json_free(&j);
    }
    free(hosts);
    cont_topo_free(&t);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}

const struct hpcp_kernel hpcp_topology_show = {
    "topology",
    "show",
    "resolve",
    "where each rank sits: nodes, coordinates, the topology (no measurement)",
    cont_show_driver,
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
    &cont_options_desc,
    &cont_show_records};
