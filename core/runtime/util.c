/* Small shared helpers (util.h). */
#include "hpcprobe/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void hpcp_error(MPI_Comm comm, const char *fmt, ...)
{
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank != 0)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "hpcprobe-bench: %s\n", msg);
    fflush(stderr);
}

int hpcp_any(MPI_Comm comm, int flag)
{
    int in = flag != 0, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, comm);
    return out;
}

void hpcp_wait_asleep(int n, MPI_Request *req, long nap_ns)
{
    int done = 0;
    MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
    while (!done) {
        struct timespec nap = {0, nap_ns};
        nanosleep(&nap, NULL);
        MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
    }
}

void hpcp_idle_barrier(MPI_Comm comm)
{
    MPI_Request req;
    MPI_Ibarrier(comm, &req);
    hpcp_wait_asleep(1, &req, 200000); /* 0.2 ms: cheap, and never on the timed path */
}

void hpcp_iso_time(char *buf, size_t len)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    char base[24];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, len, "%s.%03ldZ", base, ts.tv_nsec / 1000000L);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double hpcp_percentile(const double *v, int n, double q)
{
    if (n <= 0)
        return NAN;
    double *c = malloc((size_t)n * sizeof *c);
    if (!c)
        return NAN;
    memcpy(c, v, (size_t)n * sizeof *c);
    qsort(c, (size_t)n, sizeof *c, cmp_double);
    double at = q * (n - 1);
    int lo = (int)floor(at), hi = lo + 1 < n ? lo + 1 : lo;
    double p = c[lo] + (at - lo) * (c[hi] - c[lo]);
    free(c);
    return p;
}

double hpcp_median(const double *v, int n)
{
    return hpcp_percentile(v, n, 0.5); /* odd n: the middle; even n: the mean of the two */
}

uint64_t hpcp_meminfo_bytes(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kib = 0;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && sscanf(line + n, "%llu", &kib) == 1)
            break;
    fclose(f);
    return (uint64_t)kib * 1024u;
}

int hpcp_read_text(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f || len == 0) {
        if (f)
            fclose(f);
        return -1;
    }
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

const char *hpcp_format_bytes(double bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 6) {
        bytes /= 1024.0;
        u++;
    }
    snprintf(buf, len, "%.1f %s", bytes, units[u]);
    return buf;
}

int hpcp_check_writable(MPI_Comm comm, const char *path, const char *option, char *err,
                        size_t errlen)
{
    int rank, code = 0;
    MPI_Comm_rank(comm, &rank);
    if (!path)
        return 0;
    if (rank == 0) {
        int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        code = fd < 0 ? errno : 0;
        if (fd >= 0)
            close(fd);
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, comm);
    if (code)
        snprintf(err, errlen, "%s %s: cannot append to it (%s)", option, path, strerror(code));
    return code ? -1 : 0;
}

void hpcp_copy_truncated(char *dst, size_t len, const char *src)
{
    if (len == 0)
        return;
    size_t n = strnlen(src, len - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

int hpcp_is_name_token(const char *text, size_t max_len)
{
    size_t n = strlen(text);
    return n > 0 && n <= max_len &&
           strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}
