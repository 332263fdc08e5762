/* bench.c - timing loop and the one-line report. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_header(void)
{
    printf("%-32s %12s %6s %12s %12s %12s %s\n", "name", "n", "iters", "min", "median", "max",
           "unit");
}

void bench_case(const char *name, size_t n, unsigned iters, double ops, bench_unit unit,
                bench_fn fn, void *ctx)
{
    static const double scale[] = {1e9, 1e6, 1e3};
    static const char *const names[] = {"ns", "us", "ms"};
    double *t = malloc(sizeof(double) * (iters ? iters : 1));
    if (!t) {
        return;
    }
    if (iters == 0) {
        iters = 1;
    }
    fn(ctx);
    for (unsigned i = 0; i < iters; i++) {
        double t0 = bench_now();
        fn(ctx);
        t[i] = (bench_now() - t0) / ops * scale[unit];
    }
    qsort(t, iters, sizeof(double), cmp_double);
    printf("%-32s %12zu %6u %12.3f %12.3f %12.3f %s\n", name, n, iters, t[0], t[iters / 2],
           t[iters - 1], names[unit]);
    fflush(stdout);
    free(t);
}

int bench_selected(int argc, char **argv, const char *name)
{
    if (argc < 2) {
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (strstr(name, argv[i])) {
            return 1;
        }
    }
    return 0;
}
