/* HPCPROBE_LINK_LIMIT (docs/cluster.md): the fastest shaped link that traffic
 * between nodes can cross, and the check that fails a record whose
 * inter-node bandwidth could not have crossed it. Parsed once, in
 * hpcp_sysinfo_collect; used by every family that measures between nodes. */
#ifndef HPCPROBE_LINK_H
#define HPCPROBE_LINK_H
#include <stddef.h>

#define HPCP_LINK_LIMIT_ENV "HPCPROBE_LINK_LIMIT"
#define HPCP_LINK_NAME_MAX 64
/* A stream faster than this multiple of the limit did not cross the link
 * (the shaper's own rounding and TCP's headers stay well inside 10 %). */
#define HPCP_LINK_MARGIN 1.10
/* Streams of fewer bytes are not judged: a token-bucket shaper (tc htb) lets
 * about one packet through at memory speed whatever its rate, and with TSO a
 * packet is up to 64 KiB; against 1 MiB that stays inside the margin. */
#define HPCP_LINK_MIN_BYTES ((double)(1 << 20))

struct hpcp_link_limit {
    double bytes_per_s;                 /* 0: no limit known */
    char name[HPCP_LINK_NAME_MAX + 1];  /* the link's name, as the cluster calls it */
};

/* Parse "<bytes_per_s> <link name>": a decimal number (digits, optional
 * fraction and exponent, optional '-'), exactly one space, and a name of
 * 1-64 characters of [A-Za-z0-9_.-]. Returns 1 with *out set; 0 for no limit
 * (NULL or "" text, or a rate <= 0: *out zeroed); -1 when malformed, with
 * the reason in err (*out zeroed). */
int hpcp_link_limit_parse(const char *text, struct hpcp_link_limit *out, char *err, size_t errlen);

/* 1 when a stream of `stream_bytes` between two nodes at `bytes_per_s`
 * cannot have crossed the limit's link: a limit is known, the stream is long
 * enough to judge (HPCP_LINK_MIN_BYTES) and its rate is above the margin. */
int hpcp_link_exceeded(const struct hpcp_link_limit *l, double bytes_per_s, double stream_bytes);

struct hpcp_record;
/* When hpcp_link_exceeded: fail r's validation (call it after the family's
 * own validation), with a line naming `what` (e.g. "pairs, rank 0 to 2"),
 * the figures and the link, in validation.detail (unless it already says
 * something) and in the notes. Returns 1 when it failed r, else 0. */
int hpcp_link_check(struct hpcp_record *r, const struct hpcp_link_limit *l, const char *what,
                    double bytes_per_s, double stream_bytes);

/* "7.9 GB/s", "50 MB/s", "1 kB/s": decimal units, 2-3 significant digits. */
const char *hpcp_format_rate(double bytes_per_s, char *buf, size_t len);

#endif
