/* worker: planners in a child process, results over a pipe.
 *
 * Why a process and not a thread: CBC 2.10's C API cannot be interrupted
 * and prints to stdout even at log level 0. A child with its own stdout can
 * be killed at any moment and its memory goes with it. */
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ilp.h"
#include "mip.h"
#include "simulate.h"
#include "split.h"

#define MSG_MAGIC 0x70706c6eu   /* "ppln" */

/* One message: this header, then L int32 GPUs, 2L double starts, then
 * msglen bytes of message text. */
struct msg_head {
    uint32_t magic;
    uint32_t kind;
    uint32_t status;
    int32_t blocks;
    int32_t L, P;               /* 0 when there is no plan */
    uint32_t believed_fit;
    uint32_t msglen;
    double bound, block_bound, objective, seconds, T, within;
    char planner[16];
};

/* A solver in time mode that has not finished this long after its time
 * limit is taken for hung and killed: CBC and the ILP overrun their limit
 * by little, but valgrind slows both many times. */
#define GRACE_SECONDS 30.0

struct worker {
    pid_t pid;
    int fd;
    bool eof;                   /* pipe closed by the child */
    bool done;                  /* WORKER_DONE seen */
    bool reaped;
    bool timed_out;             /* killed by us at its deadline */
    int wstatus;                /* from waitpid, once reaped */
    struct problem *pb;
    char *buf;
    size_t len, cap;
    /* the planners asked for, and how many have answered: a child that
     * dies owes a result to each of the rest */
    char (*names)[16];
    int nnames, answered;
    /* time mode: the running solver's deadline (INFINITY: none) */
    double time_limit, grace, deadline;
};

/* ---- child side ---- */

/* Test hook: PIPEPLAN_FAULT, read only in the child, makes every MIP
 * solve of the ILP fail as CBC would (fail), abort inside CBC as Clp's
 * assertions do (clp-abort: recovered, see mip_solve), or the child exit with status
 * 70 (exit), abort (abort) or stop answering (hang) once the ILP reported
 * its first plan or calls CBC. Unset or any other value: no effect.
 * tests/test_worker.c and tests/faults.sh use it to check how a failed,
 * dead or hung solver is reported. */
static int child_fault(void)
{
    const char *f = getenv("PIPEPLAN_FAULT");
    if (!f)
        return 0;
    if (strcmp(f, "fail") == 0)
        return -1;
    if (strcmp(f, "clp-abort") == 0)
        return MIP_FAULT_ABORT;
    if (strcmp(f, "exit") == 0)
        _exit(70);
    if (strcmp(f, "abort") == 0) {
        struct rlimit none = { 0, 0 };      /* no core file for a test */
        setrlimit(RLIMIT_CORE, &none);
        abort();
    }
    if (strcmp(f, "hang") == 0)
        for (;;)
            pause();
    return 0;
}

/* Test hook: PIPEPLAN_FAULT=slow-baselines, read only in the child, makes
 * each baseline start a second late, so that tests/faults.sh can look at
 * the explorer while the baselines of new knobs are still to come. */
static void child_slow_baseline(void)
{
    const char *f = getenv("PIPEPLAN_FAULT");
    if (f && strcmp(f, "slow-baselines") == 0) {
        struct timespec second = { 1, 0 };
        while (nanosleep(&second, &second) != 0 && errno == EINTR)
            ;
    }
}

static void child_fault_install(void)
{
    const char *f = getenv("PIPEPLAN_FAULT");
    if (f && (strcmp(f, "fail") == 0 || strcmp(f, "exit") == 0 || strcmp(f, "abort") == 0 ||
              strcmp(f, "hang") == 0 || strcmp(f, "clp-abort") == 0))
        mip_set_fault(child_fault);
}

static int write_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Send ev (its plan, if any, as pl) in one write: the reader wakes once,
 * not per field. */
