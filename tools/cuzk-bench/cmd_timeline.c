/* cmd_timeline.c - cuzk-bench timeline: the pipeline as a picture, from cuzkd's timing lines
 * (run cuzkd with --timing or CUZK_TIMING=1; perf.h describes the lines).
 *
 * The SVG has one lane per engine thread that ran stages (synthesis workers first, then
 * provers, then any other), plus "queue" lanes for the time jobs waited to be dispatched
 * (packed so that overlapping waits do not overlap). Each stage is a bar from its start to its
 * end, coloured by stage, labelled "#J pK" (job number J in order of appearance, partition K)
 * where it is wide enough, with a tooltip naming the job, partition, stage and milliseconds.
 * The structure is meant to be checked by tools as well as read: lanes are
 * <g class="lane" data-worker=...>, bars <rect class="bar" data-stage=... data-job=...
 * data-partition=...>, the legend <g class="legend">.
 * stdout gets three tables: per job (total; the sum of its stages, which exceeds the wall time
 * when partitions overlap; the wall time covered by at least one stage; and the idle rest,
 * time in no stage, e.g. waiting for a free thread), per stage and per lane (busy time).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/alloc.h"
#include "perf.h"

static const char CMD[] = "timeline";

typedef struct stage_color {
    const char *stage;
    const char *fill;
} stage_color;

static const stage_color COLORS[] = {
    {"queue", "#b0b0b0"},      {"parse", "#a1887f"},    {"srs_load", "#6d4c41"},
    {"synthesis", "#1e88e5"},  {"finish", "#90caf9"},   {"prep", "#fdd835"},
    {"quotient", "#8e24aa"},   {"msm_h", "#e53935"},    {"msm_l", "#fb8c00"},
    {"msm_a", "#43a047"},      {"msm_b_g1", "#00897b"}, {"msm_b_g2", "#3949ab"},
    {"assemble", "#c0ca33"},   {"verify", "#d81b60"},   {"shape_record", "#4e342e"},
    {"shape_load", "#795548"}, {"products", "#26c6da"}, {"staging", "#ffb300"},
    {"gpu_upload", "#5d4037"}, {"classes", "#7cb342"},
};
#define OTHER_COLOR "#546e7a"

static const char *color_of(const char *stage)
{
    for (size_t i = 0; i < ARRAY_LEN(COLORS); i++) {
        if (strcmp(COLORS[i].stage, stage) == 0) {
            return COLORS[i].fill;
        }
    }
    return OTHER_COLOR;
}

/* Text for an XML attribute or element: escapes & < > " '. */
static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

/* Lane order: synthesis workers, provers, the rest; numbers compared as numbers. */
static int lane_class(const char *w)
{
    if (strstr(w, "synth")) {
        return 0;
    }
    if (strstr(w, "prove") || strstr(w, "gpu")) {
        return 1;
    }
    return 2;
}

static int cmp_worker(const void *pa, const void *pb)
{
    const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
    int ca = lane_class(a), cb = lane_class(b);
    if (ca != cb) {
        return ca - cb;
    }
    size_t la = strcspn(a, "0123456789"), lb = strcspn(b, "0123456789");
    if (la == lb && strncmp(a, b, la) == 0) {
        long na = strtol(a + la, NULL, 10), nb = strtol(b + lb, NULL, 10);
        if (na != nb) {
            return na < nb ? -1 : 1;
        }
    }
    return strcmp(a, b);
}

typedef struct tl {
    const perf_log *log;
    size_t *sel; /* indices of the selected stage events */
    size_t nsel;
    const char **lanes; /* worker names (queue lanes excluded) */
    size_t nlanes;
    size_t nqueue;     /* queue lanes */
    size_t *row;       /* per selected event: its row (lanes first, then queue lanes) */
    const char **jobs; /* job ids in order of first appearance */
    size_t njobs;
    double t0, t1;
} tl;

static size_t job_index(tl *t, const char *id)
{
    for (size_t i = 0; i < t->njobs; i++) {
        if (strcmp(t->jobs[i], id) == 0) {
            return i;
        }
    }
    t->jobs[t->njobs] = id;
    return t->njobs++;
}

