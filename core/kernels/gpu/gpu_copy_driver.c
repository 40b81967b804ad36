/* `hpcprobe-bench gpu copy`: copies between the host and a device (pinned and pageable
 * host memory), within the device and to a peer device, over a sweep of sizes from 8 B
 * by x4 to --max-bytes, each size timed with device events and its data checked on
 * arrival. One rank; one record per kind and host memory. docs/kernels/gpu.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_drv.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/util.h"

enum { OPT_KINDS, OPT_HOST, OPT_DEVICE, OPT_PEER, OPT_MAX_BYTES, OPT_COUNT };

static const struct hpcp_optspec copy_spec[OPT_COUNT] = {
    [OPT_KINDS] = {"--kinds", HPCP_OPT_LIST, 1, 0, 0, 0, 0, "h2d|d2h|d2d|p2p", GPU_COPY_KINDS,
                   "the copies, a comma list of h2d, d2h, d2d, p2p (p2p needs a peer the device "
                   "can reach directly; default h2d, d2h, d2d, and p2p where possible)",
                   NULL},
    [OPT_HOST] = {"--host-memory", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "pinned|pageable|both", 0,
                  "host buffers page-locked, pageable, or each", "both"},
    [OPT_DEVICE] = {"--device", HPCP_OPT_INT, 0, 1023, 0, 0, 0, NULL, 0,
                    "the device every rank drives (default node-local rank mod devices)", NULL},
    [OPT_PEER] = {"--peer", HPCP_OPT_INT, 0, 1023, 0, 0, 0, NULL, 0,
                  "the other device of p2p (default the next device)", NULL},
    [OPT_MAX_BYTES] = {"--max-bytes", HPCP_OPT_BYTES, 8, 1LL << 40, 0, 0, 0, NULL, 0,
                       "the largest copy, at least 8; sizes from 8 B, x 4, and this one (default "
                       "1G, less where memory is short)",
                       NULL},
};

static const struct hpcp_cli copy_cli = {
    copy_spec,
    OPT_COUNT,
    HPCP_TAKES(HPCP_COMMON_REPEAT) | HPCP_TAKES(HPCP_COMMON_OUT) | HPCP_TAKES(HPCP_COMMON_QUIET),
    0,
    5,
    0,
    0,
    NULL};

#define MAX_SIZES 40
#define HOST_PINNED 1
#define HOST_PAGEABLE 2
#define DEFAULT_MAX_BYTES (1ULL << 30)

struct gcopy {
    struct hpcp_common run;
    struct gpu_device_use dev;
    unsigned kinds;       /* 1 << gpu_copy_kind */
    int kinds_given, host, requested, peer, peer_given;
    uint64_t max_bytes;   /* 0 until sized */
    uint64_t sizes[MAX_SIZES];
    int nsizes;
};

/* What one (kind, host memory) sweep measured: seconds point-major, repetition-minor
 * (b->state of its harness run). */
struct sweep {
    const struct gcopy *c;
    enum gpu_copy_kind kind;
    int pinned;
    double *seconds, *bw;
    int not_intact;
    int point, intact; /* the size being measured; whether its data arrived intact */
    int spoil;         /* test hook (corrupt:N): count one size as changed */
};

/* The kinds given (already checked by the option's list grammar) as bits: the
 * choices are named in enum gpu_copy_kind's order. */
static unsigned kind_bits(const struct hpcp_optspec *o, const char *text)
{
    int items[GPU_COPY_KINDS], n = 0;
    unsigned kinds = 0;
    if (hpcp_parse_list(o, text, items, &n, NULL, 0) == 0)
        for (int i = 0; i < n; i++)
            kinds |= 1u << items[i];
    return kinds;
}

static int parse(struct gcopy *c, int argc, char **argv)
{
    struct hpcp_optval v[OPT_COUNT];
    int rc = gpu_parse(&copy_cli, "gpu copy", argc, argv, v, &c->run);
    if (rc)
        return rc;
    const char *host = v[OPT_HOST].set ? v[OPT_HOST].s : "both";
    c->host = !strcmp(host, "pinned")     ? HOST_PINNED
              : !strcmp(host, "pageable") ? HOST_PAGEABLE
                                          : HOST_PINNED | HOST_PAGEABLE;
    c->requested = v[OPT_DEVICE].set ? (int)v[OPT_DEVICE].i : -1;
    c->peer_given = v[OPT_PEER].set;
    c->peer = c->peer_given ? (int)v[OPT_PEER].i : -1;
    c->kinds_given = v[OPT_KINDS].set;
    if (c->kinds_given)
        c->kinds = kind_bits(&copy_spec[OPT_KINDS], v[OPT_KINDS].s);
    if (v[OPT_MAX_BYTES].set)
        c->max_bytes = (uint64_t)v[OPT_MAX_BYTES].i;
    return 0;
}

