/* progress.c - stage progress on stderr for cuzk-bench's long commands (see progress.h).
 *
 * The terminal form draws "\r<line>\033[K": the carriage return goes back to the line's start
 * and the erase-to-end clears what a longer previous drawing left behind.
 */
#include "progress.h"

#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define DRAW_INTERVAL_MS 250.0 /* at most ~4 drawings a second */

/* The reporter whose terminal line is on screen, if any (see cli_progress_interrupt). */
static cli_progress *open_line;

cli_progress_mode cli_progress_default_mode(bool quiet)
{
    if (quiet) {
        return CLI_PROGRESS_QUIET;
    }
    return isatty(STDERR_FILENO) ? CLI_PROGRESS_TTY : CLI_PROGRESS_LINES;
}

void cli_progress_init(cli_progress *p, const char *cmd, unsigned nsteps, cli_progress_mode mode)
{
    memset(p, 0, sizeof(*p));
    p->cmd = cmd;
    p->mode = mode;
    p->out = stderr;
    p->nsteps = nsteps;
}

/* "m:ss" or "h:mm:ss". */
static void fmt_duration(char *out, size_t cap, double ms)
{
    uint64_t s = ms > 0 ? (uint64_t)(ms / 1e3 + 0.5) : 0;
    if (s >= 3600) {
        snprintf(out, cap, "%" PRIu64 ":%02u:%02u", s / 3600, (unsigned)(s / 60 % 60),
                 (unsigned)(s % 60));
    } else {
        snprintf(out, cap, "%u:%02u", (unsigned)(s / 60), (unsigned)(s % 60));
    }
}

/* "[step/nsteps] " or "" when the stages are not counted. */
static void fmt_step(char *out, size_t cap, const cli_progress *p)
{
    out[0] = '\0';
    if (p->nsteps > 0) {
        snprintf(out, cap, "[%u/%u] ", p->step, p->nsteps);
    }
}

static void draw(cli_progress *p, double now, bool final)
{
    char step[32], elapsed[32], eta[32], units[64] = "";
    double ms = now - p->t_stage;

    fmt_step(step, sizeof(step), p);
    fmt_duration(elapsed, sizeof(elapsed), ms);
    if (p->total > 0) {
        uint64_t done = p->done < p->total ? p->done : p->total;
        snprintf(units, sizeof(units), " %3u%% %" PRIu64 "/%" PRIu64,
                 (unsigned)(100 * done / p->total), done, p->total);
    }
    if (final) {
        fprintf(p->out, "\rcuzk-bench %s: %s%s done%s in %s\033[K\n", p->cmd, step, p->stage, units,
                elapsed);
    } else if (p->total > 0 && p->done > 0 && p->done < p->total) {
        fmt_duration(eta, sizeof(eta), ms * (double)(p->total - p->done) / (double)p->done);
        fprintf(p->out, "\rcuzk-bench %s: %s%s%s  elapsed %s  ETA %s\033[K", p->cmd, step, p->stage,
                units, elapsed, eta);
    } else if (p->total > 0 || p->done > 0) {
        fprintf(p->out, "\rcuzk-bench %s: %s%s%s  elapsed %s\033[K", p->cmd, step, p->stage, units,
                elapsed);
    } else {
        /* nothing counted yet: an elapsed time drawn once would stand still */
        fprintf(p->out, "\rcuzk-bench %s: %s%s ...\033[K", p->cmd, step, p->stage);
    }
    fflush(p->out);
    p->t_drawn = now;
    open_line = final ? NULL : p;
}

void cli_progress_begin(cli_progress *p, const char *name, uint64_t total)
{
    if (p->open) {
        cli_progress_end(p);
    }
    p->step++;
    snprintf(p->stage, sizeof(p->stage), "%s", name);
    p->done = 0;
    p->total = total;
    p->t_stage = cli_now_ms();
    p->open = true;
    if (p->mode == CLI_PROGRESS_TTY) {
        draw(p, p->t_stage, false);
    }
}

void cli_progress_update(cli_progress *p, uint64_t done)
{
    if (!p->open) {
        return;
    }
    p->done = done;
    if (p->mode == CLI_PROGRESS_TTY) {
        double now = cli_now_ms();
        if (now - p->t_drawn >= DRAW_INTERVAL_MS || open_line != p) {
            draw(p, now, false);
        }
    }
}

void cli_progress_end(cli_progress *p)
{
    double now = cli_now_ms();
    char step[32] = "-";

    if (!p->open) {
        return;
    }
    p->open = false;
    if (p->total > 0 && p->done < p->total) {
        p->done = p->total; /* a stage that ends has done all of its units */
    }
    if (p->mode == CLI_PROGRESS_TTY) {
        draw(p, now, true);
    } else if (p->mode == CLI_PROGRESS_LINES) {
        if (p->nsteps > 0) {
            snprintf(step, sizeof(step), "%u/%u", p->step, p->nsteps);
        }
        fprintf(p->out, "cuzk-bench %s: progress step=%s stage=%s", p->cmd, step, p->stage);
        if (p->total > 0) {
            fprintf(p->out, " done=%" PRIu64 " total=%" PRIu64, p->done, p->total);
        }
        fprintf(p->out, " ms=%.1f\n", now - p->t_stage);
        fflush(p->out);
    }
}

void cli_progress_hide(cli_progress *p)
{
    if (open_line == p && p->mode == CLI_PROGRESS_TTY) {
        fputs("\r\033[K", p->out);
        fflush(p->out);
        open_line = NULL;
    }
}

void cli_progress_interrupt(void)
{
    if (open_line) {
        cli_progress_hide(open_line);
    }
}
