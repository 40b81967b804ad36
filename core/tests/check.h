/* A minimal test harness: CHECK counts, the summary line is what ctest and
 * people read, the exit status is what ctest judges. */
#ifndef HPCPROBE_TEST_CHECK_H
#define HPCPROBE_TEST_CHECK_H
#include <stdio.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) {                                                                  \
            check_passed++;                                                          \
        } else {                                                                     \
            check_failed++;                                                          \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

static inline int check_summary(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