/* The peer and the kinds that apply: p2p where a second device can be reached
 * directly; asked for where it cannot, a refusal. 0 or -1 with one line in why. */
static int choose_kinds(struct gcopy *c, char *why, size_t len)
{
    int count = c->dev.count, dev = c->dev.device;
    if (c->peer_given && (c->peer >= count || c->peer == dev)) {
        snprintf(why, len,
                 "gpu copy: --peer %d is not allowed (another device than %d, from 0 "
                 "to %d; this node has %d)",
                 c->peer, dev, count - 1, count);
        return -1;
    }
    if (!c->peer_given && count > 1)
        c->peer = (dev + 1) % count;
    int p2p = count > 1 && gpu_peer_access(dev, c->peer);
    if (c->kinds_given && (c->kinds & (1u << GPU_COPY_P2P)) && !p2p) {
        if (count < 2)
            snprintf(why, len, "gpu copy: --kinds p2p needs two devices (this node has %d)", count);
        else
            snprintf(why, len,
                     "gpu copy: --kinds p2p: device %d cannot access device %d "
                     "directly (no peer access)",
                     dev, c->peer);
        return -1;
    }
    if (!c->kinds_given)
        c->kinds = (1u << GPU_COPY_H2D) | (1u << GPU_COPY_D2H) | (1u << GPU_COPY_D2D) |
                   (p2p ? 1u << GPU_COPY_P2P : 0);
    return 0;
}

/* --max-bytes against the device (two buffers of it for d2d) and the host (the two
 * host buffers), or its default; then the sizes: 8 B by x4, and the largest itself. */
static int choose_sizes(struct gcopy *c, const struct hpcp_sysinfo *si, char *why, size_t len)
{
    double free_bytes = (double)c->dev.info.memory_free_bytes;
    double host = (double)si->memory_available_min_node;
    char a[32], b[32], h[32];
    if (!c->max_bytes)
        c->max_bytes =
            DEFAULT_MAX_BYTES < free_bytes / 4 ? DEFAULT_MAX_BYTES : (uint64_t)(free_bytes / 4);
    if (c->max_bytes < 8 || 2.0 * (double)c->max_bytes > free_bytes ||
        (host > 0 && 4.0 * (double)c->max_bytes > host)) {
        snprintf(why, len,
                 "gpu copy: --max-bytes %s: two buffers of it do not fit in the "
                 "free memory of device %d (%s) or half of the host's available memory (%s)",
                 hpcp_format_bytes((double)c->max_bytes, a, sizeof a), c->dev.device,
                 hpcp_format_bytes(free_bytes, b, sizeof b), hpcp_format_bytes(host, h, sizeof h));
        return -1;
    }
    c->nsizes = 0;
    for (uint64_t s = 8; s <= c->max_bytes && c->nsizes < MAX_SIZES - 1; s *= 4)
        c->sizes[c->nsizes++] = s;
    if (c->sizes[c->nsizes - 1] != c->max_bytes)
        c->sizes[c->nsizes++] = c->max_bytes;
    return 0;
}

static const char *host_memory(const struct sweep *w)
{
    if (w->kind == GPU_COPY_D2D || w->kind == GPU_COPY_P2P)
        return "device";
    return w->pinned ? "pinned" : "pageable";
}

/* The curves: per size, the median bandwidth and the shortest time, with the samples. */
static void add_series(struct hpcp_record *r, const struct gcopy *c, const struct sweep *w,
                       double *bw)
{
    int reps = c->run.repeat, n = c->nsizes;
    double x[MAX_SIZES], ybw[MAX_SIZES], yt[MAX_SIZES];
    for (int i = 0; i < n; i++) {
        const double *t = w->seconds + (size_t)i * reps;
        x[i] = (double)c->sizes[i];
        yt[i] = t[0];
        for (int k = 0; k < reps; k++) {
            bw[(size_t)i * reps + k] = gpu_copy_counted_bytes(w->kind, c->sizes[i]) / t[k];
            yt[i] = fmin(yt[i], t[k]);
        }
        ybw[i] = hpcp_median(bw + (size_t)i * reps, reps);
    }
    struct hpcp_series *s =
        hpcp_record_series(r, "bandwidth", "bytes", "B", "B/s", "median", x, ybw, n);
    if (s)
        hpcp_record_series_samples(s, bw, reps);
    s = hpcp_record_series(r, "time", "bytes", "B", "s", "min", x, yt, n);
    if (s)
        hpcp_record_series_samples(s, w->seconds, reps);
}

