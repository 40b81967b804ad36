/* Small helpers shared by the runtime and the kernels. */
#ifndef HPCPROBE_UTIL_H
#define HPCPROBE_UTIL_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "hpcprobe/options.h" /* hpcp_parse_bytes, once declared here */

/* Exit statuses of hpcprobe-bench (docs/cli.md). */
/* HPCP_EXIT_IO: the record could not be written (a full disk, a quota): what was
 * measured is lost, which a script must tell from a failed measurement. */
enum {
    HPCP_EXIT_OK = 0,
    HPCP_EXIT_VALIDATION = 1,
    HPCP_EXIT_USAGE = 2,
    HPCP_EXIT_RUNTIME = 3,
    HPCP_EXIT_IO = 4
};

/* Print one error line on rank 0 only: "hpcprobe-bench: <msg>". */
void hpcp_error(MPI_Comm comm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* 1 on every rank if `flag` is nonzero on any rank. */
int hpcp_any(MPI_Comm comm, int flag);

/* Barrier that sleeps between polls, so ranks that only wait do not take
 * the core from a rank that is being measured (oversubscribed runs). */
void hpcp_idle_barrier(MPI_Comm comm);
/* Complete n requests, testing and sleeping nap_ns between tests: a waiting rank
 * that must leave its core to ranks being measured on it. */
void hpcp_wait_asleep(int n, MPI_Request *req, long nap_ns);

/* UTC time as ISO 8601 ("2026-11-21T10:13:30.123Z") into buf (>= 32 bytes). */
void hpcp_iso_time(char *buf, size_t len);

/* Median of n doubles (copied, input untouched); NaN when n == 0. */
double hpcp_median(const double *v, int n);
/* The q-quantile (0 <= q <= 1) of n doubles, interpolating linearly between
 * the sorted values (numpy's default); NaN when n == 0. */
double hpcp_percentile(const double *v, int n, double q);

/* Bytes of memory on this node: MemTotal or MemAvailable from /proc/meminfo
 * (key "MemTotal:" / "MemAvailable:"), 0 if unknown. */
uint64_t hpcp_meminfo_bytes(const char *key);

/* A small text file (sysfs) into buf, at most len - 1 bytes, without its
 * trailing newline; 0, or -1 when it cannot be read. */
int hpcp_read_text(const char *path, char *buf, size_t len);

/* Collective: 0 when rank 0 can append to `path` (NULL: nothing to check),
 * else -1 with one line in err, so a run never measures what it cannot keep. */
int hpcp_check_writable(MPI_Comm comm, const char *path, const char *option, char *err,
                        size_t errlen);


/* Copy the string src into dst (len bytes), cut short where it does not fit and always
 * terminated: for strings whose truncation is expected (a long host name, a sysfs
 * line), said once here rather than with snprintf("%s"), which -Wformat-truncation
 * flags at -O2 under the sanitizers. */
void hpcp_copy_truncated(char *dst, size_t len, const char *src);

/* 1 when `text` is 1..max_len characters of [A-Za-z0-9_.-]: the names the
 * environment may put into a record (launch id, cluster, link), nothing else. */
int hpcp_is_name_token(const char *text, size_t max_len);

/* Human-readable power-of-two size ("512.0 MiB") into buf. */
const char *hpcp_format_bytes(double bytes, char *buf, size_t len);

#endif
