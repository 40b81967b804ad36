/* Rank placement: the communicator a benchmark runs on, with the ranks in
 * the order --placement asks for when hpcprobe (not the launcher) applies
 * it, and each rank's host and CPU for the record. docs/kernels/comm.md. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "hpcprobe/memory.h"
#include "hpcprobe/util.h"

#define PLACE_FILE_MAX ((long)16 << 20)
#define NAME_LEN MPI_MAX_PROCESSOR_NAME

static int parse_line(char *line, int lineno, int ranks, int *rank, char *host, int *cpu, char *err,
                      size_t len)
{
    char extra[8] = "";
    long r = -1, c = -1;
    char name[COMM_HOST_LEN];
    int got = sscanf(line, "%ld %255s %ld %7s", &r, name, &c, extra);
    if (got < 2 || got > 3 || (got == 3 && c < 0) || r < 0 || r >= ranks) {
        if (got >= 2 && (r < 0 || r >= ranks))
            snprintf(err, len,
                     "placement file: line %d: rank %ld is not one of the %d launched "
                     "ranks (0..%d)",
                     lineno, r, ranks, ranks - 1);
        else
            snprintf(err, len,
                     "placement file: line %d: expected 'RANK HOST [CPU]' (CPU a "
                     "number >= 0)",
                     lineno);
        return -1;
    }
    *rank = (int)r;
    hpcp_copy_truncated(host, COMM_HOST_LEN, name);
    *cpu = got == 3 ? (int)c : -1;
    return 0;
}

int comm_place_parse(const char *text, int ranks, char *hosts, int *cpus, char *err, size_t errlen)
{
    int *line_of = calloc((size_t)ranks, sizeof *line_of), lineno = 0, rc = 0;
    char *copy = strdup(text);
    if (!line_of || !copy) {
        snprintf(err, errlen, "placement file: out of memory");
        rc = -1;
    }
    for (char *save = NULL, *line = rc ? NULL : strtok_r(copy, "\n", &save); line && !rc;
         line = strtok_r(NULL, "\n", &save)) {
        lineno++; /* strtok_r skips empty lines: they are not counted */
        line[strcspn(line, "#")] = '\0';
        if (strspn(line, " \t\r") == strlen(line))
            continue;
        int r, cpu;
        char host[COMM_HOST_LEN];
        if ((rc = parse_line(line, lineno, ranks, &r, host, &cpu, err, errlen)) != 0)
            break;
        if (line_of[r]) {
            snprintf(err, errlen, "placement file: rank %d is listed twice (lines %d and %d)", r,
                     line_of[r], lineno);
            rc = -1;
            break;
        }
        line_of[r] = lineno;
        memcpy(hosts + (size_t)r * COMM_HOST_LEN, host, COMM_HOST_LEN);
        cpus[r] = cpu;
    }
    for (int r = 0; !rc && r < ranks; r++)
        if (!line_of[r]) {
            snprintf(err, errlen,
                     "placement file: rank %d is missing; the file must list every "
                     "rank 0..%d once (%d launched)",
                     r, ranks - 1, ranks);
            rc = -1;
        }
    free(line_of);
    free(copy);
    return rc;
}

/* Ranks sorted by (key1, key2); their new rank is their place. */
struct place_key {
    long key1, key2;
    int index;
};

static int cmp_key(const void *a, const void *b)
{
    const struct place_key *x = a, *y = b;
    if (x->key1 != y->key1)
        return x->key1 < y->key1 ? -1 : 1;
    return (x->key2 > y->key2) - (x->key2 < y->key2);
}

void comm_place_order(const char *order, const int *node, int ranks, int *new_rank)
{
    struct place_key *k = malloc((size_t)ranks * sizeof *k);
    int *first = malloc((size_t)ranks * sizeof *first), *pos = malloc((size_t)ranks * sizeof *pos);
    if (!k || !first || !pos)
        goto out;
    /* Group the ranks by node (index order inside a group): each rank's
     * node is known by the node's first rank, and its place on the node. */
    for (int i = 0; i < ranks; i++)
        k[i] = (struct place_key){node[i], i, i};
    qsort(k, (size_t)ranks, sizeof *k, cmp_key);
    for (int i = 0; i < ranks; i++) {
        int same = i > 0 && k[i].key1 == k[i - 1].key1;
        first[k[i].index] = same ? first[k[i - 1].index] : k[i].index;
        pos[k[i].index] = same ? pos[k[i - 1].index] + 1 : 0;
    }
    /* block: node after node; round-robin: the n-th rank of every node in
     * turn. Nodes go in order of their first rank, so rank 0 stays first. */
    int block = strcmp(order, "block") == 0;
    for (int i = 0; i < ranks; i++)
        k[i] = block ? (struct place_key){first[i], i, i} : (struct place_key){pos[i], first[i], i};
    qsort(k, (size_t)ranks, sizeof *k, cmp_key);
    for (int i = 0; i < ranks; i++)
        new_rank[k[i].index] = i;
out:
    free(k);
    free(first);
    free(pos);
}

