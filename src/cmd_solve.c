/* pipeplan solve: run planners headless and print a table or JSON. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fileio.h"
#include "export.h"
#include "planfile.h"
#include "planner.h"
#include "report.h"
#include "simulate.h"
#include "spec.h"
#include "split.h"
#include "text.h"
#include "units.h"
#include "worker.h"

static const char solve_usage[] =
    "usage: " CLI_USAGE_SOLVE "\n"
    CLI_HELP_KNOBS
    CLI_HELP_ILP(CLI_SOLVE_DEFAULT_SECONDS)
    CLI_HELP_YOURS
    CLI_HELP_SOLVE_ONLY;

int cli_parse_knob(int argc, char **argv, int *i, struct knobs *k)
{
    static const char *const names[] = {
        "--gpus", "--memory", "--micro-batches", "--schedule", "--layout", "--weight-factor",
        NULL
    };
    const char *value = NULL;
    int which = cli_flag_match(names, argc, argv, i, &value);
    if (which < 0)
        return which == -1 ? 0 : -1;
    char why[160];
    long n;
    uint64_t size;
    double real;
    switch (which) {
    case 0:
        if (units_parse_count(value, 1, SPEC_MAX_GPUS, &n, why, sizeof why) < 0)
            goto bad;
        k->gpus = (int)n;
        break;
    case 1:
        if (units_parse_size(value, &size, why, sizeof why) < 0)
            goto bad;
        if (size == 0) {
            snprintf(why, sizeof why, "must be positive");
            goto bad;
        }
        k->memory = size;
        break;
    case 2:
        if (units_parse_count(value, 1, 1000000, &n, why, sizeof why) < 0)
            goto bad;
        k->micro_batches = n;
        break;
    case 3:
        if (strcmp(value, "1f1b") == 0)
            k->schedule = SPEC_SCHEDULE_1F1B;
        else if (strcmp(value, "pipedream") == 0)
            k->schedule = SPEC_SCHEDULE_PIPEDREAM;
        else {
            snprintf(why, sizeof why, "expected 1f1b or pipedream");
            goto bad;
        }
        break;
    case 4:
        if (strcmp(value, "any") == 0)
            k->layout = LAYOUT_ANY;
        else if (strcmp(value, "contiguous") == 0)
            k->layout = LAYOUT_CONTIGUOUS;
        else {
            snprintf(why, sizeof why, "expected any or contiguous");
            goto bad;
        }
        break;
    default:
        if (units_parse_real(value, &real, why, sizeof why) < 0)
            goto bad;
        if (real < 1 || real > 1000) {
            snprintf(why, sizeof why, "out of range (expected 1 to 1000)");
            goto bad;
        }
        k->weight_factor = real;
        break;
    }
    return 1;
bad:
    cli_bad_value(names[which], value, why);
    return -1;
}

/* A value quoted in a message: its first QUOTE_MAX bytes, escaped as on
 * the terminal (a newline in it would end the one-line message), and
 * "..." when it went on: not a page of a value thousands of characters
 * long. Returns buf. */
#define QUOTE_MAX 80

static const char *quoted(const char *s, char *buf, size_t len)
{
    char cut[QUOTE_MAX + 1];
    snprintf(cut, sizeof cut, "%s", s);
    text_escape(cut, buf, len > 3 ? len - 3 : len);
    if (strlen(s) > QUOTE_MAX)
        strcat(buf, "...");
    return buf;
}

/* A --planner list refused: one line, the list quoted. Returns -1. */
static int bad_planners(const char *cmd, const char *list, const char *why)
{
    char q[4 * QUOTE_MAX + 8];
    text_eprintf("pipeplan%s%s: bad --planner '%s': %s (expected NAME[,NAME...] or all)\n",
                 cmd ? " " : "", cmd ? cmd : "", quoted(list, q, sizeof q), why);
    return -1;
}

/* Comma-separated planner names into a list of static names, each once;
 * an empty list or item, a name given twice or unknown is refused with a
 * message (cmd: "solve" or "sweep", NULL for pipeplan's own). Returns how
 * many, or -1. */