static void build_record(struct hpcp_record *r, const struct gcopy *c, const struct sweep *w,
                         const struct hpcp_sysinfo *si, double *bw)
{
    int reps = c->run.repeat, last = c->nsizes - 1;
    hpcp_record_init(r, "gpu", "copy", gpu_copy_kind_name(w->kind), si);
    hpcp_record_param_string(r, "host_memory", host_memory(w));
    hpcp_record_param_int(r, "peer", w->kind == GPU_COPY_P2P ? c->peer : -1);
    hpcp_record_param_int(r, "max_bytes", (long long)c->max_bytes);
    hpcp_record_param_int(r, "sizes", c->nsizes);
    gpu_record_device(r, &c->dev, 1);
    add_series(r, c, w, bw);
    hpcp_record_metric(r, "bandwidth", "B/s", bw + (size_t)last * reps, reps, 1);
    hpcp_record_metric(r, "latency", "s", w->seconds, reps, 0);
    r->headline_metric = "bandwidth";
    r->headline_statistic = "median";
    double error = w->not_intact;
    hpcp_record_validation(r,
                           "each size's data read back after its copies and compared with "
                           "what was sent; error = sizes not intact",
                           "1", &error, 1, 0);
    if (w->not_intact)
        hpcp_record_validation_detail(r, "%d of %d sizes arrived changed", w->not_intact,
                                      c->nsizes);
}

static void print_summary(const struct hpcp_record *r, const struct gcopy *c, const struct sweep *w)
{
    char size[32];
    const struct hpcp_metric *bw = &r->metrics[0], *lat = &r->metrics[1];
    printf("gpu copy %s %s: 8 B to %s: %.2f GB/s at the largest (median), %.2f us at 8 B "
           "(median), validation %s\n",
           gpu_copy_kind_name(w->kind), host_memory(w),
           hpcp_format_bytes((double)c->max_bytes, size, sizeof size),
           hpcp_median(bw->samples, bw->nsamples) * 1e-9,
           hpcp_median(lat->samples, lat->nsamples) * 1e6,
           hpcp_verdict_word(r->validation.verdict));
    fflush(stdout);
}

static int copy_setup(struct hpcp_bench *b)
{
    struct sweep *w = b->state;
    size_t n = (size_t)w->c->nsizes * (size_t)w->c->run.repeat;
    w->bw = malloc(n * sizeof *w->bw);
    w->seconds = malloc(n * sizeof *w->seconds);
    return w->bw && w->seconds ? 0 : HPCP_EXIT_RUNTIME;
}

static void copy_setup_failed(struct hpcp_bench *b)
{
    hpcp_error(b->comm, "gpu copy: out of memory for the timings");
}

static int copy_points(struct hpcp_bench *b)
{
    return ((struct sweep *)b->state)->c->nsizes;
}

static int copy_point(struct hpcp_bench *b, int i)
{
    ((struct sweep *)b->state)->point = i;
    return 0;
}

/* One size: --repeat timed copies (gpu_copy_time makes one untimed copy
 * first), its data then read back and compared with what was sent. */
static int copy_run(struct hpcp_bench *b, double *seconds)
{
    struct sweep *w = b->state;
    const struct gcopy *c = w->c;
    int reps = c->run.repeat, peer = w->kind == GPU_COPY_P2P ? c->peer : -1;
    char why[512] = "";
    double *t = w->seconds + (size_t)w->point * reps;
    w->intact = 0;
    if (gpu_copy_time(w->kind, w->pinned, c->dev.device, peer, c->sizes[w->point], reps, t,
                      &w->intact, why, sizeof why)) {
        hpcp_error(b->comm, "gpu copy %s: %s", gpu_copy_kind_name(w->kind), why);
        return HPCP_EXIT_RUNTIME;
    }
    *seconds = t[reps - 1];
    return 0;
}

/* What the comparison after the size's copies found: error 1 if changed. */
static int copy_verify(struct hpcp_bench *b, double *error)
{
    struct sweep *w = b->state;
    w->not_intact += !w->intact;
    *error = !w->intact;
    return 0;
}

