/* Declarative command-line options: a table of specs per subcommand, each
 * with its help line and default, so that `hpcprobe-bench describe --json`
 * and the parsers read one description. Every value grammar has one parser
 * here (runtime/options.c, runtime/option_grammars.c). */
#ifndef HPCPROBE_OPTIONS_H
#define HPCPROBE_OPTIONS_H
#include <stddef.h>
#include <stdint.h>

enum hpcp_opt_kind {
    HPCP_OPT_FLAG,
    HPCP_OPT_INT,
    HPCP_OPT_DOUBLE,
    HPCP_OPT_STRING, /* free text the family reads itself (a file, a spec of its own) */
    HPCP_OPT_CHOICE,
    HPCP_OPT_BYTES, /* one size: 4096, 64K, 2GiB (hpcp_parse_bytes); int_min..int_max bytes */
    HPCP_OPT_SIZES, /* "0,8,1K..1M": sizes and doubling ranges A..B, strictly increasing, each
                       int_min..int_max bytes, at most count_max (hpcp_parse_sizes) */
    HPCP_OPT_LIST,  /* "a,b": a comma list of `choices`, each once, at most count_max;
                       "all" for every choice, "none" for none when int_min is 0 */
    HPCP_OPT_GRID,  /* "2x2x2": 1..count_max whole numbers joined by 'x', each
                       int_min..int_max (hpcp_parse_grid) */
    HPCP_OPT_KIND_COUNT
};

/* Bits of hpcp_optspec.min_open (1 keeps its old meaning: the lower bound only). */
#define HPCP_OPEN_MIN 1
#define HPCP_OPEN_MAX 2

struct hpcp_optspec {
    const char *name; /* "--table-log2" */
    enum hpcp_opt_kind kind;
    long long int_min, int_max; /* INT: the range; BYTES, SIZES, GRID: of each value;
                                   LIST: int_min 0 allows "none" */
    double dbl_min, dbl_max;    /* HPCP_OPT_DOUBLE: the range, each end included unless
                                   min_open says otherwise */
    int min_open;               /* HPCP_OPEN_MIN, HPCP_OPEN_MAX: that bound is excluded */
    const char *choices;        /* CHOICE, LIST: "poly|lcg" */
    int count_max;              /* SIZES, LIST, GRID: most items */
    const char *help;           /* one line, the same words as docs/cli.md */
    const char *default_text;   /* the default as typed; NULL: computed at run time,
                                   and the help says how */
};

struct hpcp_optval {
    int set;
    long long i;     /* INT; BYTES: the bytes; SIZES, LIST, GRID: the item count */
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

/* --- the value grammars (option_grammars.c) -------------------------------- */

/* "64M" etc.: a positive byte count with an optional binary suffix K M G T,
 * in either case, optionally followed by "B" or "iB" (K, KB and KiB are all
 * 1024). 0, or -1 when malformed, 0 or past 2^64 - 1. */
int hpcp_parse_bytes(const char *text, uint64_t *bytes);

/* A size of option o (BYTES): hpcp_parse_bytes, "0" too when o->int_min is
 * 0, within o's limits. 0, or -1 with one line in err. */
int hpcp_parse_size(const struct hpcp_optspec *o, const char *text, uint64_t *bytes, char *err,
                    size_t errlen);

/* A sizes list of option o (SIZES) into sizes[0..*n) (sizes NULL: only
 * checked and counted). Items SIZE or A..B (A, 2A, 4A, ... up to B; 0..B
 * gives 0, 1, 2, 4, ...), comma separated, strictly increasing. 0, or -1. */
int hpcp_parse_sizes(const struct hpcp_optspec *o, const char *text, uint64_t *sizes, int *n,
                     char *err, size_t errlen);

/* A list of option o's choices (LIST) as indices into o->choices, in the
 * order given, into items[0..*n) (items NULL: only checked). 0, or -1. */
int hpcp_parse_list(const struct hpcp_optspec *o, const char *text, int *items, int *n, char *err,
                    size_t errlen);

/* A grid of option o (GRID) into dims[0..*n) (dims NULL: only checked). 0, or -1. */
int hpcp_parse_grid(const struct hpcp_optspec *o, const char *text, int *dims, int *n, char *err,
                    size_t errlen);

/* The grammar of a kind in words, and its name ("sizes"), for describe. */
const char *hpcp_opt_kind_name(enum hpcp_opt_kind kind);
const char *hpcp_opt_grammar(enum hpcp_opt_kind kind);

#endif
