/* The sizing layer (sizing.h) on the nodes of issue 40: (a) this machine,
 * (b)-(f) described; every size over 4x the share it must leave unless the
 * cap made it smaller, every node's ranks under the cap, the rule written,
 * and bad descriptions refused in one line. */
#include <mpi.h>
#include <string.h>

#include "check.h"
#include "hpcprobe/sizing.h"

static const char *const nodes[] = {
    "cores=16,numa=1,l1=48K,l2=2MiB,l3=300MiB,l3-shared-by=16,memory=128GiB",
    "cores=128,numa=8,l1=32K,l2=1MiB,l3=32MiB,l3-shared-by=8,memory=512GiB",
    "cores=112,numa=2,l1=48K,l2=2MiB,l3=105MiB,l3-shared-by=56,memory=512GiB",
    "cores=72,numa=1,l1=64K,l2=1MiB,l3=114MiB,memory=480GiB",
    "cores=48,numa=4,l1=64K,l2=8MiB,l2-shared-by=12,memory=32GiB",
};
#define CAP 0.25

/* Each size of a node with a rank per core: under the cap with all its
 * ranks, over 4x its share of the caches unless the rule says capped. */
static void sizes_fit(const struct hpcp_node *n)
{
    struct hpcp_sized s;
    double cap = hpcp_node_cap_bytes(n, CAP), P = n->ranks;
    double share = (double)hpcp_node_caches_used(n, n->ranks) / n->ranks;
    hpcp_size_stream(n, n->ranks, CAP, &s);
    CHECK(3.0 * (double)s.value * P <= cap);
    CHECK(s.capped ? strstr(s.rule, "memory cap") != NULL : (double)s.value >= 4 * share);
    CHECK(strstr(s.rule, "4x") != NULL);
    hpcp_size_stream(n, 1, CAP, &s);
    CHECK(s.capped || (double)s.value >= 4.0 * (double)hpcp_node_core_caches(n));
    hpcp_size_latency(n, n->ranks, CAP, &s);
    CHECK((double)s.value * 17 / 16 * P <= cap);
    CHECK((s.value & (s.value - 1)) == 0);
    hpcp_size_ra_caches(n, n->ranks, 0, CAP, &s);
    CHECK(8.0 * (double)((uint64_t)1 << s.value) * P <= cap);
    CHECK(s.capped || 8.0 * (double)((uint64_t)1 << s.value) >= 2 * share); /* 2x..4x */
    CHECK(8.0 * (double)((uint64_t)1 << s.value) <= 4 * share);
    hpcp_size_ra_caches(n, n->ranks, 1, CAP, &s);
    CHECK(8.0 * (double)((uint64_t)1 << s.value) <= cap * n->nodes);
    hpcp_size_fft_caches(n, n->ranks, 0, CAP, &s);
    CHECK(48.0 * (double)((uint64_t)1 << s.value) * P <= cap);
    hpcp_size_hpl_cap(n, 192, CAP, &s);
    CHECK(8.0 * (double)s.value * (double)s.value <= cap * n->nodes);
    CHECK(s.value % 192 == 0);
}

static void described(void)
{
    char err[512];
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        struct hpcp_node n;
        CHECK(hpcp_node_parse(nodes[i], &n, err, sizeof err) == 0);
        CHECK(n.ranks == n.cores && n.nodes == 1 && n.available == n.memory);
        sizes_fit(&n);
    }
    struct hpcp_node n;
    CHECK(hpcp_node_parse(nodes[1], &n, err, sizeof err) == 0);
    CHECK(n.ncaches == 3 && n.cache[2].level == 3 && n.cache[2].shared_by == 8);
    CHECK(n.cache[0].shared_by == 1 && n.numa == 8);
    /* 128 ranks reach every L3 (16 x 32 MiB) and their own L1 and L2 */
    CHECK(hpcp_node_caches_used(&n, 128) == 16 * (32ULL << 20) + 128 * ((32ULL << 10) + (1 << 20)));
    CHECK(hpcp_node_caches_used(&n, 1) == hpcp_node_core_caches(&n));
    /* an unshared last level given alone: shared by a NUMA domain's cores */
    CHECK(hpcp_node_parse("cores=64,numa=4,l3=64MiB,memory=256GiB", &n, err, sizeof err) == 0);
    CHECK(n.cache[0].shared_by == 16);
}

static void refused(void)
{
    static const char *const bad[] = {
        "cores=16",                          /* no memory */
        "memory=1GiB",                       /* no cores */
        "cores=16,memory=1GiB,l3=0",         /* a cache of nothing */
        "cores=16,memory=1GiB,l9=1M",        /* no such level */
        "cores=16,memory=1GiB,speed=3",      /* no such key */
        "cores=16,memory=1GiB,l3-shared-by=32,l3=1M", /* more sharers than cores */
        "cores=-1,memory=1GiB",
        "cores=16,memory=lots",
        "cores=16;memory=1GiB",
    };
    char err[512];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct hpcp_node n;
        err[0] = 0;
        CHECK(hpcp_node_parse(bad[i], &n, err, sizeof err) == -1);
        CHECK(strstr(err, "--node") == err && strchr(err, '\n') == NULL);
        CHECK(strstr(err, "allowed") != NULL);
    }
}

static void this_machine(void)
{
    struct hpcp_node n;
    char err[512];
    hpcp_node_read(&n);
    CHECK(n.cores >= 1 && n.memory > 0 && n.ranks == 1);
    sizes_fit(&n);
    /* the cap refuses what does not fit, in one line naming what set it */
    CHECK(hpcp_cap_check(&n, 0.25, (double)n.memory, 1, "stream star with the size given", err,
                         sizeof err) == -1);
    CHECK(strstr(err, "stream star with the size given") == err && strstr(err, "--memory-cap"));
    CHECK(hpcp_cap_check(&n, 0.25, 1024.0, 2, "x", err, sizeof err) == 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    described();
    refused();
    this_machine();
    MPI_Finalize();
    return check_summary("test_sizing");
}
