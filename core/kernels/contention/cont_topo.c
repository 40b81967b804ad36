/* Topology: parsing and hop distances (cont_topo.h). No MPI here. */
#include "cont_topo.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cont_parse_dims(const char *text, int *dims, int *nd, char *err, size_t errlen)
{
    const char *p = text;
    long long positions = 1;
    *nd = 0;
    while (*p) {
        char *end;
        errno = 0;
        long v = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : 0;
        if (v < 1 || v > 1000000 || errno || *nd == CONT_MAX_DIMS || (*end && *end != 'x') ||
            (*end == 'x' && !end[1]))
            break;
        dims[(*nd)++] = (int)v;
        positions *= v;
        p = *end ? end + 1 : end;
        if (positions > CONT_MAX_POSITIONS) {
            snprintf(err, errlen,
                     "dims %s have more than %d positions (allowed: at most %d "
                     "nodes in the grid)",
                     text, CONT_MAX_POSITIONS, CONT_MAX_POSITIONS);
            return -1;
        }
    }
    if (*p || *nd == 0) {
        snprintf(err, errlen,
                 "dims '%s' are malformed (allowed: 1 to %d sizes >= 1 joined by "
                 "'x', such as 8x8x16)",
                 text, CONT_MAX_DIMS);
        return -1;
    }
    return 0;
}

int cont_parse_wrap(const char *text, int nd, int *wrap, char *err, size_t errlen)
{
    int k = 0;
    const char *p = text;
    while (k < nd && (*p == '0' || *p == '1') && (p[1] == ',' || p[1] == '\0')) {
        wrap[k++] = *p == '1';
        p += p[1] ? 2 : 1;
    }
    if (k != nd || *p || (p > text && p[-1] == ',')) {
        snprintf(err, errlen,
                 "--wrap '%s' is not allowed (one 0 or 1 per dimension, %d here, "
                 "such as 1,1,0)",
                 text, nd);
        return -1;
    }
    return 0;
}

void cont_grid_steps(const int *dims, const int *wrap, int nd, const int *a, const int *b,
                     int *steps)
{
    for (int k = 0; k < nd; k++) {
        int d = b[k] - a[k];
        if (wrap[k] && dims[k] > 2) {
            int forward = ((d % dims[k]) + dims[k]) % dims[k];
            d = forward <= dims[k] / 2 ? forward : forward - dims[k];
        }
        steps[k] = d;
    }
}

int cont_grid_hops(const int *dims, const int *wrap, int nd, const int *a, const int *b)
{
    int steps[CONT_MAX_DIMS], hops = 0;
    cont_grid_steps(dims, wrap, nd, a, b, steps);
    for (int k = 0; k < nd; k++)
        hops += abs(steps[k]);
    return hops;
}

int cont_tree_hops(int levels, const int *a, const int *b)
{
    int common = 0;
    while (common < levels && a[common] == b[common])
        common++;
    return 2 * (levels - common + 1); /* differing top switches meet at an implied root */
}

int cont_hops(const struct cont_topo *t, int rank_a, int rank_b)
{
    int na = t->rank_node[rank_a], nb = t->rank_node[rank_b];
    if (na == nb)
        return 0;
    const int *ca = t->node_coord + (size_t)na * t->ndims;
    const int *cb = t->node_coord + (size_t)nb * t->ndims;
    if (t->kind == CONT_GRID)
        return cont_grid_hops(t->dims, t->wrap, t->ndims, ca, cb);
    if (t->kind == CONT_TREE)
        return cont_tree_hops(t->ndims, ca, cb);
    return 2;
}

void cont_rowmajor(const int *dims, int nd, long long n, int *coords)
{
    for (int k = nd - 1; k >= 0; k--) {
        coords[k] = (int)(n % dims[k]);
        n /= dims[k];
    }
}

/* Integers of one CSV line into v (at most max); -1 when a field is not one. */
static int csv_fields(const char *line, long long *v, int max)
{
    int n = 0;
    const char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        char *end;
        errno = 0;
        long long x = strtoll(p, &end, 10);
        if (end == p || errno || n == max)
            return -1;
        v[n++] = x;
        while (*end == ' ' || *end == '\t' || *end == '\r')
            end++;
        if (*end == '\0')
            return n;
        if (*end != ',')
            return -1;
        p = end + 1;
    }
}

static int csv_line(const char *line, int lineno, int ranks, int *nd, int *coords, char *seen,
                    char *err, size_t errlen)
{
    long long v[CONT_MAX_DIMS + 1];
    int n = csv_fields(line, v, CONT_MAX_DIMS + 1);
    if (n < 2 || (*nd && n != *nd + 1)) {
        snprintf(err, errlen,
                 "--coords line %d: '%.60s' is not 'rank,x[,y,...]' with %s "
                 "coordinates",
                 lineno, line, *nd ? "the same number of" : "1 to 8");
        return -1;
    }
    *nd = n - 1;
    if (v[0] < 0 || v[0] >= ranks || seen[v[0]]) {
        snprintf(err, errlen, "--coords line %d: rank %lld %s (allowed: each rank 0..%d once)",
                 lineno, v[0], v[0] < 0 || v[0] >= ranks ? "is not in this run" : "appears twice",
                 ranks - 1);
        return -1;
    }
    for (int k = 0; k < *nd; k++) {
        if (v[k + 1] < 0 || v[k + 1] >= CONT_MAX_POSITIONS) {
            snprintf(err, errlen,
                     "--coords line %d: coordinate %lld of rank %lld is negative "
                     "or too large",
                     lineno, v[k + 1], v[0]);
            return -1;
        }
        coords[v[0] * *nd + k] = (int)v[k + 1];
    }
    seen[v[0]] = 1;
    return 0;
}

