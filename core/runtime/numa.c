/* NUMA domains from sysfs (numa.h). */
#include "hpcprobe/numa.h"

#include <ctype.h>
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/util.h"

/* A cpulist is short on any machine we know (ranges); this leaves room for a
 * list of every CPU of a 4096-CPU node written one by one. */
#define CPULIST_MAX 32768

const char *hpcp_sysfs_root(void)
{
    const char *root = getenv(HPCP_SYSFS_ROOT_ENV);
    return root && root[0] ? root : "/sys";
}

/* A decimal number at *p (no sign), advancing *p; -1 when there is none. */
static long read_number(const char **p)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    long v = 0;
    while (isdigit((unsigned char)**p) && v < 100000000)
        v = v * 10 + (*(*p)++ - '0');
    return isdigit((unsigned char)**p) ? -1 : v;
}

int hpcp_cpulist_has(const char *list, int cpu)
{
    const char *p = list;
    int found = 0;
    while (*p && *p != '\n') {
        long lo = read_number(&p), hi = lo;
        if (*p == '-') {
            p++;
            hi = read_number(&p);
        }
        if (lo < 0 || hi < lo || (*p && *p != ',' && *p != '\n'))
            return -1;
        found |= cpu >= lo && cpu <= hi;
        if (*p == ',')
            p++;
    }
    return found;
}

/* The cpulist of node `node` under `root` into buf; 0, or -1 unreadable. */
static int read_cpulist(const char *root, const char *node, char *buf, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/devices/system/node/%s/cpulist", root, node);
    return hpcp_read_text(path, buf, len);
}

/* N when `name` is "node<N>" (digits only), else -1. */
static int node_number(const char *name)
{
    if (strncmp(name, "node", 4) != 0)
        return -1;
    const char *p = name + 4;
    long n = read_number(&p);
    return *p == '\0' && n <= 1 << 20 ? (int)n : -1;
}

/* Visit every node<N> with a readable cpulist: returns the count of nodes
 * with at least one CPU; when cpu >= 0, *node gets the one that holds it. */
static int scan_nodes(const char *root, int cpu, int *node)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/devices/system/node", root);
    DIR *dir = opendir(path);
    if (!dir)
        return -1;
    char *list = malloc(CPULIST_MAX);
    int count = 0;
    struct dirent *e;
    while (list && (e = readdir(dir))) {
        int n = node_number(e->d_name);
        if (n < 0 || read_cpulist(root, e->d_name, list, CPULIST_MAX) != 0)
            continue;
        int has_cpus = list[strspn(list, " \n")] != '\0';
        count += has_cpus;
        if (cpu >= 0 && has_cpus && hpcp_cpulist_has(list, cpu) == 1)
            *node = n;
    }
    free(list);
    closedir(dir);
    return count > 0 ? count : -1;
}

int hpcp_numa_domains_at(const char *root)
{
    return scan_nodes(root, -1, NULL);
}

int hpcp_numa_node_of_cpu_at(const char *root, int cpu)
{
    int node = -1;
    if (cpu >= 0)
        scan_nodes(root, cpu, &node);
    return node;
}

int hpcp_numa_domains(void)
{
    return hpcp_numa_domains_at(hpcp_sysfs_root());
}

int hpcp_numa_node_of_cpu(int cpu)
{
    return hpcp_numa_node_of_cpu_at(hpcp_sysfs_root(), cpu);
}

int hpcp_current_cpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                return c;
    int cpu = sched_getcpu();
    return cpu >= 0 ? cpu : -1;
}
