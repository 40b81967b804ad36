/* NUMA domains and where a rank runs, read from the kernel's sysfs tree
 * (devices/system/node/node<N>/cpulist). The tree's root can be given, so
 * tests and containers can point it at a copy (docs/results.md). */
#ifndef HPCPROBE_NUMA_H
#define HPCPROBE_NUMA_H

/* Names the sysfs root to read instead of /sys: for tests and containers. */
#define HPCP_SYSFS_ROOT_ENV "HPCPROBE_SYSFS_ROOT"

/* HPCPROBE_SYSFS_ROOT when set and not empty, else "/sys". */
const char *hpcp_sysfs_root(void);

/* 1 when `cpu` is in the kernel cpulist text `list` ("0-3,8,10-11\n"), 0 when
 * it is not, -1 when the text is not a cpulist. An empty list holds no CPU. */
int hpcp_cpulist_has(const char *list, int cpu);

/* The NUMA domains that hold CPUs under `root`: node<N> folders of
 * root/devices/system/node whose cpulist is not empty. -1 (unknown) when
 * that folder cannot be read or holds no such node. */
int hpcp_numa_domains_at(const char *root);

/* N of the node<N> whose cpulist under `root` holds `cpu`; -1 (unknown) when
 * none does, cpu < 0, or the tree cannot be read. */
int hpcp_numa_node_of_cpu_at(const char *root, int cpu);

/* The two above under hpcp_sysfs_root(). */
int hpcp_numa_domains(void);
int hpcp_numa_node_of_cpu(int cpu);

/* The CPU the calling thread runs on: the one CPU of its affinity when it is
 * bound to one, else sched_getcpu() now (it may move later); -1 unknown. */
int hpcp_current_cpu(void);

#endif
