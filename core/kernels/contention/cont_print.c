/* What `hpcprobe-bench contention` prints for people (the record has it all):
 * per phase and message size, the median over repetitions of the mean, min
 * and max over pairs of the time per message, in microseconds. */
#include <stdio.h>
#include <string.h>

#include "contention.h"
#include "hpcprobe/util.h"

static double median_over_reps(const struct cont_results *R, const double *v, int g, int z)
{
    return hpcp_median(v + ((size_t)g * R->S + z) * R->R, R->R);
}

static void print_phase(const struct cont_state *s, const struct cont_results *R, int g,
                        const char *variant)
{
    if (!strcmp(variant, "stress-link"))
        printf("%d pair(s) active (middle pair first):\n", s->plan.group_value[g]);
    else if (!strcmp(variant, "equidistant"))
        printf("pairs %d hop(s) apart along axis %d:\n", s->plan.group_value[g], s->plan.axis);
    printf("%12s %12s %12s %12s %8s\n", "bytes", "mean us", "min us", "max us", "spread");
    for (int z = 0; z < R->S; z++) {
        double mean = median_over_reps(R, R->mean, g, z), lo = median_over_reps(R, R->min, g, z);
        double hi = median_over_reps(R, R->max, g, z);
        printf("%12llu %12.3f %12.3f %12.3f %7.1f%%\n", (unsigned long long)s->p.sizes[z],
               mean * 1e6, lo * 1e6, hi * 1e6, lo > 0 ? 100 * (hi - lo) / lo : 0.0);
    }
}

void cont_print(const struct hpcp_kernel *k, const struct cont_state *s,
                const struct cont_results *R)
{
    char dims[96] = "";
    cont_topo_dims_text(&s->topo, dims, sizeof dims);
    printf("contention %s: %d pair(s), %d node(s) of up to %d rank(s), topology %s%s%s (%s); "
           "%d repetition(s) of %d message(s)\n",
           k->variant, s->plan.npairs, s->topo.nodes, s->topo.ranks_per_node,
           cont_topo_kind_name(&s->topo), dims[0] ? " " : "", dims, s->topo.coord_source,
           s->p.run.repeat, s->p.messages);
    if (s->plan.nidle)
        printf("%d rank(s) in no pair, idle (the first: rank %d)\n", s->plan.nidle,
               s->plan.idle[0]);
    for (int g = 0; g < R->G; g++)
        print_phase(s, R, g, k->variant);
    if (s->p.run.verify)
        printf("contention %s: validation %s (%lld wrong message(s))\n", k->variant,
               R->wrong ? "FAILED" : "passed", R->wrong);
    fflush(stdout);
}
