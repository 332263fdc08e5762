/* progress.h - progress of cuzk-bench's long commands (setup, gen-vanilla, check-vanilla,
 * synth) on stderr, so that a 32 GiB run that takes minutes is not silent.
 *
 * A command is a sequence of stages. A stage has a name and, when it is known, a total of work
 * units (partitions, sectors); updates report the units done. Three forms:
 *   terminal (isatty(stderr)): one line, rewritten with \r at most ~4 times a second:
 *     cuzk-bench setup: [3/4] setup  42% 5/12  elapsed 1:02  ETA 1:25
 *   and left on screen, with the stage's time, when the stage ends;
 *   otherwise (a log file or pipe): one line per stage, when it ends:
 *     cuzk-bench setup: progress step=3/4 stage=setup done=12 total=12 ms=143210.4
 *   quiet (--quiet): nothing.
 * The percent and ETA need a total and at least one unit done; a stage without units shows
 * its elapsed time only. Lines go to stderr; stdout keeps the command's results.
 *
 * Threads: a reporter is used by one thread. One reporter at a time may have a terminal line
 * open; cli_error erases that line first (cli_progress_interrupt), so an error is not glued to
 * it.
 */
#ifndef CUZK_TOOLS_CUZK_BENCH_PROGRESS_H
#define CUZK_TOOLS_CUZK_BENCH_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { CLI_PROGRESS_QUIET, CLI_PROGRESS_TTY, CLI_PROGRESS_LINES } cli_progress_mode;

typedef struct cli_progress {
    const char *cmd; /* borrowed: the command's name */
    cli_progress_mode mode;
    FILE *out;
    unsigned step, nsteps; /* the current stage (1-based) of nsteps; nsteps 0: not shown */
    char stage[64];
    uint64_t done, total; /* units; total 0: unknown */
    double t_stage, t_drawn;
    bool open; /* a stage has begun and not ended */
} cli_progress;

/** The form for this process: QUIET when `quiet`, TTY when stderr is a terminal, else LINES. */
cli_progress_mode cli_progress_default_mode(bool quiet);

/** Starts a reporter for `cmd` (borrowed) that expects `nsteps` stages (0: not counted). */
void cli_progress_init(cli_progress *p, const char *cmd, unsigned nsteps, cli_progress_mode mode);

/** Begins the next stage `name` with `total` units (0: unknown); ends an open stage first. */
void cli_progress_begin(cli_progress *p, const char *name, uint64_t total);

/** `done` units of the current stage are finished; draws at most every 250 ms (terminal). */
void cli_progress_update(cli_progress *p, uint64_t done);

/** Ends the current stage: its final line (terminal: the line kept; else the log line). */
void cli_progress_end(cli_progress *p);

/** Erases the open terminal line before something else is written to the terminal (the
 *  next update draws it again). No effect in the other forms. */
void cli_progress_hide(cli_progress *p);

/** Erases the terminal line of whichever reporter has one open (for cli_error). */
void cli_progress_interrupt(void);

#endif /* CUZK_TOOLS_CUZK_BENCH_PROGRESS_H */
