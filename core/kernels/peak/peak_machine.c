/* What the system states of its limits (peak.h): the DIMMs from SMBIOS type
 * 17 (Memory Device) entries, and the links' rates, from a sysfs tree. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpcprobe/util.h"
#include "peak.h"

/* Offsets in a type 17 structure (SMBIOS 3.x, DSP0134, 7.18). */
#define T17_DATA_WIDTH 0x0A
#define T17_SIZE 0x0C
#define T17_SPEED 0x15
#define T17_CONFIGURED_SPEED 0x20
#define T17_EXTENDED_SPEED 0x54
#define T17_EXTENDED_CONFIGURED_SPEED 0x58
#define T17_UNKNOWN16 0xFFFFu
#define RAW_MAX 512

static unsigned u16(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static unsigned long u32(const unsigned char *p)
{
    return (unsigned long)u16(p) | (unsigned long)u16(p + 2) << 16;
}

/* A speed in MT/s at `off`, its extension (0xFFFF: the DWORD at `ext`) where
 * the structure is long enough; 0 unknown. */
static double speed_at(const unsigned char *raw, size_t n, size_t off, size_t ext)
{
    if (n < off + 2)
        return 0;
    unsigned long s = u16(raw + off);
    if (s == T17_UNKNOWN16)
        s = n >= ext + 4 ? u32(raw + ext) & 0x7FFFFFFFul : 0;
    return (double)s * 1e6;
}

int peak_smbios17_parse(const unsigned char *raw, size_t len, struct peak_dimm *d)
{
    memset(d, 0, sizeof *d);
    if (len < 4 || raw[0] != 17 || raw[1] > len || raw[1] < T17_SIZE + 2)
        return -1;
    size_t n = raw[1]; /* the formatted part; strings follow */
    d->populated = u16(raw + T17_SIZE) != 0;
    unsigned width = u16(raw + T17_DATA_WIDTH);
    d->data_width_bits = width == T17_UNKNOWN16 ? 0 : (int)width;
    /* the speed the memory runs at, where stated; else the DIMM's own */
    d->speed = speed_at(raw, n, T17_CONFIGURED_SPEED, T17_EXTENDED_CONFIGURED_SPEED);
    if (d->speed == 0)
        d->speed = speed_at(raw, n, T17_SPEED, T17_EXTENDED_SPEED);
    return 0;
}

static int read_raw(const char *path, unsigned char *buf, size_t len, size_t *got)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    *got = fread(buf, 1, len, f);
    fclose(f);
    return 0;
}

/* Fold one entry in: the DIMMs populated, the slowest speed, the narrowest width. */
static void fold_dimm(struct peak_memory *m, const struct peak_dimm *d, int *unknown_speed,
                      int *unknown_width)
{
    if (!d->populated)
        return;
    m->devices++;
    if (d->speed <= 0)
        (*unknown_speed)++;
    else if (m->transfer_rate == 0 || d->speed < m->transfer_rate)
        m->transfer_rate = d->speed;
    if (d->data_width_bits <= 0)
        (*unknown_width)++;
    else if (m->data_width_bits == 0 || d->data_width_bits < m->data_width_bits)
        m->data_width_bits = d->data_width_bits;
}

static void memory_verdict(struct peak_memory *m, const char *dir, int entries, int unreadable,
                           int unknown_speed, int unknown_width)
{
    if (entries == 0)
        snprintf(m->source, sizeof m->source, "unknown: no SMBIOS type 17 entries under %.120s",
                 dir);
    else if (unreadable == entries)
        snprintf(m->source, sizeof m->source,
                 "unknown: %d SMBIOS type 17 entries, none readable (root only)", entries);
    else if (m->devices == 0)
        snprintf(m->source, sizeof m->source, "unknown: no populated DIMM among %d entries",
                 entries);
    else if (unknown_speed || unknown_width || unreadable)
        snprintf(m->source, sizeof m->source,
                 "unknown: of %d populated DIMMs, %d without a speed, %d without a width, "
                 "%d entries unreadable",
                 m->devices, unknown_speed, unknown_width, unreadable);
    else {
        m->bandwidth = m->devices * m->transfer_rate * m->data_width_bits / 8.0;
        snprintf(m->source, sizeof m->source,
                 "SMBIOS type 17: %d populated DIMMs x %.0f MT/s x %d bits, one DIMM per "
                 "channel assumed",
                 m->devices, m->transfer_rate * 1e-6, m->data_width_bits);
    }
}

