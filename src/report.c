/* report: tables and JSON for plans. */
#include "report.h"

#include <math.h>
#include <string.h>

#include "text.h"
#include "units.h"

const char *report_s(long n)
{
    return n == 1 ? "" : "s";
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        size_t n = text_utf8_len((const char *)p);
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\u%04x", *p);
        else if (n == 0)
            fputs("\\ufffd", out);     /* invalid UTF-8 is no JSON text */
        else {
            fwrite(p, 1, n, out);
            p += n - 1;
        }
    }
    fputc('"', out);
}

/* Numbers: finite values in the fewest digits that read back to the same
 * double (a schedule re-checked from the JSON must see the start times
 * the simulator saw: 10 digits lost 0.5 us at 10^6 ms), null for NaN/inf
 * (JSON has no such values). */
static void json_number(FILE *out, double v)
{
    if (!isfinite(v)) {
        fputs("null", out);
        return;
    }
    char buf[40];
    fputs(units_write_exact(v, 10, buf, sizeof buf), out);
}

/* Parts of a total in bytes, each to a whole byte, so that they add up to
 * the total as printed ("%.0f": to nearest, ties to even): a weight factor
 * of 3.5 gives half bytes, and the parts rounded each on its own came to
 * a byte less than the total. The remainders go to the largest fractions. */
static void whole_bytes(double part[4], double total)
{
    double frac[4], left = nearbyint(total);
    for (int i = 0; i < 4; i++) {
        frac[i] = part[i] - floor(part[i]);
        part[i] = floor(part[i]);
        left -= part[i];
    }
    for (; left >= 1; left--) {
        int k = 0;
        for (int i = 1; i < 4; i++)
            if (frac[i] > frac[k])
                k = i;
        if (!(frac[k] > 0))
            break;
        part[k] += 1;
        frac[k] = 0;
    }
}

static void json_plan(FILE *out, const struct problem *pb, const struct planner_result *res)
{
    const struct plan *pl = res->plan;
    fprintf(out, "{\"planner\": ");
    json_string(out, res->planner);
    fprintf(out, ", \"status\": \"%s\", \"fits\": %s", plan_status_name(res->status),
            pl && pl->fits ? "true" : "false");
    fprintf(out, ", \"believed_fit\": %s", res->believed_fit ? "true" : "false");
    fprintf(out, ", \"period_ms\": ");
    json_number(out, pl ? pl->T : NAN);
    fprintf(out, ", \"latency_ms\": ");
    json_number(out, pl ? pl->latency : NAN);
    fprintf(out, ", \"iteration_ms\": ");
    json_number(out, pl ? pl->iteration : NAN);
    fprintf(out, ", \"throughput\": ");
    json_number(out, pl ? pl->throughput : NAN);
    fprintf(out, ", \"objective_ms\": ");
    json_number(out, pl ? pl->objective : NAN);
    /* bound_ms and gap hold for the network's own layers; what holds for
     * blocks only has keys of its own (doc/model.md section 10.4) */
    fprintf(out, ", \"bound_ms\": ");
    json_number(out, res->bound);
    fprintf(out, ", \"gap\": ");
    json_number(out, planner_gap(res));
    fprintf(out, ", \"solve_seconds\": ");
    json_number(out, res->seconds);
    /* infeasible is proven for the layers, whatever the blocks */
    if (res->blocks > 0 && res->blocks < pb->L && res->status != PLAN_INFEASIBLE) {
        fprintf(out, ", \"proven_for_blocks\": %d, \"block_bound_ms\": ", res->blocks);
        json_number(out, res->block_bound);
    }
    if (res->message[0]) {
        fprintf(out, ", \"message\": ");
        json_string(out, res->message);
    }
    if (!pl) {
        fprintf(out, ", \"assignment\": [], \"gpus\": [], \"schedule\": []}");
        return;
    }
    fprintf(out, ", \"peak_memory\": %.0f", pl->peak_memory);
    fprintf(out, ",\n   \"assignment\": [");
    for (int i = 0; i < pl->L; i++)
        fprintf(out, "%s%d", i ? ", " : "", pl->gpu[i]);
    fprintf(out, "],\n   \"gpus\": [");
    for (int p = 0; p < pl->P; p++) {
        const struct plan_gpu *g = &pl->gpus[p];
        fprintf(out, "%s{\"gpu\": %d, \"load_ms\": ", p ? ",\n            " : "", p);
        json_number(out, g->load_ms);
        fprintf(out, ", \"send_ms\": ");
        json_number(out, g->send_ms);
        fprintf(out, ", \"recv_ms\": ");
        json_number(out, g->recv_ms);
        double part[4] = { g->weights, g->activations, g->buffers, g->reserved };
        whole_bytes(part, g->total);
        fprintf(out, ", \"memory\": {\"weights\": %.0f, \"activations\": %.0f, "
                "\"buffers\": %.0f, \"reserved\": %.0f, \"total\": %.0f, \"cap\": %.0f}}",
                part[0], part[1], part[2], part[3], g->total, g->cap);
    }
    fprintf(out, "],\n   \"schedule\": [");
    /* chain order: F_0..F_{L-1}, B_{L-1}..B_0 */
    for (int k = 0; k < 2 * pl->L; k++) {
        int o = k < pl->L ? k : 3 * pl->L - 1 - k;
        int layer = o < pl->L ? o : o - pl->L;
        fprintf(out, "%s{\"op\": \"%c\", \"layer\": %d, \"gpu\": %d, \"start_ms\": ",
                k ? ", " : "", o < pl->L ? 'F' : 'B', layer, pl->gpu[layer]);
        json_number(out, pl->start[o]);
        fputc('}', out);
    }
    fprintf(out, "]}");
}

