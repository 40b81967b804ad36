/* GPCNeT's layout of network_load_test (--mode gpcnet): floor(0.8 n) of n
 * units congest, in four groups that run at once (Alltoall, two-sided incast,
 * Put incast, Get broadcast, GPCNeT's order), the rest run the canaries.
 * Units are nodes, or ranks on one node (as in hpcprobe's mode). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "congestion.h"
#include "hpcprobe/rng.h"

const int cong_gpcnet_group_pattern[CONG_GPCNET_GROUPS] = {CONG_ALLTOALL, CONG_INCAST,
                                                           CONG_PUT_INCAST, CONG_GET_BCAST};

/* The order congestor units are dealt into groups: host order, or for a
 * random placement a second seeded permutation (GPCNeT deals its groups at
 * random too). */
static void deal_order(int units, int placement, uint64_t seed, int *order)
{
    if (placement == CONG_PLACE_RANDOM) {
        hpcp_shuffle(order, units, seed + 1);
        return;
    }
    for (int u = 0; u < units; u++)
        order[u] = u;
}

int cong_gpcnet_split(int units, int per_rank, int placement, uint64_t seed, int *unit_group,
                      int group_units[CONG_GPCNET_GROUPS], char *err, size_t errlen)
{
    int ncongestor = (int)floor(0.8 * units + 1e-9);
    if (units - ncongestor < 2 || ncongestor < 2 * CONG_GPCNET_GROUPS) {
        snprintf(err, errlen,
                 "--mode gpcnet needs at least %d nodes, or %d ranks on one node (2 canary "
                 "units and 2 per congestor group, as GPCNeT), not %d %s; allowed: more "
                 "%s, or --mode hpcprobe",
                 CONG_GPCNET_MIN_UNITS, CONG_GPCNET_MIN_UNITS, units,
                 per_rank ? "ranks on one node" : "nodes", per_rank ? "ranks" : "nodes");
        return -1;
    }
    int *congestor = malloc((size_t)units * sizeof *congestor);
    int *order = malloc((size_t)units * sizeof *order);
    if (!congestor || !order) {
        free(congestor), free(order);
        snprintf(err, errlen, "out of memory assigning the roles");
        return -1;
    }
    cong_place_canaries(units, ncongestor, placement, seed, congestor);
    deal_order(units, placement, seed, order);
    for (int g = 0; g < CONG_GPCNET_GROUPS; g++)
        group_units[g] = 0;
    for (int i = 0, dealt = 0; i < units; i++) {
        int u = order[i];
        unit_group[u] = congestor[u] ? dealt++ % CONG_GPCNET_GROUPS : -1;
        if (unit_group[u] >= 0)
            group_units[unit_group[u]]++;
    }
    free(congestor), free(order);
    return 0;
}
