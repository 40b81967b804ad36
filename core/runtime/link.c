/* The link limit (link.h): parsing HPCPROBE_LINK_LIMIT and judging a
 * measured inter-node stream against it. */
#include "hpcprobe/link.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/record.h"
#include "hpcprobe/util.h"

/* The line a failed check writes: what, the rate, the link's name and rate. */
#define EXCEEDED                                                                    \
    "%s: inter-node bandwidth %s is faster than the link it crossed (%s, %s): the " \
    "traffic did not cross the link (shared memory across namespaces?)"

/* The text of a decimal number, n characters: [-]D+[.D*][(e|E)[+-]D+]. */
static int is_decimal(const char *s, size_t n)
{
    size_t i = s[0] == '-';
    size_t digits = strspn(s + i, "0123456789");
    if (digits == 0)
        return 0;
    i += digits;
    if (i < n && s[i] == '.')
        i += 1 + strspn(s + i + 1, "0123456789");
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i += 1 + (s[i + 1] == '+' || s[i + 1] == '-');
        digits = strspn(s + i, "0123456789");
        if (digits == 0)
            return 0;
        i += digits;
    }
    return i == n;
}

/* The value for a message: printable, at most 40 characters, others '?'. */
static void quoted(char *out, size_t len, const char *text)
{
    size_t n = 0;
    for (; text[n] && n < 40 && n + 1 < len; n++)
        out[n] = text[n] >= 0x20 && text[n] <= 0x7e ? text[n] : '?';
    out[n] = '\0';
}

int hpcp_link_limit_parse(const char *text, struct hpcp_link_limit *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!text || !text[0])
        return 0;
    const char *space = strchr(text, ' ');
    size_t number = space ? (size_t)(space - text) : 0;
    const char *name = space ? space + 1 : "";
    size_t name_len = strlen(name);
    char num[64] = "";
    if (number > 0 && number < sizeof num)
        memcpy(num, text, number);
    double rate = num[0] && is_decimal(num, number) ? strtod(num, NULL) : NAN;
    if (!isfinite(rate) || !hpcp_is_name_token(name, HPCP_LINK_NAME_MAX)) {
        char shown[48];
        quoted(shown, sizeof shown, text);
        snprintf(err, errlen,
                 "'%s%s' is not '<bytes_per_s> <link name>' (a number, one space, a name of "
                 "1-%d of [A-Za-z0-9_.-]; e.g. '50000000 h0-fabric')",
                 shown, strlen(text) > 40 ? "..." : "", HPCP_LINK_NAME_MAX);
        return -1;
    }
    if (rate <= 0)
        return 0; /* a link the launcher knows no rate of: nothing to judge against */
    out->bytes_per_s = rate;
    memcpy(out->name, name, name_len + 1);
    return 1;
}

int hpcp_link_exceeded(const struct hpcp_link_limit *l, double bytes_per_s, double stream_bytes)
{
    return l && l->bytes_per_s > 0 && stream_bytes >= HPCP_LINK_MIN_BYTES &&
           bytes_per_s > HPCP_LINK_MARGIN * l->bytes_per_s;
}

int hpcp_link_check(struct hpcp_record *r, const struct hpcp_link_limit *l, const char *what,
                    double bytes_per_s, double stream_bytes)
{
    if (!hpcp_link_exceeded(l, bytes_per_s, stream_bytes))
        return 0;
    char seen[32], limit[32];
    hpcp_format_rate(bytes_per_s, seen, sizeof seen);
    hpcp_format_rate(l->bytes_per_s, limit, sizeof limit);
    r->validation.verdict = HPCP_FAILED;
    if (!r->validation.detail[0]) /* a wrong-data detail says more: it stays */
        hpcp_record_validation_detail(r, EXCEEDED, what, seen, l->name, limit);
    hpcp_record_note(r, EXCEEDED, what, seen, l->name, limit);
    return 1;
}

const char *hpcp_format_rate(double bytes_per_s, char *buf, size_t len)
{
    static const char *const units[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
    int u = 0;
    while (fabs(bytes_per_s) >= 1000.0 && u < 4) {
        bytes_per_s /= 1000.0;
        u++;
    }
    snprintf(buf, len, "%.3g %s", bytes_per_s, units[u]);
    return buf;
}