int report_json(FILE *out, const struct report *r)
{
    const struct problem *pb = r->pb;
    fprintf(out, "{\"problem\": {\"network\": ");
    json_string(out, pb->network);
    fprintf(out, ", \"layers\": %d, \"blocks\": %d, \"gpus\": %d, \"tensor_parallel\": %d, "
            "\"memory\": [", pb->L, r->blocks, pb->P, pb->tp);
    for (int p = 0; p < pb->P; p++)
        fprintf(out, "%s%.0f", p ? ", " : "", pb->cap[p]);
    fprintf(out, "], \"micro_batches\": %ld, \"micro_batch\": %ld, \"schedule\": \"%s\", "
            "\"layout\": \"%s\", \"weight_factor\": ", pb->m, pb->micro_batch,
            spec_schedule_name(pb->schedule),
            pb->layout == LAYOUT_CONTIGUOUS ? "contiguous" : "any");
    json_number(out, pb->phi);
    fprintf(out, ", \"objective\": \"%s\", \"lower_bound_ms\": ",
            pb->schedule == SPEC_SCHEDULE_1F1B ? "iteration" : "period");
    json_number(out, problem_lower_bound(pb));
    fprintf(out, ", \"compute_ms\": ");
    json_number(out, problem_compute_ms(pb));
    fprintf(out, ", \"bound_ms\": ");
    json_number(out, problem_objective_bound(pb));
    fprintf(out, ", \"min_fitting_cap\": ");
    if (isnan(r->min_cap)) {
        fputs("null", out);
    } else {
        fprintf(out, "%.0f, \"min_fitting_cap_planner\": ", r->min_cap);
        json_string(out, r->min_cap_planner);
        fprintf(out, ", \"min_fitting_cap_within\": %.0f", r->min_cap_within);
        /* its figures: it may run far slower than the rows that do not fit */
        const struct plan *cp = r->min_cap_plan;
        if (cp) {
            fprintf(out, ", \"min_fitting_plan\": {\"planner\": ");
            json_string(out, r->min_cap_planner);
            fprintf(out, ", \"cap\": %.0f, \"period_ms\": ", r->min_cap);
            json_number(out, cp->T);
            fprintf(out, ", \"iteration_ms\": ");
            json_number(out, cp->iteration);
            fprintf(out, ", \"throughput\": ");
            json_number(out, cp->throughput);
            fputc('}', out);
        }
    }
    fprintf(out, "},\n \"plans\": [");
    for (int i = 0; i < r->nresults; i++) {
        fputs(i ? ",\n  " : "\n  ", out);
        json_plan(out, pb, &r->results[i]);
    }
    fprintf(out, "]}\n");
    return ferror(out) ? -1 : 0;
}