int cli_parse_planners(const char *cmd, const char *list, const char **out, int max)
{
    int n = 0;
    if (strcmp(list, "all") == 0) {
        for (int i = 0; i < planner_count() && n < max; i++)
            out[n++] = planner_name(i);
        return n;
    }
    if (!*list)
        return bad_planners(cmd, list, "an empty list");
    char *copy = strdup(list);
    if (!copy)
        return -1;
    int rc = 0;
    /* strsep, not strtok: "dp,,time" has an empty item */
    for (char *rest = copy, *tok; rc == 0 && (tok = strsep(&rest, ",")) != NULL;) {
        if (!*tok) {
            rc = bad_planners(cmd, list, "an empty item");
            break;
        }
        if (strcmp(tok, "all") == 0) {
            rc = bad_planners(cmd, list, "'all' names every planner: give it alone");
            break;
        }
        const char *name = planner_is_given(tok) ? planner_given() : NULL;
        for (int i = 0; i < planner_count() && !name; i++)
            if (strcmp(planner_name(i), tok) == 0)
                name = planner_name(i);
        if (!name) {
            char q[4 * QUOTE_MAX + 8];
            text_eprintf("pipeplan%s%s: unknown planner '%s' (expected ", cmd ? " " : "",
                         cmd ? cmd : "", quoted(tok, q, sizeof q));
            for (int i = 0; i < planner_count(); i++)
                text_eprintf("%s, ", planner_name(i));
            /* a sweep takes no plan of yours */
            if (cmd && strcmp(cmd, "sweep") == 0)
                text_eprintf("or all)\n");
            else
                text_eprintf("%s (with --split or --plan) or all)\n", planner_given());
            rc = -1;
            break;
        }
        for (int j = 0; j < n && rc == 0; j++)
            if (out[j] == name) {
                char why[64];
                snprintf(why, sizeof why, "'%s' given twice", name);
                rc = bad_planners(cmd, list, why);
            }
        if (rc == 0 && n < max)
            out[n++] = name;
    }
    free(copy);
    return rc < 0 ? -1 : n;
}