static int send_msg(int fd, const struct worker_event *ev, const struct plan *pl)
{
    struct msg_head h;
    memset(&h, 0, sizeof h);
    h.magic = MSG_MAGIC;
    h.kind = (uint32_t)ev->kind;
    h.status = (uint32_t)ev->status;
    h.blocks = ev->blocks;
    h.L = pl ? pl->L : 0;
    h.P = pl ? pl->P : 0;
    h.believed_fit = ev->believed_fit;
    h.msglen = (uint32_t)strlen(ev->message);
    h.bound = ev->bound;
    h.within = ev->within;
    h.block_bound = ev->block_bound;
    h.objective = ev->objective;
    h.seconds = ev->seconds;
    h.T = pl ? pl->T : NAN;
    memcpy(h.planner, ev->planner, sizeof h.planner);
    size_t n = sizeof h + (size_t)h.L * (sizeof(int32_t) + 2 * sizeof(double)) + h.msglen;
    char *buf = malloc(n);
    if (!buf)
        return -1;
    char *p = buf;
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    for (int i = 0; i < h.L; i++) {
        int32_t g = pl->gpu[i];
        memcpy(p, &g, sizeof g);
        p += sizeof g;
    }
    if (h.L) {
        memcpy(p, pl->start, (size_t)(2 * h.L) * sizeof *pl->start);
        p += (size_t)(2 * h.L) * sizeof *pl->start;
    }
    if (h.msglen)
        memcpy(p, ev->message, h.msglen);
    int rc = write_all(fd, buf, n);
    free(buf);
    return rc;
}

static void child_progress(void *ctx, const struct ilp_progress *p)
{
    const int *fd = ctx;
    struct worker_event ev = {
        .kind = WORKER_PROGRESS, .planner = "ilp", .status = PLAN_RUNNING, .bound = p->bound,
        .block_bound = p->block_bound, .objective = p->objective, .seconds = p->elapsed,
        .blocks = p->blocks, .believed_fit = true,
    };
    send_msg(*fd, &ev, p->plan);
    /* the test hook's exit, abort and hang strike here too: after the
     * first plan, whether or not a MIP comes before the time limit */
    if (p->plan)
        child_fault();
}

/* The search's trace goes where the child's stdout goes: the log. */
static void child_trace(void *ctx, const char *line)
{
    (void)ctx;
    printf("pipeplan ilp: %s\n", line);
    fflush(stdout);
}

/* The smallest cap at which a plan fits, sent as one event. The search
 * keeps to the request's limits: the caller's watchdog gives the next
 * solver its time limit and a grace, counted from the last baseline, and
 * an unlimited search on thousands of layers could outlast both. */
static int child_min_cap(int fd, const struct worker_request *req,
                         const struct planner_result *known, int nknown)
{
    struct plan *pl = NULL;
    const char *who = NULL;
    double within = 0;
    struct min_cap_limits lim = { .seconds = req->time_limit, .work = req->work_limit };
    bool limited = req->work_limit > 0 || req->time_limit > 0;
    double cap = planner_min_cap(req->pb, known, nknown, &pl, &who, &within,
                                 limited ? &lim : NULL);
    plan_free(pl);
    struct worker_event ev = { .kind = WORKER_MIN_CAP, .bound = cap, .block_bound = NAN,
                               .objective = NAN, .within = isfinite(cap) ? within : 0,
                               .believed_fit = true };
    snprintf(ev.planner, sizeof ev.planner, "%s", who ? who : "");
    return send_msg(fd, &ev, NULL);
}