static bool layout(tl *t, const char *only_job)
{
    const perf_log *log = t->log;
    double *qend = NULL;

    t->sel = cz_calloc(log->nst + 1, sizeof(size_t));
    t->row = cz_calloc(log->nst + 1, sizeof(size_t));
    t->lanes = cz_calloc(log->nst + 1, sizeof(char *));
    t->jobs = cz_calloc(log->nst + 1, sizeof(char *));
    qend = cz_calloc(log->nst + 1, sizeof(double));
    if (!t->sel || !t->row || !t->lanes || !t->jobs || !qend) {
        cz_free(qend);
        cli_error(CMD, "out of memory");
        return false;
    }
    t->t0 = 0;
    t->t1 = 0;
    for (size_t i = 0; i < log->nst; i++) {
        const perf_stage_ev *s = &log->st[i];
        if (only_job && strcmp(s->job, only_job) != 0) {
            continue;
        }
        if (t->nsel == 0 || s->start_ms < t->t0) {
            t->t0 = s->start_ms;
        }
        if (t->nsel == 0 || s->start_ms + s->ms > t->t1) {
            t->t1 = s->start_ms + s->ms;
        }
        t->sel[t->nsel++] = i;
        job_index(t, s->job);
        if (strcmp(s->stage, "queue") == 0) {
            continue;
        }
        size_t l;
        for (l = 0; l < t->nlanes && strcmp(t->lanes[l], s->worker) != 0; l++) {
        }
        if (l == t->nlanes) {
            t->lanes[t->nlanes++] = s->worker;
        }
    }
    qsort(t->lanes, t->nlanes, sizeof(char *), cmp_worker);
    /* rows: worker lanes, then queue lanes packed first-fit in start order (the log is in
     * dispatch order, close enough to start order for a first fit) */
    for (size_t j = 0; j < t->nsel; j++) {
        const perf_stage_ev *s = &log->st[t->sel[j]];
        if (strcmp(s->stage, "queue") != 0) {
            size_t l = 0;
            while (strcmp(t->lanes[l], s->worker) != 0) {
                l++;
            }
            t->row[j] = l;
            continue;
        }
        size_t q;
        for (q = 0; q < t->nqueue && qend[q] > s->start_ms; q++) {
        }
        if (q == t->nqueue) {
            t->nqueue++;
        }
        qend[q] = s->start_ms + s->ms;
        t->row[j] = t->nlanes + q;
    }
    cz_free(qend);
    return true;
}

static void tl_clear(tl *t)
{
    cz_free(t->sel);
    cz_free(t->row);
    cz_free((void *)t->lanes);
    cz_free((void *)t->jobs);
}