/* A log file that is not there yet: whether its directory takes it. */
static int log_dir_check(const char *path, char *why, size_t len)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, len, "no directory %.100s (expected an existing one)", dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(why, len, "cannot create a file in %.100s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* The ILP's own flags, shared with the explorer. */
int cli_parse_ilp(int argc, char **argv, int *i, struct ilp_args *a)
{
    static const char *const names[] = { "--blocks", "--time-limit", "--threads", "--log",
                                         "--work-limit", NULL };
    const char *value = NULL;
    int which = cli_flag_match(names, argc, argv, i, &value);
    if (which < 0)
        return which == -1 ? 0 : -1;
    char why[160];
    long n;
    double real;
    switch (which) {
    case 0:
        if (units_parse_count(value, 0, 4096, &n, why, sizeof why) < 0)
            goto bad;
        a->blocks = (int)n;
        break;
    case 1:
        if (units_parse_real(value, &real, why, sizeof why) < 0)
            goto bad;
        if (real <= 0 || real > 86400) {
            snprintf(why, sizeof why, "out of range (expected seconds, more than 0 and at most 86400)");
            goto bad;
        }
        a->time_limit = real;
        break;
    case 2:
        if (units_parse_count(value, 1, 256, &n, why, sizeof why) < 0)
            goto bad;
        a->threads = (int)n;
        break;
    case 3: {
        /* said now, not found out by the worker, which could only fall
         * back to no log (a FIFO is opened when the worker starts, by
         * whoever reads it) */
        struct stat st;
        int gone = stat(value, &st) == 0 ? 0 : errno;
        if (!gone) {
            if (!S_ISFIFO(st.st_mode)) {
                int fd = open(value, O_WRONLY | O_APPEND | O_CLOEXEC);
                if (fd < 0) {
                    snprintf(why, sizeof why, "cannot open for writing: %s", strerror(errno));
                    goto bad;
                }
                close(fd);
            }
        } else if (gone != ENOENT) {
            snprintf(why, sizeof why, "cannot open for writing: %s", strerror(gone));
            goto bad;
        } else if (log_dir_check(value, why, sizeof why) < 0) {
            goto bad;
        }
        /* a new file is made when the solve starts: a mistake later on
         * the command line leaves none behind */
        a->log_path = value;
        break;
    }
    default:
        if (units_parse_count(value, 1, 1000000000L, &n, why, sizeof why) < 0)
            goto bad;
        a->work_limit = n;
        break;
    }
    return 1;
bad:
    cli_bad_value(names[which], value, why);
    return -1;
}

/* The trace appended to the network file broke it for the next run (and
 * for the explorer's reload); -o on the log was refused only after the
 * whole solve, or with --force replaced the log. Regular files only: a
 * device or a FIFO is written in place, as -o writes it. */
int cli_check_log(const char *log, const char *const *files, const char *const *what, int n)
{
    if (!log)
        return 0;
    struct stat sl, sf;
    bool have = stat(log, &sl) == 0;
    if (have && !S_ISREG(sl.st_mode))
        return 0;
    for (int k = 0; k < n; k++) {
        if (!files[k])
            continue;
        bool same = strcmp(files[k], log) == 0 ||
            (have && stat(files[k], &sf) == 0 && sf.st_dev == sl.st_dev && sf.st_ino == sl.st_ino);
        if (same) {
            const char *cmd = cli_command();
            text_eprintf("pipeplan%s%s: --log '%s' is %s '%s' (expected another name for the "
                         "log)\n", cmd ? " " : "", cmd ? cmd : "", log, what[k], files[k]);
            return 2;
        }
    }
    return 0;
}

/* Run the planners in a worker process (CBC writes to stdout, which must
 * stay ours) and collect one result per planner, in request order. With
 * `stop`, a nonzero *stop (set by a signal handler) cancels the worker:
 * -1, the results cleared. */
static int run_planners(const struct problem *pb, const char *const *planners, int n,
                        const struct ilp_args *ilp, struct planner_result *results,
                        const volatile sig_atomic_t *stop)
{
    struct worker_request req = {
        .pb = pb, .planners = planners, .nplanners = n, .time_limit = ilp->time_limit,
        .work_limit = ilp->work_limit, .threads = ilp->threads, .blocks = ilp->blocks,
        .log_path = ilp->log_path, .known_bound = NAN,
    };
    char err[256];
    struct worker *w = worker_start(&req, err, sizeof err);
    if (!w) {
        const char *cmd = cli_command();
        text_eprintf("pipeplan%s%s: cannot start the planners: %s\n", cmd ? " " : "",
                     cmd ? cmd : "", err);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        memset(&results[i], 0, sizeof results[i]);
        results[i].planner = planners[i];
        results[i].status = PLAN_ERROR;
        results[i].bound = results[i].block_bound = NAN;
        snprintf(results[i].message, sizeof results[i].message, "no result");
    }
    int next = 0;
    for (;;) {
        if (stop && *stop) {
            worker_free(w);
            for (int i = 0; i < n; i++)
                planner_result_clear(&results[i]);
            return -1;
        }
        struct worker_event ev;
        int r = worker_next(w, &ev);
        if (r < 0)
            break;
        if (r == 0) {
            /* woken at the solver's deadline too: a hung one is killed;
             * and often enough to notice a stop request */
            struct pollfd pfd = { worker_fd(w), POLLIN, 0 };
            int ms = worker_poll_ms(w);
            if (stop && (ms < 0 || ms > 200))
                ms = 200;
            if (poll(&pfd, 1, ms) < 0 && errno != EINTR)
                break;
            continue;
        }
        if (ev.kind == WORKER_PROGRESS && ev.plan && next < n) {
            /* the solver's best so far: kept should it fail or die */
            planner_result_clear(&results[next]);
            results[next].plan = ev.plan;
            ev.plan = NULL;
        }
        if (ev.kind == WORKER_RESULT && next < n) {
            struct planner_result *res = &results[next++];
            res->status = ev.status;
            /* a solver that died keeps the last plan it streamed; one that
             * failed sends its best plan before that with its error */
            bool kept = ev.status == PLAN_ERROR && !ev.plan && res->plan;
            if (!kept) {
                planner_result_clear(res);
                res->plan = ev.plan;
                ev.plan = NULL;
            }
            res->bound = ev.bound;
            res->block_bound = ev.block_bound;
            res->seconds = ev.seconds;
            res->believed_fit = ev.believed_fit;
            res->blocks = ev.blocks;
            res->kept = kept || (ev.status == PLAN_ERROR && res->plan);
            /* the worker replays every plan it returns but an error's */
            res->replayed = res->plan && ev.status != PLAN_ERROR;
            snprintf(res->message, sizeof res->message, "%.280s%s", ev.message,
                     kept ? "; kept its best plan before that" : "");
            /* a failed or dead solver: one line, the other plans still shown */
            if (ev.status == PLAN_ERROR) {
                const char *cmd = cli_command();
                fprintf(stderr, "pipeplan%s%s: %s: %s\n", cmd ? " " : "", cmd ? cmd : "",
                        planner_title(res->planner), res->message);
            }
        }
        worker_event_clear(&ev);
    }
    worker_free(w);
    return 0;
}

int cli_run_planners(const struct problem *pb, const char *const *order, int nrun,
                     const struct ilp_args *ilp, struct planner_result *results,
                     const volatile sig_atomic_t *stop)
{
    /* the baselines before the solver, so a solver that dies leaves
     * their plans (returned in the order asked all the same) */
    const char *run[16];
    int k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < nrun; i++)
            if (planner_is_solver(order[i]) == (pass == 1))
                run[k++] = order[i];
    if (run_planners(pb, run, nrun, ilp, results, stop) != 0)
        return -1;
    for (int i = 0; i < nrun; i++)
        for (int j = i; j < nrun; j++)
            if (results[j].planner == order[i]) {
                struct planner_result tmp = results[i];
                results[i] = results[j];
                results[j] = tmp;
                break;
            }
    return 0;
}