static const char *fit_text(const struct planner_result *res, char *buf, size_t len)
{
    char b[32];
    const struct plan *pl = res->plan;
    if (!pl)
        snprintf(buf, len, "error");
    else if (pl->fits)
        snprintf(buf, len, "fits");
    else
        /* up: "needs 1.00 GiB" beside a cap of 1.00 GiB says nothing */
        snprintf(buf, len, "needs %s", units_format_size_up(pl->peak_memory, b, sizeof b));
    return buf;
}

char *report_min_cap_text(const struct report *r, char *buf, size_t len)
{
    double next = INFINITY;
    for (int i = 0; i < r->nresults; i++) {
        const struct plan *q = r->results[i].plan;
        if (q && q->peak_memory > r->min_cap)
            next = fmin(next, q->peak_memory);
    }
    return units_format_size_up_below(r->min_cap, next, buf, len);
}

int report_table(FILE *out, const struct report *r)
{
    const struct problem *pb = r->pb;
    char b1[32], b2[32], b3[32], b4[32];
    double lb = problem_lower_bound(pb);
    /* caps that differ: their range (GPU 0's cap alone told nothing of it) */
    double cmin = pb->cap[0], cmax = pb->cap[0];
    for (int p = 1; p < pb->P; p++) {
        cmin = fmin(cmin, pb->cap[p]);
        cmax = fmax(cmax, pb->cap[p]);
    }
    char caps[72];
    units_format_size(cmin, caps, sizeof caps);
    if (cmax > cmin) {
        size_t n = strlen(caps);
        snprintf(caps + n, sizeof caps - n, " to %s", units_format_size(cmax, b1, sizeof b1));
    }
    char name[4 * SPEC_MAX_LINE + 4], msg[4 * sizeof r->results[0].message];
    fprintf(out, "%s (%d layer%s) on %d GPU%s x %s, %s, %s links\n",
            text_escape(pb->network, name, sizeof name), pb->L,
            report_s(pb->L), pb->P, report_s(pb->P), caps,
            units_format_bandwidth(pb->bandwidth, b2, sizeof b2),
            units_format_time(pb->latency_ms, b3, sizeof b3));
    /* a "GPU" of the plan is then a pipeline rank: say what it stands for */
    if (pb->tp > 1 && pb->P == 1)
        fprintf(out, "tensor parallel %d: the one pipeline rank is a group of %d GPUs; memory "
                "and times are per GPU of the group\n", pb->tp, pb->tp);
    else if (pb->tp > 1)
        fprintf(out, "tensor parallel %d: each of the %d pipeline ranks is a group of %d GPUs "
                "(%ld GPUs in all); memory and times are per GPU of a group\n", pb->tp, pb->P,
                pb->tp, (long)pb->P * pb->tp);
    fprintf(out, "%ld micro-batch%s of %ld, %s schedule, %s layout, weight factor %g; "
            "lower bound T >= %s\n\n", pb->m, pb->m == 1 ? "" : "es", pb->micro_batch,
            spec_schedule_name(pb->schedule),
            pb->layout == LAYOUT_CONTIGUOUS ? "contiguous" : "any", pb->phi,
            units_format_time(lb, b1, sizeof b1));
    char peak[16];
    snprintf(peak, sizeof peak, "peak %s", problem_gpu_word(pb, false));
    fprintf(out, "%-16s %-21s %10s %10s %10s %7s %7s  %-17s %s\n", "planner", "status", "period",
            "iteration", "samples/s", "T/T_lb", "gap", "memory", peak);
    for (int i = 0; i < r->nresults; i++) {
        const struct planner_result *res = &r->results[i];
        const struct plan *pl = res->plan;
        if (!pl) {
            fprintf(out, "%-16s %-21s %s\n", planner_title(res->planner),
                    plan_status_name(res->status), text_escape(res->message, msg, sizeof msg));
            continue;
        }
        char gap[16] = "-", status[48], ratio[16] = "-", rate[24];
        if (isfinite(planner_gap(res)))
            snprintf(gap, sizeof gap, "%.2f%%", 100 * planner_gap(res));
        /* a network without compute has T_lb = 0: no ratio to show */
        if (lb > 0)
            units_format_ratio(pl->T / lb, ratio, sizeof ratio);
        fprintf(out, "%-16s %-21s %10s %10s %10s %7s %7s  %-17s %d (%s)\n",
                planner_title(res->planner),
                planner_status_text(res->status, res->blocks, status, sizeof status),
                units_format_time(pl->T, b1, sizeof b1),
                units_format_time(pl->iteration, b2, sizeof b2),
                units_format_rate(pl->throughput, rate, sizeof rate), ratio,
                gap, fit_text(res, b3, sizeof b3), pl->peak_gpu,
                /* over the cap: up, as "needs" beside it (the same peak) */
                pl->fits ? units_format_size(pl->gpus[pl->peak_gpu].total, b4, sizeof b4)
                : units_format_size_up(pl->gpus[pl->peak_gpu].total, b4, sizeof b4));
    }
    const char *objective = pb->schedule == SPEC_SCHEDULE_1F1B ? "iteration time" : "period";
    for (int i = 0; i < r->nresults; i++) {
        const struct planner_result *res = &r->results[i];
        if (!planner_is_solver(res->planner))
            continue;
        char st[48];
        if (res->plan && res->plan->fits && isfinite(res->bound))
            fprintf(out, "  %s: %s; the %s is at least %s for the network's own layers "
                    "(gap %.2f%%)\n", planner_title(res->planner),
                    planner_status_text(res->status, res->blocks, st, sizeof st), objective,
                    units_format_time(res->bound, b1, sizeof b1), 100 * planner_gap(res));
        if (isfinite(res->block_bound))
            fprintf(out, "  %s: for the network cut into %d block%s it is at least %s "
                    "(block bound)%s\n", planner_title(res->planner), res->blocks,
                    report_s(res->blocks), units_format_time(res->block_bound, b1, sizeof b1),
                    res->plan && res->plan->fits &&
                    res->plan->objective < res->block_bound * (1 - 1e-9)
                    ? "; this plan cuts inside a block and does better" : "");
        if (res->message[0])
            fprintf(out, "  %s: %s\n", planner_title(res->planner),
                    text_escape(res->message, msg, sizeof msg));
    }
    for (int i = 0; i < r->nresults; i++) {
        const struct planner_result *res = &r->results[i];
        if (planner_is_given(res->planner) && res->message[0])
            fprintf(out, "  %s: %s\n", planner_title(res->planner),
                    text_escape(res->message, msg, sizeof msg));
    }
    for (int i = 0; i < r->nresults; i++) {
        const struct planner_result *res = &r->results[i];
        if (!res->plan || res->plan->fits)
            continue;
        if (planner_is_given(res->planner)) {
            /* yours: no rule of its own, just the figures */
            const struct plan_gpu *g = &res->plan->gpus[res->plan->peak_gpu];
            fprintf(out, "  %s: does not fit: %s %d needs %s of its %s\n",
                    planner_title(res->planner), problem_gpu_word(pb, false),
                    res->plan->peak_gpu,
                    units_format_size_up(g->total, b1, sizeof b1),
                    units_format_size(g->cap, b2, sizeof b2));
        } else if (!res->believed_fit && planner_has_memory_rule(res->planner) &&
                   !planner_is_solver(res->planner)) {
            fprintf(out, "  %s: its own memory rule finds no split that fits; shown: the split "
                    "it would pick ignoring memory\n", planner_title(res->planner));
        }
    }
    if (!isnan(r->min_cap) && !(r->min_cap_within > 2 * 1048576.0))
        /* the baselines' cap: the ILP may find a plan that fits in less */
        fprintf(out, "\nNo plan fits. The smallest uniform cap at which a baseline's plan "
                "fits: %s per GPU (%s plan).\n",
                report_min_cap_text(r, b1, sizeof b1),
                planner_title(r->min_cap_planner));
    else if (!isnan(r->min_cap))    /* a search cut short on a large network */
        fprintf(out, "\nNo plan fits. A baseline's plan fits at a uniform cap of %s per GPU "
                "(%s plan); the smallest such cap may be up to %s less.\n",
                units_format_size_up(r->min_cap, b1, sizeof b1), planner_title(r->min_cap_planner),
                units_format_size_up(r->min_cap_within, b2, sizeof b2));

    const struct planner_result *best = NULL;
    for (int i = 0; i < r->nresults; i++)
        if (planner_result_usable(&r->results[i]) &&
            (!best || planner_result_compare(&r->results[i], best) < 0))
            best = &r->results[i];
    const struct plan *pl = best ? best->plan : NULL;
    if (pl && !pl->fits && r->min_cap_plan) {
        /* nothing fits: the plan that fits at the cap just named (its
         * figures may be far worse than its row's: 2.61 s a period at
         * 1.0025 GiB, where the row, needing 1.0052 GiB, has 8.99 ms) */
        pl = r->min_cap_plan;
        char rate[24];
        fprintf(out, "\nPlan that fits at %s per GPU: %s, period %s, iteration %s, %s "
                "samples/s\n", report_min_cap_text(r, b1, sizeof b1),
                planner_title(r->min_cap_planner), units_format_time(pl->T, b2, sizeof b2),
                units_format_time(pl->iteration, b3, sizeof b3),
                units_format_rate(pl->throughput, rate, sizeof rate));
    } else if (pl) {
        fprintf(out, "\nBest plan: %s%s\n", planner_title(best->planner),
                pl->fits ? "" : " (does not fit)");
    } else {
        return ferror(out) ? -1 : 0;
    }
    fprintf(out, "%-4s %9s %9s %9s %10s %10s %10s %10s %10s  %s\n", problem_gpu_word(pb, false),
            "load", "send", "recv", "weights", "activ.", "buffers", "reserved", "total", "layers");
    for (int p = 0; p < pl->P; p++) {
        const struct plan_gpu *g = &pl->gpus[p];
        char c1[32], c2[32], c3[32], c4[32], c5[32], c6[32], c7[32], c8[32], layers[256];
        size_t n = 0;
        layers[0] = '\0';
        for (int i = 0; i < pl->L && n < sizeof layers - 16; i++) {
            if (pl->gpu[i] != p || (i > 0 && pl->gpu[i - 1] == p))
                continue;
            int j = i;
            while (j + 1 < pl->L && pl->gpu[j + 1] == p)
                j++;
            n += (size_t)snprintf(layers + n, sizeof layers - n, "%s%d", n ? "," : "", i);
            if (j > i)
                n += (size_t)snprintf(layers + n, sizeof layers - n, "-%d", j);
        }
        fprintf(out, "%-4d %9s %9s %9s %10s %10s %10s %10s %10s%s %s\n", p,
                units_format_time(g->load_ms, c1, sizeof c1),
                units_format_time(g->send_ms, c2, sizeof c2),
                units_format_time(g->recv_ms, c3, sizeof c3),
                units_format_size(g->weights, c4, sizeof c4),
                units_format_size(g->activations, c5, sizeof c5),
                units_format_size(g->buffers, c6, sizeof c6),
                units_format_size(g->reserved, c7, sizeof c7),
                /* over the cap ("!"): up, as "needs" */
                g->total > g->cap + 0.5 ? units_format_size_up(g->total, c8, sizeof c8)
                : units_format_size(g->total, c8, sizeof c8), g->total > g->cap + 0.5 ? "!" : " ",
                layers[0] ? layers : "-");
    }
    return ferror(out) ? -1 : 0;
}