void worker_judge_user(const struct worker_request *req, struct planner_result *res)
{
    const struct problem *pb = req->pb;
    memset(res, 0, sizeof *res);
    res->planner = planner_given();
    res->status = PLAN_ERROR;
    res->bound = res->block_bound = NAN;
    char err[SPEC_ERR_LEN];
    if (req->user_split) {
        int *gpu = malloc((size_t)pb->L * sizeof *gpu), ranks;
        if (!gpu)
            snprintf(res->message, sizeof res->message, "out of memory");
        else if ((ranks = split_parse(req->user_split, pb, gpu, err, sizeof err)) < 0)
            snprintf(res->message, sizeof res->message, "bad split: %.300s", err);
        else if (split_runtime_order(req->user_split))
            planner_judge_1f1b(pb, gpu, ranks, req->user_source, res);
        else
            planner_judge(pb, gpu, 0, NULL, req->user_source, res);
        free(gpu);
    } else if (req->user_L != pb->L) {
        snprintf(res->message, sizeof res->message, "the plan file has %d layer%s, the network %d",
                 req->user_L, req->user_L == 1 ? "" : "s", pb->L);
    } else {
        planner_judge(pb, req->user_gpu, req->user_T, req->user_start, req->user_source, res);
    }
}

static void child_run(int fd, const struct worker_request *req)
{
    /* the least cap that fits: only when some baseline was judged (its
     * plan, or the simulator's refusal of it) and no plan fits */
    bool any_fit = false, baselines = false, cap_sent = false;
    /* the baselines' results so far, the caller's and ours, for the ILP */
    int nb = 0, nmax = req->nbaselines + req->nplanners;
    struct planner_result *base = calloc((size_t)nmax + 1, sizeof *base);
    if (!base)
        return;
    for (int j = 0; j < req->nbaselines; j++) {
        base[nb] = req->baselines[j];
        base[nb].plan = NULL;
        if (req->baselines[j].plan && !(base[nb].plan = plan_copy(req->baselines[j].plan)))
            base[nb].status = PLAN_ERROR;
        nb++;
    }
    int rc = 0;
    for (int i = 0; i < req->nplanners && rc == 0; i++) {
        const char *name = req->planners[i];
        struct planner_result res;
        if (planner_is_solver(name) && req->min_cap && baselines && !any_fit && !cap_sent) {
            cap_sent = true;
            if ((rc = child_min_cap(fd, req, base, nb)) < 0)
                break;
        }
        rc = -1;
        bool user = strcmp(name, planner_given()) == 0;
        if (user) {
            worker_judge_user(req, &res);
            rc = 0;
        } else if (planner_is_solver(name)) {
            struct ilp_options opt;
            ilp_options_init(&opt);
            opt.time_limit = req->time_limit;
            opt.work_limit = req->work_limit;
            opt.threads = req->threads;
            opt.blocks = req->blocks;
            opt.warm = req->warm;
            opt.known_bound = req->known_bound;
            opt.known_net_bound = req->known_net_bound;
            opt.baselines = base;
            opt.nbaselines = nb;
            opt.on_progress = child_progress;
            opt.ctx = &fd;
            if (req->log_path) {
                opt.on_trace = child_trace;
                opt.solver_log = 1;
            }
            rc = ilp_solve(req->pb, &opt, &res, NULL);
        } else {
            child_slow_baseline();
            rc = planner_run(name, req->pb, &res);
        }
        if (rc != 0) {
            memset(&res, 0, sizeof res);
            res.planner = name;
            res.status = PLAN_ERROR;
            res.bound = res.block_bound = NAN;
            snprintf(res.message, sizeof res.message, planner_exists(name)
                     ? "the planner '%s' could not start" : "unknown planner '%s'", name);
        }
        /* nothing the simulator rejects is shown as a plan: this replay
         * covers every planner's (the ILP replays its own too, but one on
         * a subset of the GPUs comes back relabelled), and solve trusts it */
        struct sim_report sim;
        if (res.plan && res.status != PLAN_ERROR && simulate_plan(res.plan, req->pb, &sim) != SIM_OK) {
            res.status = PLAN_ERROR;
            snprintf(res.message, sizeof res.message, "rejected by the simulator: %s", sim.reason);
            /* no figures of it either: "fits", a gap or a rate beside
             * "error" would be shown as if they held */
            plan_free(res.plan);
            res.plan = NULL;
        }
        struct worker_event ev = {
            .kind = WORKER_RESULT, .status = res.status, .bound = res.bound,
            .block_bound = res.block_bound, .objective = res.plan ? res.plan->objective : NAN,
            .seconds = res.seconds, .blocks = res.blocks, .believed_fit = res.believed_fit,
        };
        snprintf(ev.planner, sizeof ev.planner, "%s", name);
        snprintf(ev.message, sizeof ev.message, "%s", res.message);
        /* a baseline the simulator refused counts as judged: the least
         * cap then comes from the others (planner_min_cap runs them) */
        if (!planner_is_solver(name) && !user) {
            baselines = true;
            any_fit = any_fit || (res.plan && res.status != PLAN_ERROR && res.plan->fits);
        }
        rc = send_msg(fd, &ev, res.plan);
        if (!planner_is_solver(name) && !user && nb < nmax)
            base[nb++] = res;           /* kept for the ILP, plan and all */
        else
            planner_result_clear(&res);
    }
    if (rc == 0 && req->min_cap && baselines && !any_fit && !cap_sent)
        rc = child_min_cap(fd, req, base, nb);
    for (int j = 0; j < nb; j++)
        planner_result_clear(&base[j]);
    free(base);
    if (rc < 0)
        return;
    struct worker_event done = { .kind = WORKER_DONE, .bound = NAN, .block_bound = NAN,
                                 .objective = NAN, .believed_fit = true };
    send_msg(fd, &done, NULL);
}

