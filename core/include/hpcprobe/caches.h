/* The CPU caches of the node, from sysfs (runtime/caches.c). */
#ifndef HPCPROBE_CACHES_H
#define HPCPROBE_CACHES_H
#include <stdint.h>

/* Caches of CPU 0; sizes in bytes, 0 when unknown. */
struct hpcp_caches {
    uint64_t l1d, l2, l3;
    uint64_t llc_per_node; /* sum of the distinct last-level caches of the node */
};
void hpcp_caches_read(struct hpcp_caches *c);

/* One level of data or unified cache. */
struct hpcp_cache_level {
    int level;
    uint64_t bytes; /* one instance */
    int shared_by;  /* CPUs sharing one instance */
};
/* CPU 0's data and unified caches, by level, at most `max`: how many. */
int hpcp_cache_levels(struct hpcp_cache_level *out, int max);
/* Online CPUs (/sys/devices/system/cpu/online), 0 when unknown. */
int hpcp_cpus_online(void);

#endif
