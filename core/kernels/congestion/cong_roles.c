/* Roles per node (canary or congestor), the canaries' random ring, the CIF,
 * and the message stamps. A node's ranks all take one role, so a canary's
 * node carries no congestor traffic of its own (GPCNeT's rule); with one
 * node, the split is per rank. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "congestion.h"
#include "hpcprobe/rng.h"
#include "hpcprobe/sysinfo.h"
#include "hpcprobe/util.h"

/* Ranks of the units that take role `congestor` (0 or 1). */
static int role_ranks(int units, const int *unit_ranks, const int *unit_congestor, int congestor)
{
    int n = 0;
    for (int u = 0; u < units; u++)
        n += unit_congestor[u] == congestor ? unit_ranks[u] : 0;
    return n;
}

/* Canary units by placement. spread: the c-th of k sits in the middle of the
 * c-th k-th of the units, so canaries sample the whole machine (both leaves of
 * a tree, both halves of a torus) rather than one corner of it. random: the
 * last k of a seeded permutation (GPCNeT's rule: a busy machine's scheduler
 * gives no better). packed: the first k units in host order (one leaf). */
void cong_place_canaries(int units, int ncongestor, int placement, uint64_t seed,
                         int *unit_congestor)
{
    int k = units - ncongestor;
    for (int u = 0; u < units; u++)
        unit_congestor[u] = 1;
    if (placement == CONG_PLACE_RANDOM) {
        int *order = malloc((size_t)units * sizeof *order);
        if (order) {
            hpcp_shuffle(order, units, seed);
            for (int c = 0; c < k; c++)
                unit_congestor[order[ncongestor + c]] = 0;
            free(order);
            return;
        }
    }
    for (int c = 0; c < k; c++)
        unit_congestor[placement == CONG_PLACE_PACKED
                           ? c
                           : (int)(((long long)2 * c + 1) * units / (2LL * k))] = 0;
}

int cong_split_units(int units, const int *unit_ranks, double fraction, int need,
                     int *unit_congestor, int *ncongestor, char *err, size_t errlen)
{
    return cong_split_units_placed(units, unit_ranks, fraction, need, CONG_PLACE_SPREAD, 0,
                                   unit_congestor, ncongestor, err, errlen);
}

int cong_split_units_placed(int units, const int *unit_ranks, double fraction, int need,
                            int placement, uint64_t seed, int *unit_congestor, int *ncongestor,
                            char *err, size_t errlen)
{
    int ranks = 0;
    for (int u = 0; u < units; u++)
        ranks += unit_ranks[u];
    if (ranks < 2 * need) {
        snprintf(err, errlen,
                 "congestion needs at least %d ranks (%d canaries and %d congestors), not %d",
                 2 * need, need, need, ranks);
        return -1;
    }
    int n = (int)floor(fraction * units + 1e-9);
    if (n < 1 || n >= units) {
        snprintf(err, errlen,
                 "--congestor-fraction %g leaves no %s among %d unit(s) (allowed: a fraction "
                 "that gives each role at least one, here %.3g to %.3g)",
                 fraction, n < 1 ? "congestor" : "canary", units, 1.0 / units,
                 (units - 1.0) / units);
        return -1;
    }
    cong_place_canaries(units, n, placement, seed, unit_congestor);
    /* Each role needs `need` ranks (a ring, an incast): move units to the short side. */
    while (n > 1 && role_ranks(units, unit_ranks, unit_congestor, 0) < need)
        cong_place_canaries(units, --n, placement, seed, unit_congestor);
    while (n < units - 1 && role_ranks(units, unit_ranks, unit_congestor, 1) < need &&
           role_ranks(units, unit_ranks, unit_congestor, 0) > need)
        cong_place_canaries(units, ++n, placement, seed, unit_congestor);
    if (role_ranks(units, unit_ranks, unit_congestor, 0) < need ||
        role_ranks(units, unit_ranks, unit_congestor, 1) < need) {
        snprintf(err, errlen,
                 "%d unit(s) cannot give the canaries and the congestors %d ranks each "
                 "(allowed: at least %d ranks on one node, or nodes with more ranks)",
                 units, need, 2 * need);
        return -1;
    }
    *ncongestor = n;
    return 0;
}

/* GPCNeT's split of the units: unit_congestor[u] is 1 + the unit's group, 0
 * for a canary unit. */
static int gpcnet_units(struct cong_roles *r, const struct cong_params *p, int *unit_congestor,
                        char *err, size_t errlen)
{
    if (cong_gpcnet_split(r->units, r->per_rank, p->placement, p->run.seed, unit_congestor,
                          r->group_units, err, errlen) != 0)
        return -1;
    r->congestor_units = 0;
    for (int u = 0; u < r->units; u++) {
        r->congestor_units += unit_congestor[u] >= 0;
        unit_congestor[u] += 1;
    }
    return 0;
}