/* Point stdin at /dev/null and stdout/stderr at the log (CBC writes there). */
static void child_redirect(const char *log_path)
{
    int in = open("/dev/null", O_RDONLY);
    if (in >= 0) {
        dup2(in, STDIN_FILENO);
        close(in);
    }
    /* O_NONBLOCK: a FIFO nobody reads must not hold the planners up */
    int out = log_path ? open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_NONBLOCK, 0644) : -1;
    if (out >= 0)
        fcntl(out, F_SETFL, fcntl(out, F_GETFL) & ~O_NONBLOCK);
    if (out < 0)
        out = open("/dev/null", O_WRONLY);
    if (out >= 0) {
        dup2(out, STDOUT_FILENO);
        dup2(out, STDERR_FILENO);
        close(out);
    }
}

/* ---- parent side ---- */

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A planner just answered (or the child started): when the next one is a
 * solver with a time limit, its deadline starts now. */
static void worker_clock(struct worker *w)
{
    w->deadline = INFINITY;
    if (w->time_limit > 0 && w->answered < w->nnames && planner_is_solver(w->names[w->answered]))
        w->deadline = mono_now() + w->time_limit + w->grace;
}

struct worker *worker_start(const struct worker_request *req, char *err, size_t errlen)
{
    if (!req || !req->pb || req->nplanners < 0) {
        snprintf(err, errlen, "bad worker request");
        return NULL;
    }
    struct worker *w = calloc(1, sizeof *w);
    if (!w || !(w->pb = problem_copy(req->pb)) ||
        !(w->names = calloc((size_t)req->nplanners + 1, sizeof *w->names))) {
        if (w)
            problem_free(w->pb);
        free(w);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->nnames = req->nplanners;
    for (int i = 0; i < req->nplanners; i++)
        snprintf(w->names[i], sizeof w->names[i], "%s", req->planners[i]);
    /* under a work limit the solve owes nothing to the clock */
    w->time_limit = req->work_limit > 0 ? 0 : req->time_limit;
    const char *g = getenv("PIPEPLAN_GRACE");   /* test hook: seconds */
    w->grace = g && atof(g) > 0 ? atof(g) : GRACE_SECONDS + w->time_limit;
    w->deadline = INFINITY;
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        problem_free(w->pb);
        free(w->names);
        free(w);
        return NULL;
    }
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        problem_free(w->pb);
        free(w->names);
        free(w);
        return NULL;
    }
    if (pid == 0) {
        /* die with the parent, even when it is killed or crashes */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(0);
        /* The parent's handlers (terminal restore) are not ours. The
         * terminal's own signals (Ctrl-C, a closed terminal, sent to the
         * whole process group) are the parent's to act on: it kills us,
         * or dies and the death signal above does; dying of them here
         * mid-solve would only race it (and under valgrind report the
         * solve's memory in flight as lost). */
        static const int sigs[] = { SIGTERM, SIGQUIT, SIGSEGV, SIGABRT, SIGBUS, SIGFPE,
                                    SIGILL, SIGTRAP, SIGSYS, SIGXCPU, SIGXFSZ, SIGWINCH,
                                    SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM,
                                    SIGVTALRM, SIGPROF };
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
            signal(sigs[i], SIG_DFL);
        signal(SIGINT, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
        close(fds[0]);
        /* the parent's bookkeeping of the child, not the child's */
        problem_free(w->pb);
        free(w->names);
        free(w);
        child_redirect(req->log_path);
        child_fault_install();
        child_run(fds[1], req);
        close(fds[1]);
        _exit(0);
    }
    close(fds[1]);
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    w->pid = pid;
    w->fd = fds[0];
    worker_clock(w);
    return w;
}

