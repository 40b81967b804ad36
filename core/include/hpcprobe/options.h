/* Declarative command-line options: a table of specs per subcommand. */
#ifndef HPCPROBE_OPTIONS_H
#define HPCPROBE_OPTIONS_H
#include <stddef.h>

enum hpcp_opt_kind {
    HPCP_OPT_FLAG,
    HPCP_OPT_INT,
    HPCP_OPT_DOUBLE,
    HPCP_OPT_STRING,
    HPCP_OPT_CHOICE
};

struct hpcp_optspec {
    const char *name;        /* "--table-log2" */
    enum hpcp_opt_kind kind;
    long long int_min, int_max;       /* HPCP_OPT_INT: allowed range */
    double dbl_min, dbl_max;          /* HPCP_OPT_DOUBLE: (min, max] when min_open */
    int min_open;                     /* 1: the lower bound is excluded */
    const char *choices;              /* HPCP_OPT_CHOICE: "poly|lcg" */
};

struct hpcp_optval {
    int set;
    long long i;
    double d;
    const char *s;   /* points into argv */
};

/* Parse argv[0..argc) against `spec` (n entries) into vals[n].
 * Returns 0, or -1 with one line (no newline) in err: what was wrong and what
 * is allowed, with a suggestion for a misspelt option. `context` names the
 * subcommand in messages ("ra single"). */
int hpcp_parse_options(int argc, char **argv, const struct hpcp_optspec *spec, int n,
                       struct hpcp_optval *vals, const char *context, char *err, size_t errlen);

/* Index of the option named `name` in spec, or -1. */
int hpcp_opt_index(const struct hpcp_optspec *spec, int n, const char *name);

/* The closest candidate to `word` among n names (edit distance at most a
 * third of its length, at least 2), or NULL. */
const char *hpcp_suggest(const char *word, const char *const *names, int n);

#endif
