/* The sizing layer (runtime/sizing.c, sizing_rules.c): the one place that
 * turns what a node has (cores, each cache level with the cores that share
 * it, NUMA domains, memory) and how many ranks share it into every default
 * size, each with the rule that chose it in words for the record's
 * parameters.size_rule; and the memory cap every launch keeps: what the ranks
 * of a node allocate stays under a fraction of the node's available memory.
 * `hpcprobe-bench sizes` prints them for this node or a described one, for
 * `hpcprobe run --plan`. docs/sizing.md. */
#ifndef HPCPROBE_SIZING_H
#define HPCPROBE_SIZING_H
#include <stddef.h>
#include <stdint.h>

#include "hpcprobe/caches.h"

#define HPCP_CACHE_LEVELS 4
/* --memory-cap's default for a launch of its own; the suites pass theirs
 * (the main job 1/4, --suite hpcc HPCC's 1/2). */
#define HPCP_DEFAULT_MEMORY_CAP 0.9

/* What the ranks of one node share. Unknown numbers are 0. */
struct hpcp_node {
    int cores;       /* online CPUs */
    int numa;        /* NUMA domains */
    int ncaches;
    struct hpcp_cache_level cache[HPCP_CACHE_LEVELS]; /* data or unified, by level */
    uint64_t memory;    /* MemTotal */
    uint64_t available; /* MemAvailable */
    int ranks;          /* ranks of the launch on this node (the most on any node) */
    int nodes;          /* nodes of the launch */
    int all_ranks;      /* ranks of the launch in all */
};

/* A size and the rule that chose it. */
struct hpcp_sized {
    uint64_t value;   /* bytes, a log2 or an order: as the rule's user reads it */
    int capped;       /* the memory cap made it smaller than the rule asked */
    char rule[256];
};

/* This machine: sysfs and /proc (ranks 1, nodes 1). */
void hpcp_node_read(struct hpcp_node *n);
struct hpcp_sysinfo;
/* The node of a launch: this machine's cores and caches, the launch's ranks
 * per node (the most on any) and nodes, the smallest memory of its nodes. */
void hpcp_node_of(struct hpcp_node *n, const struct hpcp_sysinfo *si);
/* "cores=128,numa=8,l3=32MiB,l3-shared-by=8,memory=512GiB[,available=..]
 * [,l1=..,l2=..,lN-shared-by=..][,ranks=..][,nodes=..]": a node to plan for.
 * 0, or -1 with one line in err. */
int hpcp_node_parse(const char *spec, struct hpcp_node *n, char *err, size_t errlen);
/* One instance of every level: what one core reaches alone. */
uint64_t hpcp_node_core_caches(const struct hpcp_node *n);
/* Every cache that `copies` ranks spread over the node reach together. */
uint64_t hpcp_node_caches_used(const struct hpcp_node *n, int copies);
/* Bytes the ranks of one node may allocate under `cap` (a fraction of the
 * available memory, else of the total); 0 when the node's memory is unknown. */
double hpcp_node_cap_bytes(const struct hpcp_node *n, double cap);

/* --- the rules (sizing_rules.c) ------------------------------------------- */

/* STREAM: bytes of each of the three arrays of one of `copies` ranks. */
void hpcp_size_stream(const struct hpcp_node *n, int copies, double cap, struct hpcp_sized *s);
/* mem stride: the buffer of each of `copies` ranks. */
void hpcp_size_stride(const struct hpcp_node *n, int copies, double cap, struct hpcp_sized *s);
/* mem latency: the largest working set of each of `copies` ranks. */
void hpcp_size_latency(const struct hpcp_node *n, int copies, double cap, struct hpcp_sized *s);
/* RandomAccess by the caches (2x to 4x them): log2 words of a rank's table (distributed:
 * of the one table over every rank of `nodes` nodes). */
void hpcp_size_ra_caches(const struct hpcp_node *n, int copies, int distributed, double cap,
                         struct hpcp_sized *s);
/* RandomAccess as HPCC sizes it: the largest 2^K words in `fraction` of the
 * memory of a node's ranks; -1 in value when not even 2^min_log2 fits. */
void hpcp_size_ra_memory(const struct hpcp_node *n, double fraction, int copies, int distributed,
                         int min_log2, int max_log2, double cap, struct hpcp_sized *s);
/* FFT by the caches: log2 points (16-byte complex) per rank, or in all when
 * distributed. */
void hpcp_size_fft_caches(const struct hpcp_node *n, int copies, int distributed, double cap,
                          struct hpcp_sized *s);
/* dgemm, hpl, ptrans, fft as HPCC sizes them from HPL's memory: an order, or
 * log2 points for fft. */
void hpcp_size_dense_memory(const struct hpcp_node *n, const char *family, const char *variant,
                            double fraction, int nb, struct hpcp_sized *s);
/* HPL: the largest order whose matrix fits the cap on every node, in whole
 * blocks of nb. */
void hpcp_size_hpl_cap(const struct hpcp_node *n, int nb, double cap, struct hpcp_sized *s);

/* peak bandwidth: the level a working set measures (sizing_rules.c). */
#define HPCP_PEAK_LEVEL_MEMORY 0
/* peak bandwidth: the working set per rank (bytes, all of a kernel's arrays)
 * at cache level `level` (1..4) or memory (HPCP_PEAK_LEVEL_MEMORY) for
 * `copies` ranks of a node at once. A cache level: half of what one rank
 * reaches of it (its share when up to lN-shared-by ranks share the
 * instance, as a launcher packs ranks on consecutive cores), and at least 2x
 * what it reaches of the level below. Memory: the three arrays of STREAM's
 * rule (hpcp_size_stream), under the cap. value 0 when the level is skipped
 * (absent, or too small to be measured apart from the one below): the rule
 * says why. */
void hpcp_size_peak_level(const struct hpcp_node *n, int copies, int level, double cap,
                          struct hpcp_sized *s);

/* 0 when `copies` ranks of a node allocating `bytes_per_rank` each stay
 * under the cap, else -1 and one line naming `what` (the option that set
 * the size) and the largest that fits. */
int hpcp_cap_check(const struct hpcp_node *n, double cap, double bytes_per_rank, int copies,
                   const char *what, char *err, size_t errlen);

/* `hpcprobe-bench sizes` (runtime/sizing_query.c). */
int hpcp_sizes_query(int argc, char **argv);

#endif
