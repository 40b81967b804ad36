/* The node the sizing layer sizes for (sizing.h): read from this machine or
 * parsed from a description, what its caches hold, and the memory cap. */
#include "hpcprobe/sizing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/numa.h"
#include "hpcprobe/options.h"
#include "hpcprobe/sysinfo.h"
#include "hpcprobe/util.h"

void hpcp_node_read(struct hpcp_node *n)
{
    memset(n, 0, sizeof *n);
    n->cores = hpcp_cpus_online();
    n->numa = hpcp_numa_domains() > 0 ? hpcp_numa_domains() : 0; /* -1: unknown */
    n->ncaches = hpcp_cache_levels(n->cache, HPCP_CACHE_LEVELS);
    n->memory = hpcp_meminfo_bytes("MemTotal:");
    n->available = hpcp_meminfo_bytes("MemAvailable:");
    n->ranks = n->nodes = n->all_ranks = 1;
}

void hpcp_node_of(struct hpcp_node *n, const struct hpcp_sysinfo *si)
{
    hpcp_node_read(n);
    n->ranks = si->ranks_per_node_max;
    n->nodes = si->nodes;
    n->all_ranks = si->ranks;
    n->memory = si->memory_total_min_node;
    n->available = si->memory_available_min_node;
}

static struct hpcp_cache_level *level_of(struct hpcp_node *n, int level)
{
    for (int i = 0; i < n->ncaches; i++)
        if (n->cache[i].level == level)
            return &n->cache[i];
    if (n->ncaches == HPCP_CACHE_LEVELS)
        return NULL;
    /* keep the levels in order: what one core reaches is read from them in turn */
    int at = 0;
    while (at < n->ncaches && n->cache[at].level < level)
        at++;
    memmove(&n->cache[at + 1], &n->cache[at], (size_t)(n->ncaches - at) * sizeof n->cache[0]);
    n->ncaches++;
    n->cache[at] = (struct hpcp_cache_level){level, 0, 0};
    return &n->cache[at];
}

/* One "key=value" of a node description. */
static int node_item(struct hpcp_node *n, const char *key, const char *value)
{
    uint64_t bytes = 0;
    char *end;
    long count = strtol(value, &end, 10);
    int whole = *value && !*end && count >= 1 && count <= 1 << 20;
    int level = 0, shared = 0, used = 0;
    if (sscanf(key, "l%d%n", &level, &used) == 1 && level >= 1 && level <= 4) {
        shared = strcmp(key + used, "-shared-by") == 0;
        if (!shared && key[used])
            return -1;
        struct hpcp_cache_level *c = level_of(n, level);
        if (!c || (shared ? !whole : hpcp_parse_bytes(value, &bytes) || bytes == 0))
            return -1;
        if (shared)
            c->shared_by = (int)count;
        else
            c->bytes = bytes;
        return 0;
    }
    int *slot = !strcmp(key, "cores")   ? &n->cores
                : !strcmp(key, "numa")  ? &n->numa
                : !strcmp(key, "ranks") ? &n->ranks
                : !strcmp(key, "nodes") ? &n->nodes
                                        : NULL;
    if (slot)
        return whole ? (*slot = (int)count, 0) : -1;
    uint64_t *mem = !strcmp(key, "memory")      ? &n->memory
                    : !strcmp(key, "available") ? &n->available
                                                : NULL;
    return mem && !hpcp_parse_bytes(value, &bytes) && bytes > 0 ? (*mem = bytes, 0) : -1;
}

/* Levels given without their sharers: private below the last level, the
 * last shared by the cores of a NUMA domain (of the node when unknown). */
static void node_defaults(struct hpcp_node *n)
{
    for (int i = 0; i < n->ncaches; i++)
        if (n->cache[i].shared_by == 0)
            n->cache[i].shared_by = i + 1 < n->ncaches ? 1 : n->cores / (n->numa > 0 ? n->numa : 1);
    if (!n->available)
        n->available = n->memory;
    if (!n->ranks)
        n->ranks = n->cores;
    if (!n->nodes)
        n->nodes = 1;
    n->all_ranks = n->ranks * n->nodes;
}

int hpcp_node_parse(const char *spec, struct hpcp_node *n, char *err, size_t errlen)
{
    static const char *const allowed =
        "allowed: cores=N,numa=N,memory=SIZE[,available=SIZE][,lK=SIZE,lK-shared-by=N for K "
        "1..4][,ranks=N][,nodes=N], e.g. cores=128,numa=8,l3=32MiB,l3-shared-by=8,memory=512GiB";
    char buf[512];
    memset(n, 0, sizeof *n);
    if (strlen(spec) >= sizeof buf) {
        snprintf(err, errlen, "--node: the description is too long (%s)", allowed);
        return -1;
    }
    strcpy(buf, spec);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (eq)
            *eq = 0;
        if (!eq || node_item(n, item, eq + 1)) {
            snprintf(err, errlen, "--node: '%s%s%s' is not understood (%s)", item, eq ? "=" : "",
                     eq ? eq + 1 : "", allowed);
            return -1;
        }
    }
    if (n->cores < 1 || n->memory == 0) {
        snprintf(err, errlen, "--node needs cores= and memory= (%s)", allowed);
        return -1;
    }
    for (int i = 0; i < n->ncaches; i++)
        if (n->cache[i].bytes == 0 || n->cache[i].shared_by > n->cores) {
            snprintf(err, errlen, "--node: l%d needs its size, shared by at most the %d cores (%s)",
                     n->cache[i].level, n->cores, allowed);
            return -1;
        }
    node_defaults(n);
    return 0;
}

uint64_t hpcp_node_core_caches(const struct hpcp_node *n)
{
    uint64_t sum = 0;
    for (int i = 0; i < n->ncaches; i++)
        sum += n->cache[i].bytes;
    return sum;
}

uint64_t hpcp_node_caches_used(const struct hpcp_node *n, int copies)
{
    uint64_t sum = 0;
    for (int i = 0; i < n->ncaches; i++) {
        const struct hpcp_cache_level *c = &n->cache[i];
        int instances = c->shared_by > 0 && n->cores >= c->shared_by ? n->cores / c->shared_by : 1;
        sum += c->bytes * (uint64_t)(copies < instances ? copies : instances);
    }
    return sum;
}

double hpcp_node_cap_bytes(const struct hpcp_node *n, double cap)
{
    return cap * (double)(n->available ? n->available : n->memory);
}

int hpcp_cap_check(const struct hpcp_node *n, double cap, double bytes_per_rank, int copies,
                   const char *what, char *err, size_t errlen)
{
    double limit = hpcp_node_cap_bytes(n, cap), need = bytes_per_rank * copies;
    if (limit <= 0 || need <= limit)
        return 0;
    char a[32], b[32], c[32], d[32];
    snprintf(err, errlen,
             "%s needs %s on a node (%d rank%s x %s), over the memory cap of %s (--memory-cap %g "
             "of the %s available); allowed: a size whose ranks take at most the cap, or a "
             "larger --memory-cap (at most 0.9)",
             what, hpcp_format_bytes(need, a, sizeof a), copies, copies == 1 ? "" : "s",
             hpcp_format_bytes(bytes_per_rank, b, sizeof b), hpcp_format_bytes(limit, c, sizeof c),
             cap, hpcp_format_bytes(limit / cap, d, sizeof d));
    return -1;
}