int cli_finish_results(const struct problem *pb, struct planner_result *results, int n)
{
    int blocks = pb->L;
    /* a bound proven for the network holds whichever planner made the plan */
    double net_bound = -INFINITY;
    for (int i = 0; i < n; i++)
        if (isfinite(results[i].bound))
            net_bound = fmax(net_bound, results[i].bound);
    for (int i = 0; i < n; i++)
        if (isfinite(net_bound) && !(results[i].bound >= net_bound))
            results[i].bound = net_bound;
    for (int i = 0; i < n; i++) {
        struct planner_result *res = &results[i];
        if (planner_is_solver(res->planner) && res->blocks > 0)
            blocks = res->blocks;
        /* every plan is checked by the independent simulator before it is
         * shown: here those the worker did not replay (the user's, a dead
         * solver's last), since a replay of a large plan takes a second */
        struct sim_report sim;
        if (res->plan && !res->replayed && simulate_plan(res->plan, pb, &sim) != SIM_OK) {
            res->status = PLAN_ERROR;
            res->kept = false;
            snprintf(res->message, sizeof res->message, "rejected by the simulator: %s",
                     sim.reason);
            plan_free(res->plan);
            res->plan = NULL;
        }
    }
    return blocks;
}

/* What solve was asked to do beyond the planners. */
struct solve_args {
    const char *split;           /* --split SPEC */
    const char *plan_path;       /* --plan FILE */
    const struct export_format *format;
    const char *output;          /* -o FILE, NULL: standard output */
    bool force;
    bool named;                  /* --planner was given */
    const char *one;             /* the one planner it named, or NULL */
    long tensor_parallel;
};

static int solve_problem(const struct problem *pb, const char *const *planners, int nplanners,
                         const struct ilp_args *ilp, const struct solve_args *sa);