int cont_csv_parse(const char *text, int ranks, int *nd, int *coords, char *err, size_t errlen)
{
    char *seen = calloc((size_t)ranks, 1), line[512];
    int lineno = 0, rc = seen ? 0 : -1, data = 0;
    for (const char *p = text; rc == 0 && *p;) {
        size_t len = strcspn(p, "\n");
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
        p += len + (p[len] == '\n');
        lineno++;
        line[strcspn(line, "#\r")] = '\0';
        if (strspn(line, " \t") == strlen(line))
            continue;
        long long v[CONT_MAX_DIMS + 1];
        if (!data++ && csv_fields(line, v, CONT_MAX_DIMS + 1) < 0)
            continue; /* a header */
        rc = csv_line(line, lineno, ranks, nd, coords, seen, err, errlen);
    }
    for (int r = 0; rc == 0 && r < ranks; r++)
        if (!seen[r]) {
            snprintf(err, errlen,
                     "--coords: rank %d is missing (allowed: a line for every "
                     "rank 0..%d)",
                     r, ranks - 1);
            rc = -1;
        }
    if (!seen)
        snprintf(err, errlen, "out of memory reading --coords");
    free(seen);
    return rc;
}

int cont_place_nodes(const int *dims, int nd, int nodes, const int *node_coord, int *position_node,
                     char *err, size_t errlen)
{
    long long positions = 1;
    for (int k = 0; k < nd; k++)
        positions *= dims[k];
    for (long long i = 0; i < positions; i++)
        position_node[i] = -1;
    for (int n = 0; n < nodes; n++) {
        const int *c = node_coord + (size_t)n * nd;
        long long at = 0;
        for (int k = 0; k < nd; k++) {
            if (c[k] < 0 || c[k] >= dims[k]) {
                snprintf(err, errlen,
                         "node %d: coordinate %d of dimension %d is outside the "
                         "dims (allowed: 0..%d)",
                         n, c[k], k, dims[k] - 1);
                return -1;
            }
            at = at * dims[k] + c[k];
        }
        if (position_node[at] >= 0) {
            snprintf(err, errlen,
                     "nodes %d and %d collide: both are placed at the same "
                     "coordinates (allowed: one node per position)",
                     position_node[at], n);
            return -1;
        }
        position_node[at] = n;
    }
    return 0;
}

/* Id of `name` at one level: its index among the distinct names seen there. */
static int name_id(char **names, int *count, const char *name, size_t len)
{
    for (int i = 0; i < *count; i++)
        if (strlen(names[i]) == len && strncmp(names[i], name, len) == 0)
            return i;
    names[*count] = strndup(name, len);
    return (*count)++;
}

int cont_tree_ids(char *const *addrs, int nodes, int *levels, int *ids, char *err, size_t errlen)
{
    *levels = -1;
    for (int n = 0; n < nodes; n++) {
        int dots = 0;
        for (const char *p = addrs[n]; *p; p++)
            dots += *p == '.';
        if (*levels >= 0 && dots != *levels) {
            snprintf(err, errlen,
                     "SLURM_TOPOLOGY_ADDR '%.60s' of node %d has %d switch level(s), "
                     "node 0's has %d (allowed: one tree depth)",
                     addrs[n], n, dots, *levels);
            return -1;
        }
        *levels = dots;
    }
    if (*levels > CONT_MAX_LEVELS) {
        snprintf(err, errlen, "SLURM_TOPOLOGY_ADDR has %d switch levels (allowed: at most %d)",
                 *levels, CONT_MAX_LEVELS);
        return -1;
    }
    int rc = 0;
    for (int l = 0; l < *levels; l++) {
        char **names = calloc((size_t)nodes, sizeof *names);
        int count = 0;
        for (int n = 0; names && n < nodes; n++) {
            const char *p = addrs[n];
            for (int skip = 0; skip < l; skip++)
                p = strchr(p, '.') + 1;
            size_t len = strcspn(p, ".");
            rc |= len == 0;
            ids[(size_t)n * *levels + l] = name_id(names, &count, p, len);
        }
        for (int i = 0; names && i < count; i++)
            free(names[i]);
        rc |= names == NULL;
        free(names);
    }
    if (rc)
        snprintf(err, errlen,
                 "SLURM_TOPOLOGY_ADDR has an empty switch name (allowed: names "
                 "joined by '.', such as s0.s3.node7)");
    return rc ? -1 : 0;
}

const char *cont_topo_kind_name(const struct cont_topo *t)
{
    if (t->kind != CONT_GRID)
        return t->kind == CONT_TREE ? "tree" : "flat";
    int any = 0, all = 1;
    for (int k = 0; k < t->ndims; k++)
        any |= t->wrap[k], all &= t->wrap[k];
    return all ? "torus" : any ? "mixed" : "mesh";
}

void cont_topo_dims_text(const struct cont_topo *t, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int k = 0; t->kind == CONT_GRID && k < t->ndims; k++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%d", k ? "x" : "", t->dims[k]);
}

void cont_topo_wrap_text(const struct cont_topo *t, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int k = 0; t->kind == CONT_GRID && k < t->ndims; k++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%d", k ? "," : "", t->wrap[k]);
}