/* Rank 0: every rank's processor name (ranks x NAME_LEN); NULL elsewhere. */
static char *gather_names(MPI_Comm comm)
{
    int rank, ranks, len;
    char name[NAME_LEN] = {0};
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    MPI_Get_processor_name(name, &len);
    char *all = rank == 0 ? calloc((size_t)ranks, NAME_LEN) : NULL;
    MPI_Gather(name, NAME_LEN, MPI_CHAR, all, NAME_LEN, MPI_CHAR, 0, comm);
    return all;
}

static char *read_file(const char *path, char *err, size_t len)
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && size <= PLACE_FILE_MAX &&
        fseek(f, 0, SEEK_SET) == 0 && (text = calloc((size_t)size + 1, 1)) != NULL &&
        fread(text, 1, (size_t)size, f) != (size_t)size) {
        free(text);
        text = NULL;
    }
    if (f)
        fclose(f);
    if (!text)
        snprintf(err, len,
                 "--placement %s: %s (allowed: block, round-robin, or a readable "
                 "file of lines 'RANK HOST [CPU]', at most 16 MiB)",
                 path,
                 !f                      ? "no such file"
                 : size > PLACE_FILE_MAX ? "too large"
                                         : "cannot read it");
    return text;
}

/* How many of the n sorted entries from `at` on are named `name`. */
static int run_length(const struct hpcp_named_rank *s, int n, int at, const char *name)
{
    int k = at;
    while (k < n && strcmp(s[k].name, name) == 0)
        k++;
    return k - at;
}

/* Rank 0: new ranks that put file rank i on a process of host i (the
 * launched processes of a host taken in rank order); -1 and a line when the
 * launcher did not start as many processes on a host. */
static int match_file(const char *hosts, const char *names, int ranks, int *new_rank, char *err,
                      size_t len)
{
    struct hpcp_named_rank *launched = hpcp_sort_names(names, NAME_LEN, ranks);
    struct hpcp_named_rank *asked = hpcp_sort_names(hosts, COMM_HOST_LEN, ranks);
    int rc = !launched || !asked ? -1 : 0;
    for (int a = 0, l = 0; !rc && a < ranks;) {
        int want = run_length(asked, ranks, a, asked[a].name);
        while (l < ranks && strcmp(launched[l].name, asked[a].name) < 0)
            l++;
        int have = l < ranks ? run_length(launched, ranks, l, asked[a].name) : 0;
        if (have != want) {
            snprintf(err, len,
                     "placement file puts %d rank(s) on host '%s' but the launcher "
                     "started %d there (hpcprobe can only reorder the ranks it was given)",
                     want, asked[a].name, have);
            rc = -1;
        }
        for (int k = 0; !rc && k < want; k++)
            new_rank[launched[l + k].rank] = asked[a + k].rank;
        a += want, l += have;
    }
    free(launched);
    free(asked);
    return rc;
}

/* Rank 0: the new rank and CPU of every world rank; a line in err on failure. */
static int plan(const struct comm_place *p, const char *names, const int *node, int ranks,
                int *new_rank, int *cpu, char *note, size_t notelen, char *err, size_t len)
{
    for (int i = 0; i < ranks; i++)
        new_rank[i] = i, cpu[i] = -1;
    if (strcmp(p->spec, "block") == 0 || strcmp(p->spec, "round-robin") == 0) {
        if (!p->by_launcher)
            comm_place_order(p->spec, node, ranks, new_rank);
        return 0;
    }
    char *text = read_file(p->spec, err, len);
    char *hosts = calloc((size_t)ranks, COMM_HOST_LEN);
    int *file_cpu = calloc((size_t)ranks, sizeof *file_cpu);
    int rc = !text || !hosts || !file_cpu ||
             comm_place_parse(text, ranks, hosts, file_cpu, err, len) != 0;
    if (!rc && !p->by_launcher)
        rc = match_file(hosts, names, ranks, new_rank, err, len) != 0;
    int misplaced = 0;
    for (int w = 0; !rc && w < ranks; w++) {
        cpu[w] = file_cpu[new_rank[w]];
        misplaced +=
            strcmp(hosts + (size_t)new_rank[w] * COMM_HOST_LEN, names + (size_t)w * NAME_LEN) != 0;
    }
    if (misplaced)
        snprintf(note, notelen, "%d rank(s) run on another host than the placement file asks",
                 misplaced);
    free(text);
    free(hosts);
    free(file_cpu);
    return rc ? -1 : 0;
}