/* A "nice" tick step (1, 2 or 5 times a power of ten) giving about `want` ticks over span. */
static double tick_step(double span, int want)
{
    double raw = span / want, p = 1;
    while (p * 10 <= raw) {
        p *= 10;
    }
    while (p > raw) {
        p /= 10;
    }
    return raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

#define LEFT   170
#define RIGHT  30
#define TOP    56
#define LANE_H 28
#define BAR_H  20

static bool write_svg(const tl *t, const char *path, const char *src, unsigned width)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        cli_error(CMD, "%s: cannot write", path);
        return false;
    }
    size_t rows = t->nlanes + t->nqueue;
    double span = t->t1 > t->t0 ? t->t1 - t->t0 : 1;
    double plot_w = (double)width - LEFT - RIGHT;
    double scale = plot_w / span;
    unsigned legend_y = TOP + (unsigned)rows * LANE_H + 24;
    unsigned height = legend_y + 24 * (unsigned)((ARRAY_LEN(COLORS) + 6) / 7) + 16;

    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
            "viewBox=\"0 0 %u %u\" font-family=\"monospace\" font-size=\"12\">\n",
            width, height, width, height);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#ffffff\"/>\n", width,
            height);
    fprintf(f,
            "<text class=\"title\" x=\"8\" y=\"18\" font-size=\"14\">cuzk pipeline: %zu "
            "job(s), %zu stage(s), %.1f ms, from ",
            t->njobs, t->nsel, span);
    xml_text(f, src);
    fprintf(f, "</text>\n");

    /* lanes */
    for (size_t r = 0; r < rows; r++) {
        unsigned y = TOP + (unsigned)r * LANE_H;
        const char *name = r < t->nlanes ? t->lanes[r] : "queue";
        fprintf(f,
                "<rect class=\"lane-bg\" x=\"0\" y=\"%u\" width=\"%u\" height=\"%u\" "
                "fill=\"%s\"/>\n",
                y, width, LANE_H, r % 2 ? "#ffffff" : "#eef2f6");
        fprintf(f, "<text class=\"lane-label\" x=\"8\" y=\"%u\">", y + LANE_H / 2 + 4);
        xml_text(f, name);
        if (r >= t->nlanes && t->nqueue > 1) {
            fprintf(f, " %zu", r - t->nlanes + 1);
        }
        fprintf(f, "</text>\n");
    }
    /* time axis */
    double step = tick_step(span, 8);
    fprintf(f, "<g class=\"axis\">\n");
    for (double v = 0; v <= span + step * 1e-9; v += step) {
        double x = LEFT + v * scale;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%u\" x2=\"%.1f\" y2=\"%u\" stroke=\"#c8c8c8\"/>\n", x,
                TOP - 6, x, TOP + (unsigned)rows * LANE_H);
        fprintf(f, "<text x=\"%.1f\" y=\"%u\" text-anchor=\"middle\">%g ms</text>\n", x, TOP - 10,
                v);
    }
    fprintf(f, "</g>\n");

    /* bars, lane by lane */
    for (size_t r = 0; r < rows; r++) {
        unsigned y = TOP + (unsigned)r * LANE_H + (LANE_H - BAR_H) / 2;
        fprintf(f, "<g class=\"lane\" data-worker=\"");
        xml_text(f, r < t->nlanes ? t->lanes[r] : "queue");
        fprintf(f, "\" data-row=\"%zu\">\n", r);
        for (size_t j = 0; j < t->nsel; j++) {
            if (t->row[j] != r) {
                continue;
            }
            const perf_stage_ev *s = &t->log->st[t->sel[j]];
            size_t jn = 0;
            while (strcmp(t->jobs[jn], s->job) != 0) {
                jn++;
            }
            double x = LEFT + (s->start_ms - t->t0) * scale, w = s->ms * scale;
            if (w < 1) {
                w = 1; /* every stage stays visible */
            }
            char part[24];
            if (s->partition < 0) {
                snprintf(part, sizeof(part), "-");
            } else {
                snprintf(part, sizeof(part), "%ld", s->partition);
            }
            fprintf(f,
                    "<rect class=\"bar\" x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" "
                    "fill=\"%s\" data-stage=\"",
                    x, y, w, BAR_H, color_of(s->stage));
            xml_text(f, s->stage);
            fprintf(f, "\" data-job=\"");
            xml_text(f, s->job);
            fprintf(f, "\" data-partition=\"%s\"><title>", part);
            xml_text(f, s->stage);
            fprintf(f, " job=");
            xml_text(f, s->job);
            fprintf(f, " partition=%s start=%.3f ms=%.3f</title></rect>\n", part,
                    s->start_ms - t->t0, s->ms);
            char label[48];
            if (s->partition < 0) {
                snprintf(label, sizeof(label), "#%zu", jn + 1);
            } else {
                snprintf(label, sizeof(label), "#%zu p%ld", jn + 1, s->partition);
            }
            if (w > 7.5 * (double)strlen(label) + 6) {
                fprintf(f,
                        "<text class=\"bar-label\" x=\"%.2f\" y=\"%u\" fill=\"#ffffff\" "
                        "font-size=\"11\">%s</text>\n",
                        x + 3, y + BAR_H / 2 + 4, label);
            }
        }
        fprintf(f, "</g>\n");
    }

    /* legend */
    fprintf(f, "<g class=\"legend\">\n");
    for (size_t i = 0; i < ARRAY_LEN(COLORS); i++) {
        unsigned x = 8 + (unsigned)(i % 7) * 150, y = legend_y + (unsigned)(i / 7) * 24;
        fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"14\" height=\"14\" fill=\"%s\"/>", x, y - 11,
                COLORS[i].fill);
        fprintf(f, "<text x=\"%u\" y=\"%u\">%s</text>\n", x + 20, y, COLORS[i].stage);
    }
    fprintf(f, "</g>\n</svg>\n");
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad) {
        cli_error(CMD, "%s: write error", path);
        return false;
    }
    return true;
}