static void copy_teardown(struct hpcp_bench *b)
{
    struct sweep *w = b->state;
    free(w->bw), free(w->seconds);
    w->bw = w->seconds = NULL;
}

static void copy_corrupt(struct hpcp_bench *b, uint64_t words)
{
    struct sweep *w = b->state;
    (void)words;
    w->not_intact += w->spoil;
}

static void copy_record(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v)
{
    struct sweep *w = b->state;
    (void)v; /* w->not_intact: the sizes that arrived changed */
    build_record(r, w->c, w, b->si, w->bw);
}

static void copy_print(const struct hpcp_record *r, struct hpcp_bench *b)
{
    struct sweep *w = b->state;
    if (r->nmetrics == 2)
        print_summary(r, w->c, w);
}

static const struct hpcp_family_hooks copy_hooks = {.setup_failed = copy_setup_failed,
                                                    .corrupt = copy_corrupt,
                                                    .points = copy_points,
                                                    .point = copy_point,
                                                    .record = copy_record,
                                                    .print = copy_print};

/* Every (kind, host memory) asked for; a failed validation does not stop the others,
 * a failure to measure or to write does. The first failure's status is returned. */
static int run_sweeps(const struct hpcp_kernel *kernel, const struct gcopy *c,
                      const struct hpcp_sysinfo *si)
{
    int rc = 0, first = 1;
    /* --repeat is gpu_copy_time's: each size is one harness repetition */
    struct hpcp_common once = c->run;
    once.repeat = 1, once.warmup = 0, once.verify = 1;
    for (int k = 0; k < GPU_COPY_KINDS; k++) {
        int host = k == GPU_COPY_H2D || k == GPU_COPY_D2H;
        for (int pinned = 1; (c->kinds & (1u << k)) && pinned >= 0; pinned--) {
            if (host && !(c->host & (pinned ? HOST_PINNED : HOST_PAGEABLE)))
                continue;
            if (!host && !pinned)
                break;
            struct sweep w = {c, (enum gpu_copy_kind)k, pinned, NULL, NULL, 0, 0, 0, first};
            first = 0;
            struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, &w, kernel};
            int status = hpcp_harness_run(kernel, &b, &once, &copy_hooks);
            rc = rc ? rc : status;
            if (status && status != HPCP_EXIT_VALIDATION)
                return rc;
        }
    }
    return rc;
}

static int copy_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                       char **argv)
{
    struct gcopy c;
    char why[512] = "";
    memset(&c, 0, sizeof c);
    int rc = parse(&c, argc, argv);
    if (rc)
        return rc;
    if (si->ranks > 1) {
        hpcp_error(MPI_COMM_WORLD, "gpu copy runs on one rank (%d were launched; allowed: 1)",
                   si->ranks);
        return HPCP_EXIT_USAGE;
    }
    if ((rc = gpu_device_prepare(si, "gpu copy", c.requested, &c.dev)))
        return rc;
    if (choose_kinds(&c, why, sizeof why) || choose_sizes(&c, si, why, sizeof why)) {
        hpcp_error(MPI_COMM_WORLD, "%s", why);
        return HPCP_EXIT_USAGE;
    }
    if (!c.run.quiet) {
        char dev[192], size[32];
        printf("gpu copy: %s, %d sizes from 8 B to %s, %d repetition(s) each\n",
               gpu_device_text(&c.dev, dev, sizeof dev), c.nsizes,
               hpcp_format_bytes((double)c.max_bytes, size, sizeof size), c.run.repeat);
        fflush(stdout);
    }
    return run_sweeps(k, &c, si);
}

static const struct hpcp_options_desc copy_options = {&copy_cli, NULL};
static const struct hpcp_metric_desc copy_metrics[] = {
    {"bandwidth", "B/s", "bytes per second of the largest copy, per repetition"},
    {"latency", "s", "seconds of the smallest copy, per repetition"},
    {NULL, NULL, NULL}};
static const struct hpcp_records_desc copy_records = {copy_metrics, "bandwidth"};

const struct hpcp_kernel hpcp_gpu_copy = {
    "gpu",
    "copy",
    "all",
    "host-device, device-device and peer copies over sizes from 8 B (cudaMemcpy, events)",
    copy_driver,
    copy_setup,
    copy_run,
    copy_verify,
    copy_teardown,
    NULL,
    &copy_options,
    &copy_records};