int *comm_node_ids(MPI_Comm world)
{
    int rank, ranks, leader;
    MPI_Comm node;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &ranks);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    int *all = rank == 0 ? malloc((size_t)ranks * sizeof *all) : NULL;
    MPI_Gather(&leader, 1, MPI_INT, all, 1, MPI_INT, 0, world);
    return all;
}

int comm_place_apply(struct comm_place *p, MPI_Comm world, MPI_Comm *work, char *note,
                     size_t notelen)
{
    int rank, ranks, bad = 0, mine[3] = {0, -1, 0}; /* new rank, CPU, host index */
    char err[512] = "";
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &ranks);
    note[0] = '\0';
    char *names = gather_names(world);
    int *node = comm_node_ids(world), *plan3 = NULL;
    if (rank == 0) {
        int *new_rank = malloc((size_t)ranks * sizeof *new_rank);
        int *cpu = malloc((size_t)ranks * sizeof *cpu),
            *host = malloc((size_t)ranks * sizeof *host);
        plan3 = malloc((size_t)ranks * 3 * sizeof *plan3);
        bad = !names || !node || !new_rank || !cpu || !host || !plan3;
        if (!bad && p->spec)
            bad = plan(p, names, node, ranks, new_rank, cpu, note, notelen, err, sizeof err);
        else if (!bad)
            for (int i = 0; i < ranks; i++)
                new_rank[i] = i, cpu[i] = -1;
        if (!bad)
            hpcp_host_indices(names, NAME_LEN, ranks, host);
        for (int i = 0; !bad && i < ranks; i++)
            plan3[3 * i] = new_rank[i], plan3[3 * i + 1] = cpu[i], plan3[3 * i + 2] = host[i];
        free(new_rank), free(cpu), free(host);
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, world);
    if (!bad)
        MPI_Scatter(plan3, 3, MPI_INT, mine, 3, MPI_INT, 0, world);
    free(names), free(node), free(plan3);
    if (bad) {
        hpcp_error(world, "%s", err[0] ? err : "out of memory placing the ranks");
        return HPCP_EXIT_USAGE;
    }
    MPI_Bcast(note, (int)notelen, MPI_CHAR, 0, world);
    MPI_Comm_split(world, 0, mine[0], work);
    if (mine[1] >= 0 && hpcp_pin_process(&mine[1], 1) != 0)
        mine[1] = -1;
    p->host_index = mine[2];
    return 0;
}

void comm_place_record(const struct comm_place *p, MPI_Comm comm, struct hpcp_record *r)
{
    int rank, ranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    long long mine[2] = {p->host_index, sched_getcpu()};
    long long *all = rank == 0 ? malloc((size_t)ranks * 2 * sizeof *all) : NULL;
    MPI_Gather(mine, 2, MPI_LONG_LONG, all, 2, MPI_LONG_LONG, 0, comm);
    if (rank != 0)
        return;
    const char *spec = p->spec ? p->spec : "as-launched";
    int ordered = strcmp(spec, "block") == 0 || strcmp(spec, "round-robin") == 0;
    hpcp_record_param_string(r, "placement", ordered || !p->spec ? spec : "file");
    if (p->spec && !ordered)
        hpcp_record_param_string(r, "placement_file", p->spec);
    hpcp_record_param_string(r, "placement_by",
                             !p->spec         ? "launcher-default"
                             : p->by_launcher ? "launcher"
                                              : "hpcprobe");
    long long *col = all ? malloc((size_t)ranks * sizeof *col) : NULL;
    for (int k = 0; col && k < 2; k++) {
        for (int i = 0; i < ranks; i++)
            col[i] = all[2 * i + k];
        hpcp_record_counter_array(r, k ? "rank_cpu" : "rank_node", col, ranks);
    }
    free(col);
    free(all);
}

void comm_layout(MPI_Comm comm, int *nodes, int *ranks_per_node_max)
{
    int rank, local, leader;
    MPI_Comm node;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local);
    MPI_Comm_rank(node, &leader);
    leader = leader == 0;
    MPI_Allreduce(&leader, nodes, 1, MPI_INT, MPI_SUM, comm);
    MPI_Allreduce(&local, ranks_per_node_max, 1, MPI_INT, MPI_MAX, comm);
    MPI_Comm_free(&node);
}