int worker_fd(const struct worker *w)
{
    return w->fd;
}

bool worker_running(const struct worker *w)
{
    return w && !w->done && !w->eof;
}

static void worker_reap(struct worker *w)
{
    if (!w->reaped && w->pid > 0) {
        while (waitpid(w->pid, &w->wstatus, 0) < 0 && errno == EINTR)
            ;
        w->reaped = true;
    }
}

/* Why the child ended before it was done, in one line. */
static void worker_death(const struct worker *w, char *buf, size_t len)
{
    int st = w->wstatus;
    if (w->timed_out)
        snprintf(buf, len, "the solver did not stop within %.3g s of its %.3g s time limit "
                 "and was killed", w->grace, w->time_limit);
    else if (WIFSIGNALED(st))
        snprintf(buf, len, "the solver process crashed (%s, signal %d)",
                 strsignal(WTERMSIG(st)), WTERMSIG(st));
    else if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
        snprintf(buf, len, "the solver process exited with status %d before it finished",
                 WEXITSTATUS(st));
    else
        snprintf(buf, len, "the planning process ended unexpectedly");
}

/* Read what the pipe holds into the buffer. */
static void worker_fill(struct worker *w)
{
    while (!w->eof) {
        if (w->cap - w->len < 65536) {
            size_t cap = w->cap ? w->cap * 2 : 131072;
            char *nb = realloc(w->buf, cap);
            if (!nb)
                return;
            w->buf = nb;
            w->cap = cap;
        }
        ssize_t r = read(w->fd, w->buf + w->len, w->cap - w->len);
        if (r > 0) {
            w->len += (size_t)r;
        } else if (r == 0) {
            w->eof = true;
        } else {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                w->eof = true;
            return;
        }
    }
}

