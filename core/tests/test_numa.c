/* NUMA topology from a sysfs tree: a made-up two-domain tree written under a
 * temporary folder (with a memory-only node and names that are not nodes)
 * is read through the injectable root, both as an argument and through
 * HPCPROBE_SYSFS_ROOT; cpulists parse; the start-up gather writes each rank's
 * CPU and domain, and each host's domains. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "hpcprobe/numa.h"
#include "hpcprobe/sysinfo.h"

static char root[256];

static void write_file(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/devices/system/node/%s", root, rel);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void make_dir(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    CHECK(mkdir(path, 0700) == 0);
}

/* Two domains of CPUs 0-1023 each (every CPU this test may run on is in
 * node0), a memory-only node2, and entries that are not nodes. */
static void make_tree(void)
{
    snprintf(root, sizeof root, "%s/hpcp_numa_XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    CHECK(mkdtemp(root) != NULL);
    make_dir("devices");
    make_dir("devices/system");
    make_dir("devices/system/node");
    make_dir("devices/system/node/node0");
    make_dir("devices/system/node/node1");
    make_dir("devices/system/node/node2");
    make_dir("devices/system/node/node1x");
    write_file("node0/cpulist", "0-1023\n");
    write_file("node1/cpulist", "1024-2046,2047\n");
    write_file("node2/cpulist", "\n");
    write_file("node1x/cpulist", "5000\n");
    write_file("online", "0-2\n");
}

static void remove_tree(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
}

static void test_cpulist(void)
{
    CHECK(hpcp_cpulist_has("0-3,8,10-11\n", 0) == 1);
    CHECK(hpcp_cpulist_has("0-3,8,10-11\n", 3) == 1);
    CHECK(hpcp_cpulist_has("0-3,8,10-11\n", 4) == 0);
    CHECK(hpcp_cpulist_has("0-3,8,10-11\n", 8) == 1);
    CHECK(hpcp_cpulist_has("0-3,8,10-11\n", 11) == 1);
    CHECK(hpcp_cpulist_has("0-3,8,10-11\n", 12) == 0);
    CHECK(hpcp_cpulist_has("\n", 0) == 0);
    CHECK(hpcp_cpulist_has("", 0) == 0);
    CHECK(hpcp_cpulist_has("3-1", 2) == -1);
    CHECK(hpcp_cpulist_has("a-b", 2) == -1);
    CHECK(hpcp_cpulist_has("1;2", 2) == -1);
    CHECK(hpcp_cpulist_has("-2", 2) == -1);
}

static void test_tree(void)
{
    CHECK(hpcp_numa_domains_at(root) == 2); /* node2 has no CPU, node1x is no node */
    CHECK(hpcp_numa_node_of_cpu_at(root, 0) == 0);
    CHECK(hpcp_numa_node_of_cpu_at(root, 1023) == 0);
    CHECK(hpcp_numa_node_of_cpu_at(root, 1024) == 1);
    CHECK(hpcp_numa_node_of_cpu_at(root, 2047) == 1);
    CHECK(hpcp_numa_node_of_cpu_at(root, 5000) == -1);
    CHECK(hpcp_numa_node_of_cpu_at(root, -1) == -1);
    char missing[300];
    snprintf(missing, sizeof missing, "%s/absent", root);
    CHECK(hpcp_numa_domains_at(missing) == -1); /* unknown, not one */
    CHECK(hpcp_numa_node_of_cpu_at(missing, 0) == -1);
}

static void test_environment_root(void)
{
    setenv(HPCP_SYSFS_ROOT_ENV, root, 1);
    CHECK(strcmp(hpcp_sysfs_root(), root) == 0);
    CHECK(hpcp_numa_domains() == 2);
    CHECK(hpcp_numa_node_of_cpu(1500) == 1);
    setenv(HPCP_SYSFS_ROOT_ENV, "", 1);
    CHECK(strcmp(hpcp_sysfs_root(), "/sys") == 0);
    unsetenv(HPCP_SYSFS_ROOT_ENV);
    CHECK(strcmp(hpcp_sysfs_root(), "/sys") == 0);
}

/* One rank: its CPU is where it runs, its domain node0 of the made-up tree,
 * and its host has two domains. */
static void test_gather(void)
{
    setenv(HPCP_SYSFS_ROOT_ENV, root, 1);
    struct hpcp_sysinfo si;
    memset(&si, 0, sizeof si);
    si.rank = 0, si.ranks = 1;
    int host_index[1] = {0};
    hpcp_placement_gather(&si, MPI_COMM_SELF, host_index);
    int cpu = -1;
    CHECK(si.rank_cores_json && sscanf(si.rank_cores_json, "[%d]", &cpu) == 1 && cpu >= 0);
    CHECK(si.rank_numa_json && strcmp(si.rank_numa_json, "[0]") == 0);
    CHECK(si.host_numa_json && strcmp(si.host_numa_json, "[2]") == 0);
    CHECK(si.numa_domains == 2);
    free(si.rank_cores_json), free(si.rank_numa_json), free(si.host_numa_json);
    /* No tree at all: unknown is null, never a guess. */
    setenv(HPCP_SYSFS_ROOT_ENV, "/nonexistent-hpcprobe-root", 1);
    memset(&si, 0, sizeof si);
    si.ranks = 1;
    hpcp_placement_gather(&si, MPI_COMM_SELF, host_index);
    CHECK(si.rank_numa_json && strcmp(si.rank_numa_json, "[null]") == 0);
    CHECK(si.host_numa_json && strcmp(si.host_numa_json, "[null]") == 0);
    CHECK(si.numa_domains == -1);
    free(si.rank_cores_json), free(si.rank_numa_json), free(si.host_numa_json);
    unsetenv(HPCP_SYSFS_ROOT_ENV);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    make_tree();
    test_cpulist();
    test_tree();
    test_environment_root();
    test_gather();
    remove_tree();
    MPI_Finalize();
    return check_summary("test_numa");
}
