/* "Did you mean ...?" for misspelt benchmarks and options. */
#include "hpcprobe/options.h"

#include <string.h>

/* Levenshtein distance, capped to keep the table small for long words. */
static int edit_distance(const char *a, const char *b)
{
    enum { MAXLEN = 64 };
    size_t la = strlen(a), lb = strlen(b);
    if (la >= MAXLEN || lb >= MAXLEN)
        return MAXLEN;
    int prev[MAXLEN + 1], cur[MAXLEN + 1];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof *cur);
    }
    return prev[lb];
}

const char *hpcp_suggest(const char *word, const char *const *names, int n)
{
    int limit = (int)strlen(word) / 3;
    if (limit < 2)
        limit = 2;
    const char *best = NULL;
    int best_d = limit + 1;
    for (int i = 0; i < n; i++) {
        int d = edit_distance(word, names[i]);
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return best;
}