int cmd_solve(int argc, char **argv)
{
    struct knobs knobs;
    knobs_init(&knobs);
    const char *files[2] = { NULL, NULL };
    const char *planners[16];
    int nplanners = cli_parse_planners("solve", "all", planners, 16);
    bool json = false;
    const char *format = NULL;
    int nfiles = 0;
    struct ilp_args ilp = { 10.0, 0, 1, -1, NULL };
    struct solve_args sa = { 0 };
    static const char *const value_flags[] = {
        "--planner", "--split", "--plan", "--format", "--output", "-o", NULL
    };
    const char *v = NULL;

    cli_set_command("solve");
    for (int i = 1; i < argc; i++) {
        int r = cli_parse_knob(argc, argv, &i, &knobs);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        r = cli_parse_ilp(argc, argv, &i, &ilp);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--force") == 0) {
            sa.force = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            return cli_help("solve", solve_usage);
        } else if ((r = cli_flag_match(value_flags, argc, argv, &i, &v)) != -1) {
            if (r < 0)
                return 2;
            switch (r) {
            case 0:
                nplanners = cli_parse_planners("solve", v, planners, 16);
                if (nplanners <= 0)
                    return 2;
                sa.named = strcmp(v, "all") != 0;
                sa.one = sa.named && nplanners == 1 ? planners[0] : NULL;
                break;
            case 1:
            case 2:
                if (sa.split || sa.plan_path) {
                    text_eprintf("pipeplan solve: %s after %s (expected one plan of yours: "
                            "--split or --plan, once)\n", value_flags[r],
                            sa.split ? "--split" : "--plan");
                    return 2;
                }
                if (r == 1)
                    sa.split = v;
                else
                    sa.plan_path = v;
                break;
            case 3:
                format = v;
                sa.format = export_find(v);
                if (!sa.format) {
                    char names[160];
                    text_eprintf("pipeplan solve: bad --format '%s' (expected %s)\n", v,
                            export_names(names, sizeof names));
                    return 2;
                }
                break;
            default:
                if (!*v) {
                    text_eprintf("pipeplan solve: %s needs a file name\n", value_flags[r]);
                    return 2;
                }
                sa.output = v;
                break;
            }
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            text_eprintf("pipeplan solve: unknown option '%s' (see pipeplan solve --help)\n",
                    argv[i]);
            return 2;
        } else if (nfiles < 2) {
            files[nfiles++] = argv[i];
        } else {
            text_eprintf("pipeplan solve: unexpected argument '%s' (expected "
                    CLI_USAGE_SOLVE ")\n", argv[i]);
            return 2;
        }
    }
    if (nfiles == 0) {
        text_eprintf("pipeplan solve: missing NETWORK.ini and PLATFORM.ini (expected "
                CLI_USAGE_SOLVE ")\n");
        return 2;
    }
    if (nfiles == 1) {
        text_eprintf("pipeplan solve: missing PLATFORM.ini after '%s' (expected "
                CLI_USAGE_SOLVE ")\n", files[0]);
        return 2;
    }
    if (json && sa.format && strcmp(sa.format->name, "json") != 0) {
        text_eprintf("pipeplan solve: --json and --format %s (expected one output format)\n",
                format);
        return 2;
    }
    if (!sa.format)
        sa.format = export_find(json ? "json" : "table");
    if (sa.force && !sa.output) {
        text_eprintf("pipeplan solve: --force without -o FILE (expected -o FILE to overwrite)\n");
        return 2;
    }
    bool wants_given = false;
    for (int k = 0; k < nplanners; k++)
        wants_given = wants_given || planner_is_given(planners[k]);
    if (wants_given && !sa.split && !sa.plan_path) {
        text_eprintf("pipeplan solve: --planner %s needs your plan (expected --split SPEC or "
                "--plan FILE)\n", planner_given());
        return 2;
    }
    const char *const used[] = { files[0], files[1], sa.plan_path, sa.output };
    const char *const used_as[] = { "the network file", "the platform file", "the plan file",
                                    "the output file" };
    if (cli_check_log(ilp.log_path, used, used_as, 4) != 0)
        return 2;
    /* an output it could not write: say so before the planners run */
    char perr[1200];
    if (sa.output && fileio_probe(sa.output, sa.force, perr, sizeof perr) < 0) {
        text_eprintf("pipeplan solve: %s\n", perr);
        return 2;
    }

    char err[SPEC_ERR_LEN];
    struct spec_network *net = spec_network_load(files[0], err, sizeof err);
    if (!net) {
        text_eprintf("%s\n", err);
        return 2;
    }
    struct spec_platform *plat = spec_platform_load(files[1], err, sizeof err);
    if (!plat) {
        text_eprintf("%s\n", err);
        spec_network_free(net);
        return 2;
    }
    sa.tensor_parallel = net->tensor_parallel;
    struct problem *pb = problem_create(net, plat, &knobs, err, sizeof err);
    spec_network_free(net);
    spec_platform_free(plat);
    if (!pb) {
        text_eprintf("pipeplan solve: %s\n", err);
        return 2;
    }

    if (sa.format->network && sa.format->network(pb, err, sizeof err) < 0) {
        text_eprintf("pipeplan solve: cannot write a plan of %s as %s: %s\n", files[0],
                     sa.format->name, err);
        problem_free(pb);
        return 2;
    }
    int rc = solve_problem(pb, planners, nplanners, &ilp, &sa);
    problem_free(pb);
    return rc;
}

/* The user's plan as a result (doc/model.md section 7: judged like a
 * baseline). Returns 0, or -1 after saying what is wrong. */