static int cmp_interval(const void *pa, const void *pb)
{
    const double *a = pa, *b = pb;
    return (a[0] > b[0]) - (a[0] < b[0]);
}

/* kind == NULL: the sum of the job's stage durations. Otherwise the wall time covered by at
 * least one of its stages (partitions overlap), and *kind its kind. */
static double covered(const tl *t, const char *job, const char **kind)
{
    const perf_log *log = t->log;
    double sum = 0, cov = 0, end = 0;
    size_t n = 0;
    double(*iv)[2] = cz_calloc(t->nsel + 1, sizeof(*iv));

    for (size_t k = 0; k < t->nsel; k++) {
        const perf_stage_ev *s = &log->st[t->sel[k]];
        if (strcmp(s->job, job) != 0) {
            continue;
        }
        sum += s->ms;
        if (kind) {
            *kind = s->kind;
        }
        if (iv) {
            iv[n][0] = s->start_ms;
            iv[n][1] = s->start_ms + s->ms;
            n++;
        }
    }
    if (!kind) {
        cz_free(iv);
        return sum;
    }
    if (!iv) {
        return -1; /* out of memory: shown as a negative coverage */
    }
    qsort(iv, n, sizeof(*iv), cmp_interval);
    for (size_t k = 0; k < n; k++) {
        double a = iv[k][0] > end || k == 0 ? iv[k][0] : end;
        if (iv[k][1] > a) {
            cov += iv[k][1] - a;
        }
        end = iv[k][1] > end || k == 0 ? iv[k][1] : end;
    }
    cz_free(iv);
    return cov;
}

static void print_tables(const tl *t)
{
    const perf_log *log = t->log;

    printf("%-44s %-13s %5s %10s %10s %10s %9s\n", "job", "kind", "parts", "total_ms", "stages_ms",
           "covered_ms", "idle_ms");
    for (size_t i = 0; i < t->njobs; i++) {
        const perf_job_ev *j = perf_log_job(log, t->jobs[i]);
        double sum = covered(t, t->jobs[i], NULL), cov;
        const char *kind = "?";
        cov = covered(t, t->jobs[i], &kind);
        char jobname[64];
        snprintf(jobname, sizeof(jobname), "#%zu %.40s", i + 1, t->jobs[i]);
        if (j) {
            printf("%-44s %-13s %5ld %10.1f %10.1f %10.1f %9.1f\n", jobname, kind, j->partitions,
                   j->total_ms, sum, cov, j->total_ms - cov);
        } else {
            printf("%-44s %-13s %5s %10s %10.1f %10.1f %9s\n", jobname, kind, "?", "?", sum, cov,
                   "?");
        }
    }
    printf("\n%-12s %6s %12s %10s %10s\n", "stage", "count", "total_ms", "mean_ms", "max_ms");
    /* distinct stages, in pipeline order, unknown ones after in order of appearance */
    const char **names = cz_calloc(t->nsel + 1, sizeof(char *));
    size_t nn = 0;
    for (size_t k = 0; names && k < t->nsel; k++) {
        const char *name = log->st[t->sel[k]].stage;
        size_t q = 0;
        while (q < nn && strcmp(names[q], name) != 0) {
            q++;
        }
        if (q < nn) {
            continue;
        }
        /* insertion after every name of lower or equal rank */
        size_t rank = perf_stage_rank(name), at = nn;
        while (at > 0 && perf_stage_rank(names[at - 1]) > rank) {
            names[at] = names[at - 1];
            at--;
        }
        names[at] = name;
        nn++;
    }
    for (size_t q = 0; q < nn; q++) {
        size_t count = 0;
        double total = 0, max = 0;
        for (size_t k = 0; k < t->nsel; k++) {
            const perf_stage_ev *s = &log->st[t->sel[k]];
            if (strcmp(s->stage, names[q]) == 0) {
                count++;
                total += s->ms;
                max = s->ms > max ? s->ms : max;
            }
        }
        printf("%-12s %6zu %12.1f %10.2f %10.2f\n", names[q], count, total, total / (double)count,
               max);
    }
    cz_free((void *)names);
    double span = t->t1 > t->t0 ? t->t1 - t->t0 : 0;
    printf("\n%-20s %6s %12s %7s\n", "lane", "bars", "busy_ms", "busy%");
    for (size_t l = 0; l < t->nlanes; l++) {
        size_t bars = 0;
        double busy = 0;
        for (size_t k = 0; k < t->nsel; k++) {
            if (t->row[k] == l) {
                bars++;
                busy += log->st[t->sel[k]].ms;
            }
        }
        printf("%-20s %6zu %12.1f %7.1f\n", t->lanes[l], bars, busy,
               span > 0 ? 100 * busy / span : 0.0);
    }
}

