/* Plateaus of a latency curve: where the caches end. */
#include <math.h>

#include "hpcprobe/util.h"
#include "mem.h"

/* Where a plateau's run ends: points stay within `tol` of the median of
 * the run so far; one point outside followed by one inside is noise. */
static int run_end(const double *y, int n, int start, double tol)
{
    int end = start + 1;
    while (end < n) {
        double ref = hpcp_median(y + start, end - start);
        int in = fabs(y[end] - ref) <= tol * ref;
        int next_in = end + 1 < n && fabs(y[end + 1] - ref) <= tol * ref;
        if (!in && !next_in)
            break;
        end += in ? 1 : 2;
    }
    return end < n ? end : n;
}

/* The size where the curve leaves `level` on its way to `next`: the last
 * point (scanning back from `stop`) at most a tenth of the way up, then
 * interpolated in log x: past a cache of C bytes the hit rate falls from
 * 1 (at C) towards 0, so a tenth of the way up sits just past C. */
static double edge(const double *x, const double *y, int from, int stop, double level, double next)
{
    double thr = level + 0.1 * (next - level);
    int j = stop - 1;
    while (j > from && y[j] > thr)
        j--;
    if (y[j + 1] <= y[j])
        return x[j];
    double f = (thr - y[j]) / (y[j + 1] - y[j]);
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    return x[j] * pow(x[j + 1] / x[j], f);
}

int mem_find_plateaus(const double *x, const double *y, int n, double tolerance, int min_points,
                      double *size, double *level, int max_plateaus)
{
    int first[64], last[64], runs = 0;
    for (int start = 0; start < n && runs < 64;) {
        int end = run_end(y, n, start, tolerance);
        if (end - start >= min_points) {
            first[runs] = start, last[runs] = end - 1;
            level[runs < max_plateaus ? runs : max_plateaus - 1] =
                hpcp_median(y + start, end - start);
            runs++;
        }
        start = end;
    }
    if (runs > max_plateaus)
        runs = max_plateaus;
    for (int i = 0; i < runs; i++)
        size[i] =
            i + 1 < runs ? edge(x, y, first[i], first[i + 1], level[i], level[i + 1]) : x[last[i]];
    return runs;
}
