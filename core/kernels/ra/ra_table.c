/* RandomAccess table memory: 2 MiB aligned, huge pages by madvise. */
#include <string.h>

#include "ra.h"

int ra_table_alloc(struct ra_table *t, uint64_t words, int hugepages)
{
    memset(t, 0, sizeof *t);
    /* Random updates miss the TLB on nearly every access; 2 MiB pages cut
     * those misses, so the region asks for them and the record says what came. */
    if (hpcp_region_alloc(&t->region, (size_t)words * sizeof(uint64_t), hugepages) != 0)
        return -1;
    t->words = t->region.base;
    t->n = words;
    return 0;
}

void ra_table_init(struct ra_table *t, uint64_t first_global)
{
    uint64_t *w = t->words;
    for (uint64_t i = 0; i < t->n; i++)
        w[i] = first_global + i;
    t->thp_bytes = hpcp_thp_bytes(t->words, t->n * sizeof(uint64_t));
}

void ra_table_free(struct ra_table *t)
{
    hpcp_region_free(&t->region);
    memset(t, 0, sizeof *t);
}