static int given_result(const struct problem *pb, const struct solve_args *sa,
                        struct planner_result *res)
{
    char err[SPEC_ERR_LEN];
    char source[300];
    int rc;
    if (sa->split) {
        int *gpu = malloc((size_t)pb->L * sizeof *gpu);
        if (!gpu) {
            text_eprintf("pipeplan solve: out of memory\n");
            return -1;
        }
        int ranks = split_parse(sa->split, pb, gpu, err, sizeof err);
        if (ranks < 0) {
            /* the value as given, but not a page of it */
            char q[4 * QUOTE_MAX + 8], why[4 * sizeof err];
            text_eprintf("pipeplan solve: bad --split '%s': %s\n", quoted(sa->split, q, sizeof q),
                         text_escape(err, why, sizeof why));
            free(gpu);
            return -1;
        }
        snprintf(source, sizeof source, "--split %s", sa->split);
        rc = split_runtime_order(sa->split) ? planner_judge_1f1b(pb, gpu, ranks, source, res)
                                            : planner_judge(pb, gpu, 0, NULL, source, res);
        rc = rc < 0 ? -1 : 0;
        free(gpu);
    } else {
        char note[512];
        struct plan *pl = planfile_load(sa->plan_path, pb, note, sizeof note, err, sizeof err);
        if (!pl) {
            text_eprintf("%s\n", err);
            return -1;
        }
        if (note[0])   /* a what-if, or a setting forgotten: either way, said */
            text_eprintf("pipeplan solve: %s\n", note);
        snprintf(source, sizeof source, "--plan %s", sa->plan_path);
        rc = planner_judge(pb, pl->gpu, pl->T, pl->start, source, res);
        plan_free(pl);
    }
    if (rc < 0) {
        if (sa->split)
            text_eprintf("pipeplan solve: your split: %s\n", res->message);
        else   /* the file, as the reader's own messages name it */
            text_eprintf("%s: your plan: %s\n", sa->plan_path, res->message);
        planner_result_clear(res);
        return -1;
    }
    return 0;
}

/* The plan a one-plan format exports: the one --planner names, else the
 * best (fitting first, then the objective; when none fits, the least
 * memory). NULL after saying why. */
static const struct planner_result *export_choice(const struct planner_result *results, int n,
                                                  const struct solve_args *sa)
{
    const struct planner_result *best = NULL;
    for (int i = 0; i < n; i++) {
        if (sa->one && results[i].planner == sa->one) {
            if (planner_result_usable(&results[i]))
                return &results[i];
            text_eprintf("pipeplan solve: no plan to export from %s (%s)\n",
                    planner_title(results[i].planner), results[i].message);
            return NULL;
        }
        if (planner_result_usable(&results[i]) &&
            (!best || planner_result_compare(&results[i], best) < 0))
            best = &results[i];
    }
    if (!best) {
        text_eprintf("pipeplan solve: no plan to export\n");
        return NULL;
    }
    if (n > 1 && sa->named)
        text_eprintf("pipeplan solve: exporting the best plan shown, %s "
                "(--planner with one NAME picks another)\n", planner_title(best->planner));
    return best;
}

/* When nothing fits, the plan exported needs the least memory at the cap
 * given, which is not the plan the table shows as fitting at the least
 * cap: one line says so, with that cap as --memory takes it. */
static void note_least_cap(const struct report *rep, const struct planner_result *res)
{
    const struct problem *pb = rep->pb;
    const struct plan *pl = res->plan;
    if (pl->fits || !rep->min_cap_plan || !(rep->min_cap < pl->peak_memory - 0.5))
        return;
    char caps[72], b1[32], need[32], cap[32], opt[32];
    double cmin = pb->cap[0], cmax = pb->cap[0];
    for (int p = 1; p < pb->P; p++) {
        cmin = fmin(cmin, pb->cap[p]);
        cmax = fmax(cmax, pb->cap[p]);
    }
    units_format_size(cmin, caps, sizeof caps);
    if (cmax > cmin) {
        size_t n = strlen(caps);
        snprintf(caps + n, sizeof caps - n, " to %s", units_format_size(cmax, b1, sizeof b1));
    }
    units_format_size_up(pl->peak_memory, need, sizeof need);
    /* the cap as the table prints it, without its space: one word to paste */
    report_min_cap_text(rep, cap, sizeof cap);
    size_t k = 0;
    for (const char *c = cap; *c && k < sizeof opt - 1; c++)
        if (*c != ' ')
            opt[k++] = *c;
    opt[k] = '\0';
    char who[64];
    if (planner_is_given(res->planner))
        snprintf(who, sizeof who, "your plan");
    else
        snprintf(who, sizeof who, "%s's plan", planner_title(res->planner));
    text_eprintf("pipeplan solve: nothing fits at %s: wrote %s, which needs %s; the %s's plan "
                 "for %s needs less: plan with --memory %s to export a plan that fits in it\n",
                 caps, who, need, planner_title(rep->min_cap_planner), cap, opt);
}

