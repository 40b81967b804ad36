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

#endif