/* Parse one complete message from the buffer; 1 if one was taken. */
static int worker_parse(struct worker *w, struct worker_event *ev)
{
    struct msg_head h;
    if (w->len < sizeof h)
        return 0;
    memcpy(&h, w->buf, sizeof h);
    if (h.magic != MSG_MAGIC || h.L < 0 || h.P < 0 || h.msglen > 4096) {
        /* garbled: nothing more from it can be trusted (nor waited for) */
        kill(w->pid, SIGKILL);
        w->len = 0;
        w->eof = true;
        return 0;
    }
    size_t need = sizeof h + (size_t)h.L * (sizeof(int32_t) + 2 * sizeof(double)) + h.msglen;
    if (w->len < need)
        return 0;
    memset(ev, 0, sizeof *ev);
    ev->kind = (enum worker_event_kind)h.kind;
    ev->status = (enum plan_status)h.status;
    ev->bound = h.bound;
    ev->within = h.within;
    ev->block_bound = h.block_bound;
    ev->objective = h.objective;
    ev->seconds = h.seconds;
    ev->blocks = h.blocks;
    ev->believed_fit = h.believed_fit;
    memcpy(ev->planner, h.planner, sizeof ev->planner);
    ev->planner[sizeof ev->planner - 1] = '\0';
    const char *p = w->buf + sizeof h;
    if (h.L > 0 && h.L == w->pb->L && h.P == w->pb->P) {
        struct plan *pl = plan_new(h.L, h.P);
        if (pl) {
            for (int i = 0; i < h.L; i++) {
                int32_t g;
                memcpy(&g, p + (size_t)i * sizeof g, sizeof g);
                pl->gpu[i] = g;
            }
            memcpy(pl->start, p + (size_t)h.L * sizeof(int32_t),
                   (size_t)(2 * h.L) * sizeof(double));
            pl->T = h.T;
            if (plan_evaluate(pl, w->pb) != 0) {
                plan_free(pl);
                pl = NULL;
            }
        }
        ev->plan = pl;
    }
    p += (size_t)h.L * (sizeof(int32_t) + 2 * sizeof(double));
    size_t n = h.msglen < sizeof ev->message ? h.msglen : sizeof ev->message - 1;
    memcpy(ev->message, p, n);
    ev->message[n] = '\0';
    memmove(w->buf, w->buf + need, w->len - need);
    w->len -= need;
    if (ev->kind == WORKER_DONE)
        w->done = true;
    if (ev->kind == WORKER_RESULT || ev->kind == WORKER_MIN_CAP) {
        if (ev->kind == WORKER_RESULT)
            w->answered++;
        worker_clock(w);
    }
    return 1;
}

int worker_next(struct worker *w, struct worker_event *ev)
{
    if (!w)
        return -1;
    worker_fill(w);
    if (worker_parse(w, ev))
        return 1;
    if (!w->eof && !w->done && mono_now() >= w->deadline) {
        /* past its time limit and the grace: hung, whatever it is doing */
        kill(w->pid, SIGKILL);
        w->timed_out = true;
        w->eof = true;
        w->len = 0;
    }
    if (!w->eof)
        return 0;
    worker_reap(w);
    if (!w->done) {
        /* died without saying so: one error result for each planner
         * still owed (the one that was running first), then the end */
        memset(ev, 0, sizeof *ev);
        ev->kind = WORKER_RESULT;
        ev->status = PLAN_ERROR;
        ev->bound = ev->block_bound = NAN;
        ev->believed_fit = true;
        worker_death(w, ev->message, sizeof ev->message);
        if (w->answered < w->nnames)
            memcpy(ev->planner, w->names[w->answered], sizeof ev->planner);
        if (++w->answered >= w->nnames)
            w->done = true;
        return 1;
    }
    return -1;
}

int worker_poll_ms(const struct worker *w)
{
    if (!w || w->done || w->eof || !isfinite(w->deadline))
        return -1;
    double left = w->deadline - mono_now();
    return left <= 0 ? 0 : left > 1e6 ? 1000000000 : (int)ceil(left * 1e3);
}

void worker_event_clear(struct worker_event *ev)
{
    plan_free(ev->plan);
    ev->plan = NULL;
}

void worker_cancel(struct worker *w)
{
    if (!w || w->reaped)
        return;
    kill(w->pid, SIGKILL);
    worker_reap(w);
    w->eof = true;
    w->done = true;
    w->len = 0;
}

void worker_free(struct worker *w)
{
    if (!w)
        return;
    worker_cancel(w);
    close(w->fd);
    free(w->buf);
    free(w->names);
    problem_free(w->pb);
    free(w);
}