/* Run the planners on a problem and write the chosen format; the exit
 * status of solve. */
static int solve_problem(const struct problem *pb, const char *const *planners, int nplanners,
                         const struct ilp_args *ilp, const struct solve_args *sa)
{
    /* the registry's planners run; the user's plan is judged here */
    const char *order[16];
    int nrun = 0;
    for (int i = 0; i < nplanners; i++)
        if (!planner_is_given(planners[i]))
            order[nrun++] = planners[i];
    bool given = sa->split || sa->plan_path;
    struct planner_result *results = calloc((size_t)nrun + 1, sizeof *results);
    if (!results) {
        text_eprintf("pipeplan solve: out of memory\n");
        return 2;
    }
    if (given && given_result(pb, sa, &results[nrun]) < 0) {
        free(results);
        return 2;
    }
    if (nrun > 0 && cli_run_planners(pb, order, nrun, ilp, results, NULL) != 0) {
        planner_result_clear(&results[nrun]);
        free(results);
        return 2;
    }
    int n = nrun + given;
    int blocks = cli_finish_results(pb, results, n);
    /* the least cap that fits is worth its search only when memory is
     * what failed: not when every plan was refused (by the simulator, as
     * too long to replay) */
    bool any_fits = false, memory_failed = false;
    for (int i = 0; i < n; i++)
        if (planner_result_usable(&results[i])) {
            any_fits = any_fits || results[i].plan->fits;
            memory_failed = memory_failed || !results[i].plan->fits;
        }
    struct report rep = {
        .pb = pb, .blocks = blocks, .results = results, .nresults = n,
        .min_cap = NAN, .min_cap_planner = NULL,
    };
    struct plan *cap_plan = NULL;
    /* a one-plan format wants the cap only to say that its plan is not
     * the one that fits at it (note_least_cap); a plan named is as asked */
    if (!any_fits && memory_failed && (!sa->format->one_plan || !sa->one)) {
        /* --time-limit seconds of its own (the ILP may have spent the
         * planners' on finding nothing that fits), or --work-limit caps */
        struct min_cap_limits lim = {
            ilp->time_limit > 0 ? ilp->time_limit : INFINITY,
            ilp->work_limit,
        };
        rep.min_cap = planner_min_cap(pb, results, n, &cap_plan, &rep.min_cap_planner,
                                      &rep.min_cap_within, &lim);
        rep.min_cap_plan = cap_plan;
    }
    struct export_input in = { .rep = &rep, .res = NULL, .tensor_parallel = sa->tensor_parallel };
    int rc = any_fits ? 0 : 1;
    char err[SPEC_ERR_LEN + 64];
    if (sa->format->one_plan) {
        in.res = export_choice(results, n, sa);
        if (!in.res)
            rc = 2;
    }
    if (rc != 2 && sa->format->check && sa->format->check(&in, err, sizeof err) < 0) {
        text_eprintf("pipeplan solve: cannot write plan %s as %s: %s\n",
                planner_title(in.res->planner), sa->format->name, err);
        rc = 2;
    }
    if (rc != 2) {
        if (sa->output) {
            if (export_file(sa->output, sa->force, sa->format, &in, err, sizeof err) < 0) {
                text_eprintf("pipeplan solve: %s\n", err);
                rc = 2;
            }
        } else if (sa->format->write(stdout, &in) < 0 || fflush(stdout) != 0) {
            text_eprintf("pipeplan solve: write error on standard output\n");
            rc = 2;
        }
    }
    if (rc != 2 && sa->format->one_plan)
        note_least_cap(&rep, in.res);
    plan_free(cap_plan);
    for (int i = 0; i < n; i++)
        planner_result_clear(&results[i]);
    free(results);
    return rc;
}