int cmd_timeline(int argc, char **argv)
{
    static const char about[] =
        "Draws the pipeline from cuzkd's structured logs (run cuzkd with --timing or\n"
        "CUZK_TIMING=1 and keep its stderr): one lane per synthesis worker and per prover\n"
        "thread, queue lanes for the waits before dispatch, one bar per stage of each\n"
        "partition (parse, SRS load, synthesis, finish, the prover's quotient and MSMs,\n"
        "verify), coloured by stage and labelled #job pPartition. Writes an SVG and prints\n"
        "per-job (total, sum of stages, wall time covered, idle), per-stage and per-lane\n"
        "(busy time) tables.";
    const char *log_path = NULL, *out = NULL, *job = NULL;
    uint64_t width = 1400;
    perf_log log;
    tl t;
    int rc = CLI_EXIT_ERROR;

    cli_opt_t opts[] = {
        CLI_OPT("log", CLI_STR, &log_path, "FILE", "cuzkd's log with timing lines", true),
        CLI_OPT("out", CLI_STR, &out, "FILE.svg", "the picture to write", true),
        CLI_OPT("job", CLI_STR, &job, "ID", "only this job", false),
        CLI_OPT("width", CLI_U64, &width, "PX", "width of the picture (default 1400)", false),
    };
    int prc = cli_parse(CMD, about, opts, ARRAY_LEN(opts), argc, argv);
    if (prc >= 0) {
        return prc;
    }
    if (width < 400 || width > 100000) {
        return cli_error(CMD, "--width must be 400 .. 100000");
    }
    memset(&log, 0, sizeof(log));
    memset(&t, 0, sizeof(t));
    if (!perf_log_load(CMD, log_path, &log)) {
        return CLI_EXIT_ERROR;
    }
    t.log = &log;
    if (!layout(&t, job)) {
        goto done;
    }
    if (t.nsel == 0) {
        cli_error(CMD, "%s: no timing lines%s%s (was cuzkd run with --timing or CUZK_TIMING=1?)",
                  log_path, job ? " for job " : "", job ? job : "");
        goto done;
    }
    if (!write_svg(&t, out, log_path, (unsigned)width)) {
        goto done;
    }
    printf("timeline jobs=%zu stages=%zu lanes=%zu queue_lanes=%zu span_ms=%.1f out=%s\n\n",
           t.njobs, t.nsel, t.nlanes, t.nqueue, t.t1 - t.t0, out);
    print_tables(&t);
    rc = CLI_EXIT_OK;
done:
    tl_clear(&t);
    perf_log_clear(&log);
    return rc;
}