int cong_assign_roles(struct cong_roles *r, const struct hpcp_sysinfo *si, MPI_Comm comm,
                      const struct cong_params *p, char *err, size_t errlen)
{
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len, P = si->ranks;
    MPI_Get_processor_name(name, &len);
    char *all = malloc((size_t)P * MPI_MAX_PROCESSOR_NAME);
    r->rank_node = malloc((size_t)P * sizeof *r->rank_node);
    r->rank_congestor = malloc((size_t)P * sizeof *r->rank_congestor);
    int *unit_ranks = calloc((size_t)P, sizeof *unit_ranks);
    int *unit_congestor = calloc((size_t)P, sizeof *unit_congestor);
    r->rank_group = p->mode == CONG_MODE_GPCNET ? malloc((size_t)P * sizeof *r->rank_group) : NULL;
    int bad = !all || !r->rank_node || !r->rank_congestor || !unit_ranks || !unit_congestor ||
              (p->mode == CONG_MODE_GPCNET && !r->rank_group);
    if (hpcp_any(comm, bad)) {
        free(all), free(unit_ranks), free(unit_congestor);
        snprintf(err, errlen, "out of memory assigning the roles");
        return -1;
    }
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  comm);
    hpcp_host_indices(all, MPI_MAX_PROCESSOR_NAME, P, r->rank_node);
    free(all);
    int nodes = 0;
    for (int i = 0; i < P; i++)
        nodes = r->rank_node[i] + 1 > nodes ? r->rank_node[i] + 1 : nodes;
    r->per_rank = nodes == 1;
    r->units = r->per_rank ? P : nodes;
    for (int i = 0; i < P; i++)
        unit_ranks[r->per_rank ? i : r->rank_node[i]]++;
    int rc = p->mode == CONG_MODE_GPCNET
                 ? gpcnet_units(r, p, unit_congestor, err, errlen)
                 : cong_split_units_placed(r->units, unit_ranks, p->fraction, 2, p->placement,
                                           p->run.seed, unit_congestor, &r->congestor_units, err,
                                           errlen);
    r->canary_units = r->units - r->congestor_units;
    r->fraction_used = (double)r->congestor_units / r->units;
    r->canary_ranks = r->congestor_ranks = 0;
    for (int i = 0; rc == 0 && i < P; i++) {
        int v = unit_congestor[r->per_rank ? i : r->rank_node[i]];
        r->rank_congestor[i] = v != 0;
        if (r->rank_group)
            r->rank_group[i] = v - 1; /* gpcnet: v is 1 + the group, 0 a canary */
        r->congestor_ranks += r->rank_congestor[i];
    }
    r->canary_ranks = P - r->congestor_ranks;
    free(unit_ranks), free(unit_congestor);
    return rc;
}

void cong_roles_free(struct cong_roles *r)
{
    free(r->rank_node), free(r->rank_congestor), free(r->rank_group);
    r->rank_node = r->rank_congestor = r->rank_group = NULL;
}

static double mean_of(const double *v, int n)
{
    double sum = 0;
    int used = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i]))
            sum += v[i], used++;
    return used ? sum / used : NAN;
}

double cong_cif(const double *isolated, int ni, const double *congested, int nc,
                int higher_is_better)
{
    double a = mean_of(isolated, ni), c = mean_of(congested, nc);
    double cif = higher_is_better ? a / c : c / a;
    return isfinite(cif) && cif > 0 ? cif : NAN;
}

static unsigned char pattern_byte(size_t i, int sender)
{
    return (unsigned char)(i * 131u + (unsigned)sender * 7u + 1u);
}

void cong_fill(unsigned char *buf, size_t bytes, int sender)
{
    for (size_t i = 0; i < bytes; i++)
        buf[i] = pattern_byte(i, sender);
}

void cong_fill_messages(unsigned char *buf, size_t n, size_t bytes, int sender)
{
    for (size_t k = 0; k < n; k++)
        cong_fill(buf + k * bytes, bytes, sender);
}

/* sender (24 bits), message k (8 bits), sequence (32 bits). */
static uint64_t stamp_word(int sender, long long seq, int k)
{
    return ((uint64_t)(sender & 0xffffff) << 40) | ((uint64_t)(k & 0xff) << 32) |
           ((uint64_t)seq & 0xffffffffu);
}

void cong_stamp(unsigned char *buf, size_t bytes, int sender, long long seq, int k)
{
    uint64_t w = stamp_word(sender, seq, k);
    memcpy(buf, &w, bytes < sizeof w ? bytes : sizeof w);
}

int cong_stamp_ok(const unsigned char *buf, size_t bytes, int sender, long long seq, int k)
{
    uint64_t w = stamp_word(sender, seq, k), got = 0;
    memcpy(&got, buf, bytes < sizeof w ? bytes : sizeof w);
    if (bytes < sizeof w)
        w &= (((uint64_t)1) << (8 * bytes)) - 1;
    return got == w;
}
