/* Cache sizes from sysfs (/sys/devices/system/cpu/cpu0/cache/index*): in the
 * runtime, because mem sizes its buffers by them and comm its off-cache rotation. */
#include <stdio.h>
#include <string.h>

#include "hpcprobe/caches.h"
#include "hpcprobe/util.h"

static int read_line(const char *dir, const char *name, char *buf, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return hpcp_read_text(path, buf, len);
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

int hpcp_cache_levels(struct hpcp_cache_level *out, int max)
{
    int n = 0;
    for (int i = 0; i < 16 && n < max; i++) {
        char dir[128], level[16], type[32], size[32], shared[256] = "";
        snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu0/cache/index%d", i);
        if (read_line(dir, "level", level, sizeof level) ||
            read_line(dir, "type", type, sizeof type) || read_line(dir, "size", size, sizeof size))
            break;
        if (strcmp(type, "Instruction") == 0)
            continue;
        read_line(dir, "shared_cpu_list", shared, sizeof shared);
        int lv = 0, by = count_cpus(shared);
        sscanf(level, "%d", &lv);
        out[n++] = (struct hpcp_cache_level){lv, parse_cache_size(size), by > 0 ? by : 1};
    }
    return n;
}

static int count_file(const char *path)
{
    char buf[256];
    return hpcp_read_text(path, buf, sizeof buf) ? 0 : count_cpus(buf);
}

int hpcp_cpus_online(void)
{
    return count_file("/sys/devices/system/cpu/online");
}

void hpcp_caches_read(struct hpcp_caches *c)
{
    struct hpcp_cache_level lv[8];
    int n = hpcp_cache_levels(lv, 8);
    memset(c, 0, sizeof *c);
    for (int i = 0; i < n; i++) {
        uint64_t *slot = lv[i].level == 1   ? &c->l1d
                         : lv[i].level == 2 ? &c->l2
                         : lv[i].level == 3 ? &c->l3
                                            : NULL;
        if (slot)
            *slot = lv[i].bytes;
    }
    if (n == 0)
        return;
    /* The node has (its CPUs / CPUs per last-level cache) such caches. */
    const struct hpcp_cache_level *llc = &lv[n - 1];
    int online = hpcp_cpus_online();
    int caches = online >= llc->shared_by ? online / llc->shared_by : 1;
    c->llc_per_node = llc->bytes * (uint64_t)caches;
}
