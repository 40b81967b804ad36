/* Cache sizes from sysfs (/sys/devices/system/cpu/cpu0/cache/index*): in the
 * runtime, because mem sizes its buffers by them and comm its off-cache rotation. */
#include <stdio.h>
#include <string.h>

#include "hpcprobe/caches.h"

static int read_line(const char *dir, const char *name, char *buf, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    buf[strcspn(buf, "\n")] = 0;
    return ok ? 0 : -1;
}

/* "32K", "1024K", "32768K", "8M" */
static uint64_t parse_cache_size(const char *s)
{
    unsigned long long v = 0;
    char unit = 0;
    if (sscanf(s, "%llu%c", &v, &unit) < 1)
        return 0;
    return unit == 'M' ? v << 20 : unit == 'K' ? v << 10 : unit == 'G' ? v << 30 : v;
}

/* CPUs sharing the cache, from shared_cpu_list ("0-1", "0,2,4-7"). */
static int count_cpus(const char *list)
{
    int n = 0, a, b;
    for (const char *s = list; *s;) {
        int used = 0;
        if (sscanf(s, "%d-%d%n", &a, &b, &used) == 2)
            n += b - a + 1;
        else if (sscanf(s, "%d%n", &a, &used) == 1)
            n += 1;
        else
            break;
        s += used;
        if (*s == ',')
            s++;
    }
    return n;
}

void hpcp_caches_read(struct hpcp_caches *c)
{
    memset(c, 0, sizeof *c);
    int llc_level = 0, llc_share = 1;
    uint64_t llc = 0;
    for (int i = 0; i < 16; i++) {
        char dir[128], level[16], type[32], size[32], shared[256] = "";
        snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu0/cache/index%d", i);
        if (read_line(dir, "level", level, sizeof level) ||
            read_line(dir, "type", type, sizeof type) || read_line(dir, "size", size, sizeof size))
            break;
        read_line(dir, "shared_cpu_list", shared, sizeof shared);
        int lv = 0;
        sscanf(level, "%d", &lv);
        uint64_t bytes = parse_cache_size(size);
        if (strcmp(type, "Instruction") == 0)
            continue;
        if (lv == 1)
            c->l1d = bytes;
        else if (lv == 2)
            c->l2 = bytes;
        else if (lv == 3)
            c->l3 = bytes;
        if (lv > llc_level)
            llc_level = lv, llc = bytes, llc_share = count_cpus(shared);
    }
    /* The node has (its CPUs / CPUs per last-level cache) such caches. */
    long online = 0;
    FILE *f = fopen("/sys/devices/system/cpu/online", "r");
    char buf[256];
    if (f && fgets(buf, sizeof buf, f))
        online = count_cpus(buf);
    if (f)
        fclose(f);
    int caches = llc_share > 0 && online >= llc_share ? (int)(online / llc_share) : 1;
    c->llc_per_node = llc * (uint64_t)caches;
}
