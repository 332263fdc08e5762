/* bench.h - benchmark harness: one line per case,
 *   name n iters min median max unit
 * where each timing is per `ops` operations of one iteration, converted to `unit` (ns or ms).
 * Benchmarks print; they never assert speed.
 */
#ifndef CUZK_BENCH_BENCH_H
#define CUZK_BENCH_BENCH_H

#include <stddef.h>
#include <stdint.h>

typedef void (*bench_fn)(void *ctx);

typedef enum { BENCH_NS, BENCH_US, BENCH_MS } bench_unit;

/** Runs fn once to warm up, then `iters` times, and prints one line. Timing of one iteration
 *  is divided by `ops` (e.g. ns per fp_mul when one iteration does `ops` multiplications). */
void bench_case(const char *name, size_t n, unsigned iters, double ops, bench_unit unit,
                bench_fn fn, void *ctx);

/** Seconds on the monotonic clock. */
double bench_now(void);

/** Prints the column header once. */
void bench_header(void);

/** True when the case name contains the filter given on the command line (or none given). */
int bench_selected(int argc, char **argv, const char *name);

#endif /* CUZK_BENCH_BENCH_H */
