/* RandomAccess table memory: 2 MiB aligned, huge pages by madvise. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "ra.h"

#define RA_HUGE_ALIGN (2u << 20)

int ra_table_alloc(struct ra_table *t, uint64_t words, int hugepages)
{
    memset(t, 0, sizeof *t);
    size_t bytes = (size_t)words * sizeof(uint64_t);
    size_t padded = (bytes + RA_HUGE_ALIGN - 1) & ~(size_t)(RA_HUGE_ALIGN - 1);
    t->map_bytes = padded + RA_HUGE_ALIGN;
    t->map = mmap(NULL, t->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (t->map == MAP_FAILED) {
        t->map = NULL;
        return -1;
    }
    uintptr_t p = ((uintptr_t)t->map + RA_HUGE_ALIGN - 1) & ~(uintptr_t)(RA_HUGE_ALIGN - 1);
    t->words = (uint64_t *)p;
    t->n = words;
    /* Random updates miss the TLB on nearly every access; 2 MiB pages cut
     * those misses, so ask before the first touch and record the answer. */
    t->advice_rc = madvise(t->words, padded, hugepages ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    t->advice_errno = t->advice_rc ? errno : 0;
    return 0;
}

/* AnonHugePages of the mapping that holds addr, from /proc/self/smaps. */
static uint64_t thp_bytes_at(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return 0;
    char line[512];
    int inside = 0;
    uint64_t kib = 0;
    uintptr_t a = (uintptr_t)addr;
    while (fgets(line, sizeof line, f)) {
        uintptr_t lo, hi;
        /* Mapping headers start "lo-hi "; field lines start with a name. */
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2) {
            inside = a >= lo && a < hi;
            continue;
        }
        unsigned long long v;
        if (inside && sscanf(line, "AnonHugePages: %llu kB", &v) == 1) {
            kib = v;
            break;
        }
    }
    fclose(f);
    return kib * 1024u;
}

void ra_table_init(struct ra_table *t, uint64_t first_global)
{
    uint64_t *w = t->words;
    for (uint64_t i = 0; i < t->n; i++)
        w[i] = first_global + i;
    uint64_t thp = thp_bytes_at(t->words);
    uint64_t bytes = t->n * sizeof(uint64_t);
    t->thp_bytes = thp < bytes ? thp : bytes;
}

void ra_table_free(struct ra_table *t)
{
    if (t->map)
        munmap(t->map, t->map_bytes);
    memset(t, 0, sizeof *t);
}