void peak_memory_read(const char *root, struct peak_memory *m)
{
    char dir[300], path[600];
    unsigned char raw[RAW_MAX];
    memset(m, 0, sizeof *m);
    snprintf(dir, sizeof dir, "%s/firmware/dmi/entries", root);
    int entries = 0, unreadable = 0, unknown_speed = 0, unknown_width = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strncmp(e->d_name, "17-", 3) != 0)
            continue;
        entries++;
        size_t got = 0;
        struct peak_dimm dimm;
        snprintf(path, sizeof path, "%s/%s/raw", dir, e->d_name);
        if (read_raw(path, raw, sizeof raw, &got) || peak_smbios17_parse(raw, got, &dimm)) {
            unreadable++;
            continue;
        }
        fold_dimm(m, &dimm, &unknown_speed, &unknown_width);
    }
    if (d)
        closedir(d);
    memory_verdict(m, dir, entries, unreadable, unknown_speed, unknown_width);
}

double peak_ib_rate(const char *text)
{
    char *end;
    double gbit = strtod(text, &end);
    if (end == text || !(gbit > 0))
        return 0;
    while (*end == ' ')
        end++;
    return strncmp(end, "Gb/sec", 6) == 0 ? gbit * 1e9 / 8 : 0;
}

double peak_eth_rate(const char *text)
{
    char *end;
    long mbit = strtol(text, &end, 10);
    if (end == text || (*end && *end != '\n') || mbit <= 0)
        return 0;
    return (double)mbit * 1e6 / 8;
}

/* The link's name as a record key part: [A-Za-z0-9_], others '_'. */
static void add_link(struct peak_link *links, int *n, int max, const char *name, double rate)
{
    if (rate <= 0 || *n >= max)
        return;
    struct peak_link *l = &links[(*n)++];
    hpcp_copy_truncated(l->name, 38, name); /* "link_rate_" + name fits a key */
    for (char *c = l->name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
            *c = '_';
    l->rate = rate;
}

/* A virtual interface (bridge, veth, tunnel) carries nothing off the node. */
static int is_virtual(const char *root, const char *dir, const char *name)
{
    char path[600], target[600];
    struct stat st;
    snprintf(path, sizeof path, "%s/devices/virtual/net/%s", root, name);
    if (stat(path, &st) == 0)
        return 1;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ssize_t len = readlink(path, target, sizeof target - 1);
    if (len <= 0)
        return 0;
    target[len] = '\0';
    return strstr(target, "/virtual/") != NULL;
}

static void read_ethernet(const char *root, struct peak_link *links, int *n, int max)
{
    char dir[300], path[700], text[64];
    snprintf(dir, sizeof dir, "%s/class/net", root);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "lo") == 0 || is_virtual(root, dir, e->d_name))
            continue;
        snprintf(path, sizeof path, "%s/%s/speed", dir, e->d_name);
        if (hpcp_read_text(path, text, sizeof text) == 0)
            add_link(links, n, max, e->d_name, peak_eth_rate(text));
    }
    if (d)
        closedir(d);
}

static void read_ib_ports(const char *dir, const char *dev, struct peak_link *links, int *n,
                          int max)
{
    char ports[600], path[900], text[64], name[600];
    snprintf(ports, sizeof ports, "%s/%s/ports", dir, dev);
    DIR *d = opendir(ports);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/rate", ports, e->d_name);
        snprintf(name, sizeof name, "%s_port%s", dev, e->d_name);
        if (hpcp_read_text(path, text, sizeof text) == 0)
            add_link(links, n, max, name, peak_ib_rate(text));
    }
    if (d)
        closedir(d);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct peak_link *)a)->name, ((const struct peak_link *)b)->name);
}

int peak_links_read(const char *root, struct peak_link *links, int max)
{
    char dir[300];
    int n = 0;
    read_ethernet(root, links, &n, max);
    snprintf(dir, sizeof dir, "%s/class/infiniband", root);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.')
            read_ib_ports(dir, e->d_name, links, &n, max);
    if (d)
        closedir(d);
    qsort(links, (size_t)n, sizeof *links, by_name); /* the record's order, whatever readdir's */
    return n;
}
