/* Tests for the planner worker (src/worker.c): events stream back from a
 * child process in order, plans replay against the caller's problem,
 * errors are reported, and a cancel kills and reaps the child at once
 * without leaking descriptors or memory. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "valgrind.h"
#include "planner.h"
#include "simulate.h"
#include "worker.h"

/* A random chain with a cap at `share` of keeping one copy of everything
 * on one GPU: tight enough that memory shapes the plans. */
static struct problem *pb_random(uint64_t seed, int L, int P, double share)
{
    static const struct fx_spread spread = { 2, LAYOUT_ANY, 3, 0.25, 4, 0, 0, 0 };
    fx_seed(seed);
    struct problem *pb = fx_random(L, P, &spread);
    double one_copy = 0;
    for (int i = 0; i < L; i++)
        one_copy += pb->phi * pb->w[i] + pb->s[i];
    for (int p = 0; p < P; p++)
        pb->cap[p] = share * one_copy;
    return pb;
}

/* ---- helpers ------------------------------------------------------------ */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Valgrind and the sanitizers slow the child down: deadlines stretch with them. */
static double slowdown(void)
{
    if (valgrind_running())
        return 40;
#if defined(__SANITIZE_ADDRESS__)
    return 5;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return 5;
#endif
#endif
    return 1;
}

/* The next event, waiting with poll() on worker_fd() until the deadline:
 * 1 with an event, -1 when the worker is finished; fails on timeout. */
static int next_event(struct worker *w, struct worker_event *ev, double deadline)
{
    for (;;) {
        int r = worker_next(w, ev);
        if (r != 0)
            return r;
        double left = deadline - now();
        if (left <= 0)
            fail_msg("no event before the deadline");
        struct pollfd pfd = { .fd = worker_fd(w), .events = POLLIN };
        int ms = (int)(left * 1000) + 1, wake = worker_poll_ms(w);
        if (wake >= 0 && wake < ms)
            ms = wake;
        if (poll(&pfd, 1, ms) < 0 && errno != EINTR)
            fail_msg("poll: %s", strerror(errno));
    }
}

/* work: the ILP's deterministic work limit (tests never depend on the
 * clock for what a solve proves). */
static struct worker *start(const struct problem *pb, const char *const *planners, int n,
                            long work, int blocks)
{
    struct worker_request req = {
        .pb = pb, .planners = planners, .nplanners = n, .work_limit = work, .known_bound = NAN,
        .threads = 1, .blocks = blocks, .log_path = NULL,
    };
    char err[256] = "";
    struct worker *w = worker_start(&req, err, sizeof err);
    if (!w)
        fail_msg("worker_start: %s", err);
    return w;
}

/* Children of this process, from /proc (the worker keeps its pid to
 * itself). Returns how many were written to pids. */
static int children(pid_t *pids, int max)
{
    DIR *d = opendir("/proc");
    assert_non_null(d);
    int n = 0;
    pid_t self = getpid();
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)de->d_name[0]))
            continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        /* pid (comm) state ppid ...: comm may hold spaces and parentheses */
        char *rparen = strrchr(buf, ')');
        char state;
        int ppid;
        if (!rparen || sscanf(rparen + 1, " %c %d", &state, &ppid) != 2)
            continue;
        if (ppid == (int)self && n < max)
            pids[n++] = (pid_t)atoi(de->d_name);
    }
    closedir(d);
    return n;
}

/* No child of ours is left, not even a zombie. */
static void assert_no_children(void)
{
    errno = 0;
    if (waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD)
        fail_msg("a child process is still there (waitpid: %s)", strerror(errno));
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

static void assert_replays(const struct plan *pl, const struct problem *pb, const char *where)
{
    struct sim_report rep;
    enum sim_verdict v = simulate_plan(pl, pb, &rep);
    if (v != SIM_OK)
        fail_msg("%s: simulator says %s: %s", where, simulate_verdict_name(v), rep.reason);
}

/* ---- tests --------------------------------------------------------------- */

/* The baselines and the ILP in one worker: one RESULT per planner in the
 * order asked, PROGRESS only from the ILP and only before its RESULT,
 * every plan valid for the caller's problem, DONE last, then -1 for good. */
static void results_stream_in_order_and_done_comes_last(void **state)
{
    (void)state;
    static const char *const planners[] = { "uniform", "time", "dp", "ilp" };
    struct problem *pb = pb_random(11, 8, 3, 0.6);
    struct worker *w = start(pb, planners, 4, 500, 0);
    assert_true(worker_running(w));
    double deadline = now() + 60 * slowdown();
    int results = 0, progress = 0, done = 0;
    double best_baseline = INFINITY;
    struct worker_event ev;
    int r;
    while ((r = next_event(w, &ev, deadline)) == 1) {
        if (done)
            fail_msg("an event after DONE");
        char where[64];
        switch (ev.kind) {
        case WORKER_RESULT:
            assert_true(results < 4);
            assert_string_equal(ev.planner, planners[results]);
            snprintf(where, sizeof where, "%s result", ev.planner);
            assert_non_null(ev.plan);
            assert_replays(ev.plan, pb, where);
            if (results < 3) {
                /* a baseline: fits or not, said so */
                assert_int_equal(ev.status, ev.plan->fits ? PLAN_FEASIBLE : PLAN_NO_FIT);
                if (ev.plan->fits)
                    best_baseline = fmin(best_baseline, ev.plan->objective);
            } else {
                assert_true(ev.status == PLAN_OPTIMAL || ev.status == PLAN_FEASIBLE ||
                            ev.status == PLAN_TIMEOUT);
                assert_true(ev.plan->fits);
                assert_true(ev.plan->objective <= best_baseline * (1 + 1e-12));
                assert_int_equal(ev.blocks, pb->L);
                if (!isnan(ev.bound))
                    assert_true(ev.bound <= ev.plan->objective * (1 + 1e-9));
            }
            results++;
            break;
        case WORKER_PROGRESS:
            /* the ILP runs last: its reports come after the baselines */
            assert_string_equal(ev.planner, "ilp");
            assert_int_equal(results, 3);
            if (ev.plan) {
                assert_replays(ev.plan, pb, "ilp progress");
                assert_true(ev.plan->fits);
                assert_true(fabs(ev.plan->objective - ev.objective) <= 1e-9 * ev.objective);
            }
            progress++;
            break;
        case WORKER_DONE:
            assert_int_equal(results, 4);
            done++;
            break;
        default:
            fail_msg("unknown event kind %d", (int)ev.kind);
        }
        worker_event_clear(&ev);
    }
    assert_int_equal(r, -1);
    assert_int_equal(done, 1);
    /* the ILP reports at least the baseline it starts from */
    assert_true(progress >= 1);
    assert_false(worker_running(w));
    /* finished for good */
    assert_int_equal(worker_next(w, &ev), -1);
    assert_int_equal(worker_next(w, &ev), -1);
    worker_free(w);
    assert_no_children();
    fx_problem_free(pb);
}

/* An unknown name is an error RESULT naming it; the rest still run. */
static void unknown_planner_gives_error_result(void **state)
{
    (void)state;
    static const char *const planners[] = { "nonesuch", "uniform" };
    struct problem *pb = pb_random(12, 6, 2, 1.0);
    struct worker *w = start(pb, planners, 2, 1000, 0);
    double deadline = now() + 30 * slowdown();
    struct worker_event ev;
    assert_int_equal(next_event(w, &ev, deadline), 1);
    assert_int_equal(ev.kind, WORKER_RESULT);
    assert_string_equal(ev.planner, "nonesuch");
    assert_int_equal(ev.status, PLAN_ERROR);
    assert_null(ev.plan);
    assert_non_null(strstr(ev.message, "nonesuch"));
    worker_event_clear(&ev);
    assert_int_equal(next_event(w, &ev, deadline), 1);
    assert_int_equal(ev.kind, WORKER_RESULT);
    assert_string_equal(ev.planner, "uniform");
    assert_non_null(ev.plan);
    assert_replays(ev.plan, pb, "uniform");
    worker_event_clear(&ev);
    assert_int_equal(next_event(w, &ev, deadline), 1);
    assert_int_equal(ev.kind, WORKER_DONE);
    worker_event_clear(&ev);
    assert_int_equal(next_event(w, &ev, deadline), -1);
    worker_free(w);
    assert_no_children();
    fx_problem_free(pb);
}

/* Runs one baseline on pb (every cap 1 byte: nothing fits) with the least
 * cap asked for under work_limit (0: none); returns the baseline's status
 * and, in *cap, the WORKER_MIN_CAP event that follows it. */
static enum plan_status min_cap_from_worker(struct problem *pb, const char *planner,
                                            long work_limit, struct worker_event *cap)
{
    for (int p = 0; p < pb->P; p++)
        pb->cap[p] = 1;
    const char *planners[] = { planner };
    struct worker_request req = {
        .pb = pb, .planners = planners, .nplanners = 1, .work_limit = work_limit,
        .known_bound = NAN, .threads = 1, .min_cap = true,
    };
    char err[256] = "";
    struct worker *w = worker_start(&req, err, sizeof err);
    assert_non_null(w);
    double deadline = now() + 30 * slowdown();
    struct worker_event ev;
    assert_int_equal(next_event(w, &ev, deadline), 1);
    assert_int_equal(ev.kind, WORKER_RESULT);
    enum plan_status status = ev.status;
    worker_event_clear(&ev);
    assert_int_equal(next_event(w, cap, deadline), 1);
    assert_int_equal(cap->kind, WORKER_MIN_CAP);
    assert_int_equal(next_event(w, &ev, deadline), 1);
    assert_int_equal(ev.kind, WORKER_DONE);
    worker_event_clear(&ev);
    worker_free(w);
    assert_no_children();
    return status;
}

/* The frontier asks for the least cap with one baseline under a cap
 * nothing meets; when that one comes back as an error (the simulator
 * refused its plan, here: no such planner), the least cap still comes,
 * from the others: the frontier said "no frontier" for a network whose
 * DP plan fits. Its value is planner_min_cap's over the same problem. */
static void min_cap_after_a_baseline_error(void **state)
{
    (void)state;
    struct problem *pb = pb_random(12, 6, 2, 1.0);
    struct worker_event ev;
    assert_int_equal(min_cap_from_worker(pb, "nonesuch", 1000, &ev), PLAN_ERROR);
    struct plan *fit = NULL;
    const char *who = NULL;
    double want = planner_min_cap(pb, NULL, 0, &fit, &who, NULL, NULL);
    plan_free(fit);
    assert_true(want > 1);
    assert_true(ev.bound == want);
    assert_string_equal(ev.planner, who);
    worker_event_clear(&ev);
    fx_problem_free(pb);
}

/* The least cap's search keeps to the request's work limit (a cap tried
 * per unit): with 2, the cap sent is planner_min_cap's under the same
 * limit, more than 1 MiB from the least is left open and the event says
 * so; without a limit it is closed to 1 MiB. */
static void min_cap_keeps_to_the_work_limit(void **state)
{
    (void)state;
    struct problem *pb = pb_random(12, 6, 2, 1.0);
    struct worker_event two, all;
    min_cap_from_worker(pb, "dp", 2, &two);
    min_cap_from_worker(pb, "dp", 0, &all);
    struct plan *fit = NULL;
    const char *who = NULL;
    double w2 = -1;
    struct min_cap_limits lim = { 0.0, 2 };
    double want = planner_min_cap(pb, NULL, 0, &fit, &who, &w2, &lim);
    plan_free(fit);
    assert_true(two.bound == want);
    assert_true(two.within == w2);
    assert_true(two.within > 1048576.0);
    assert_true(all.within <= 1048576.0);
    assert_true(all.bound <= two.bound);
    assert_true(all.bound >= two.bound - two.within);
    worker_event_clear(&two);
    worker_event_clear(&all);
    fx_problem_free(pb);
}

/* A long ILP (40 layers, 8 GPUs, 24 blocks, a work limit it would take
 * minutes to use) is killed and reaped at once: the child is gone when
 * worker_free returns (how long that takes is measured in bench/, not
 * asserted here: the machine may be loaded). */
static void cancel_kills_a_long_solve_at_once(void **state)
{
    (void)state;
    static const char *const planners[] = { "uniform", "ilp" };
    struct problem *pb = pb_random(40, 40, 8, 0.25);
    struct worker *w = start(pb, planners, 2, 100000000L, 24);
    double deadline = now() + 30 * slowdown();
    struct worker_event ev;
    assert_int_equal(next_event(w, &ev, deadline), 1);
    assert_int_equal(ev.kind, WORKER_RESULT);
    assert_string_equal(ev.planner, "uniform");
    worker_event_clear(&ev);
    assert_true(worker_running(w));

    pid_t kids[8];
    int nkids = children(kids, 8);
    assert_int_equal(nkids, 1);
    assert_int_equal(kill(kids[0], 0), 0);

    worker_cancel(w);
    worker_free(w);
    errno = 0;
    assert_int_equal(kill(kids[0], 0), -1);
    assert_int_equal(errno, ESRCH);
    assert_no_children();
    fx_problem_free(pb);
}

/* worker_free after the end, before and after -1 was read, and cancel on
 * a finished worker: nothing to kill, nothing to wait for. */
static void free_on_finished_worker_is_clean(void **state)
{
    (void)state;
    static const char *const planners[] = { "uniform" };
    struct problem *pb = pb_random(13, 6, 2, 1.0);
    struct worker_event ev;

    struct worker *w = start(pb, planners, 1, 1000, 0);
    double deadline = now() + 30 * slowdown();
    int r;
    while ((r = next_event(w, &ev, deadline)) == 1)
        worker_event_clear(&ev);
    assert_int_equal(r, -1);
    worker_cancel(w);
    assert_int_equal(worker_next(w, &ev), -1);
    worker_free(w);
    assert_no_children();

    /* DONE read, end of pipe not yet: free reaps it all the same */
    w = start(pb, planners, 1, 1000, 0);
    deadline = now() + 30 * slowdown();
    do {
        assert_int_equal(next_event(w, &ev, deadline), 1);
        worker_event_clear(&ev);
    } while (ev.kind != WORKER_DONE);
    worker_free(w);
    assert_no_children();

    /* cancelled before any event: no events afterwards */
    w = start(pb, planners, 1, 1000, 0);
    worker_cancel(w);
    assert_false(worker_running(w));
    assert_int_equal(worker_next(w, &ev), -1);
    worker_free(w);
    assert_no_children();

    worker_free(NULL);
    fx_problem_free(pb);
}

/* A child that dies without DONE (killed from outside) is reported once
 * as an error RESULT, then the worker is finished. */
static void child_death_gives_one_error_result(void **state)
{
    (void)state;
    static const char *const planners[] = { "uniform", "ilp" };
    struct problem *pb = pb_random(14, 40, 8, 0.25);
    struct worker *w = start(pb, planners, 2, 100000000L, 24);
    double deadline = now() + 30 * slowdown();
    struct worker_event ev;
    assert_int_equal(next_event(w, &ev, deadline), 1);
    assert_string_equal(ev.planner, "uniform");
    worker_event_clear(&ev);

    pid_t kids[8];
    assert_int_equal(children(kids, 8), 1);
    assert_int_equal(kill(kids[0], SIGKILL), 0);
    int errors = 0, r;
    while ((r = next_event(w, &ev, deadline)) == 1) {
        /* progress sent before the kill may still be in the pipe */
        if (ev.kind == WORKER_RESULT) {
            assert_int_equal(ev.status, PLAN_ERROR);
            assert_true(strlen(ev.message) > 0);
            errors++;
        }
        assert_int_not_equal(ev.kind, WORKER_DONE);
        worker_event_clear(&ev);
    }
    assert_int_equal(r, -1);
    assert_int_equal(errors, 1);
    assert_false(worker_running(w));
    worker_free(w);
    assert_no_children();
    fx_problem_free(pb);
}

/* An empty request still ends with DONE; a malformed one is refused. */
static void empty_request_gives_done_and_bad_request_is_refused(void **state)
{
    (void)state;
    struct problem *pb = pb_random(16, 4, 2, 1.0);
    struct worker *w = start(pb, NULL, 0, 1000, 0);
    struct worker_event ev;
    double deadline = now() + 30 * slowdown();
    assert_int_equal(next_event(w, &ev, deadline), 1);
    assert_int_equal(ev.kind, WORKER_DONE);
    worker_event_clear(&ev);
    assert_int_equal(next_event(w, &ev, deadline), -1);
    worker_free(w);

    char err[128] = "";
    assert_null(worker_start(NULL, err, sizeof err));
    assert_true(strlen(err) > 0);
    struct worker_request req = { .pb = NULL, .nplanners = 1 };
    err[0] = '\0';
    assert_null(worker_start(&req, err, sizeof err));
    assert_true(strlen(err) > 0);
    assert_no_children();
    fx_problem_free(pb);
}

/* Two workers at once keep their streams apart, and the child's output
 * goes to the log file when one is named. */
static void two_workers_side_by_side_and_log_file(void **state)
{
    (void)state;
    static const char *const one[] = { "uniform", "time" };
    static const char *const two[] = { "dp", "ilp" };
    struct problem *pa = pb_random(17, 6, 2, 0.8);
    struct problem *pc = pb_random(18, 9, 3, 0.8);
    char log[64];
    snprintf(log, sizeof log, "/tmp/pipeplan_test_worker_%ld.log", (long)getpid());
    unlink(log);
    struct worker *wa = start(pa, one, 2, 1000, 0);
    struct worker_request req = {
        .pb = pc, .planners = two, .nplanners = 2, .work_limit = 20000, .known_bound = NAN,
        .threads = 1, .blocks = 0, .log_path = log,
    };
    char err[128];
    struct worker *wc = worker_start(&req, err, sizeof err);
    assert_non_null(wc);
    double deadline = now() + 60 * slowdown();
    int results_a = 0, results_c = 0;
    bool done_a = false, done_c = false;
    while (!done_a || !done_c) {
        struct pollfd pfd[2] = { { .fd = worker_fd(wa), .events = POLLIN },
                                 { .fd = worker_fd(wc), .events = POLLIN } };
        if (now() > deadline)
            fail_msg("workers did not finish");
        poll(pfd, 2, 100);
        struct worker_event ev;
        int r;
        while (!done_a && (r = worker_next(wa, &ev)) != 0) {
            if (r < 0) {
                done_a = true;
                break;
            }
            if (ev.kind == WORKER_RESULT) {
                assert_string_equal(ev.planner, one[results_a]);
                assert_int_equal(ev.plan->L, pa->L);
                assert_replays(ev.plan, pa, ev.planner);
                results_a++;
            }
            assert_int_not_equal(ev.kind, WORKER_PROGRESS);
            worker_event_clear(&ev);
        }
        while (!done_c && (r = worker_next(wc, &ev)) != 0) {
            if (r < 0) {
                done_c = true;
                break;
            }
            if (ev.kind == WORKER_RESULT) {
                assert_string_equal(ev.planner, two[results_c]);
                assert_int_equal(ev.plan->L, pc->L);
                assert_replays(ev.plan, pc, ev.planner);
                results_c++;
            }
            worker_event_clear(&ev);
        }
    }
    assert_int_equal(results_a, 2);
    assert_int_equal(results_c, 2);
    worker_free(wa);
    worker_free(wc);
    assert_no_children();
    /* opened (created) by the child for its stdout and stderr */
    assert_int_equal(access(log, F_OK), 0);
    unlink(log);
    fx_problem_free(pa);
    fx_problem_free(pc);
}

/* Start/cancel cycles, cancelled at different moments: no descriptor,
 * child or (under ASan/valgrind) memory is left behind. */
static void start_cancel_cycles_leak_nothing(void **state)
{
    (void)state;
    static const char *const planners[] = { "uniform", "ilp" };
    struct problem *pb = pb_random(15, 12, 4, 0.4);
    int before = count_fds();
    for (int k = 0; k < 50; k++) {
        struct worker *w = start(pb, planners, 2, 20000, 0);
        if (k % 3 == 1) {
            /* after the first event: the child is in its solve */
            struct worker_event ev;
            assert_int_equal(next_event(w, &ev, now() + 30 * slowdown()), 1);
            worker_event_clear(&ev);
        } else if (k % 3 == 2) {
            worker_cancel(w);
        }
        worker_free(w);
    }
    assert_int_equal(count_fds(), before);
    assert_no_children();
    fx_problem_free(pb);
}

/* The test hook PIPEPLAN_FAULT (worker.c) makes the solver fail, exit,
 * abort or hang at its first MIP: each is one error RESULT for the ILP
 * with the reason in one line, the baselines before it answered, and no
 * child is left. A hung solver in time mode is killed at its deadline
 * (PIPEPLAN_GRACE shortens the grace to half a second). */
static void run_fault(const char *fault, const char *want, bool plan_kept, bool done)
{
    static const char *const planners[] = { "uniform", "dp", "ilp" };
    /* a cap at which the enumeration of allocations leaves some to the
     * MIPs, where the faults strike (tighter, it proves the first plan
     * with no MIP at all) */
    struct problem *pb = pb_random(21, 8, 3, 1.0);
    setenv("PIPEPLAN_FAULT", fault, 1);
    setenv("PIPEPLAN_GRACE", "0.5", 1);
    bool hang = strcmp(fault, "hang") == 0;
    struct worker_request req = {
        .pb = pb, .planners = planners, .nplanners = 3, .known_bound = NAN, .threads = 1,
        /* time mode for the hang (its deadline), else a deterministic limit */
        .time_limit = hang ? 0.5 : 10, .work_limit = hang ? 0 : 500,
    };
    char err[256] = "";
    struct worker *w = worker_start(&req, err, sizeof err);
    unsetenv("PIPEPLAN_FAULT");
    unsetenv("PIPEPLAN_GRACE");
    if (!w)
        fail_msg("worker_start: %s", err);
    double deadline = now() + 60 * slowdown();
    int results = 0, dones = 0, r;
    struct worker_event ev;
    while ((r = next_event(w, &ev, deadline)) == 1) {
        if (ev.kind == WORKER_RESULT) {
            assert_true(results < 3);
            assert_string_equal(ev.planner, planners[results]);
            if (results < 2) {
                assert_int_not_equal(ev.status, PLAN_ERROR);
                assert_non_null(ev.plan);
            } else {
                assert_int_equal(ev.status, PLAN_ERROR);
                if (!strstr(ev.message, want))
                    fail_msg("%s: message '%s', wanted '%s'", fault, ev.message, want);
                assert_null(strchr(ev.message, '\n'));
                if (plan_kept) {
                    assert_non_null(ev.plan);
                    assert_replays(ev.plan, pb, fault);
                } else {
                    assert_null(ev.plan);
                }
            }
            results++;
        }
        dones += ev.kind == WORKER_DONE;
        worker_event_clear(&ev);
    }
    assert_int_equal(r, -1);
    assert_int_equal(results, 3);
    assert_int_equal(dones, done ? 1 : 0);
    assert_false(worker_running(w));
    worker_free(w);
    assert_no_children();
    fx_problem_free(pb);
}

static void solver_fault_fail(void **state)
{
    (void)state;
    /* the ILP itself reports CBC's failure, with the plan it started from */
    run_fault("fail", "the MIP solver failed", true, true);
}

static void solver_fault_exit(void **state)
{
    (void)state;
    /* 70, or valgrind's error status for what the child still held */
    run_fault("exit", "the solver process exited with status ", false, false);
}

static void solver_fault_abort(void **state)
{
    (void)state;
    run_fault("abort", "the solver process crashed (", false, false);
}

static void solver_fault_hang_is_killed_at_its_deadline(void **state)
{
    (void)state;
    run_fault("hang", "the solver did not stop within 0.5 s of its 0.5 s time limit and was killed",
              false, false);
}

/* Without a time limit to keep (a work limit), nothing is killed for its
 * time: worker_poll_ms() asks for no wake-up. */
static void no_deadline_under_a_work_limit(void **state)
{
    (void)state;
    static const char *const planners[] = { "ilp" };
    struct problem *pb = pb_random(22, 8, 3, 0.6);
    struct worker_request req = {
        .pb = pb, .planners = planners, .nplanners = 1, .known_bound = NAN, .threads = 1,
        .time_limit = 0.001, .work_limit = 100000000L,
    };
    char err[256] = "";
    struct worker *w = worker_start(&req, err, sizeof err);
    assert_non_null(w);
    assert_int_equal(worker_poll_ms(w), -1);
    worker_free(w);
    req.work_limit = 0;
    req.time_limit = 5;
    w = worker_start(&req, err, sizeof err);
    assert_non_null(w);
    /* 5 s and the default grace (30 s plus the limit again) */
    int ms = worker_poll_ms(w);
    assert_true(ms > 30000 && ms <= 40000);
    worker_free(w);
    assert_no_children();
    fx_problem_free(pb);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(results_stream_in_order_and_done_comes_last),
        FX_TEST(unknown_planner_gives_error_result),
        FX_TEST(min_cap_after_a_baseline_error),
        FX_TEST(min_cap_keeps_to_the_work_limit),
        FX_TEST(cancel_kills_a_long_solve_at_once),
        FX_TEST(free_on_finished_worker_is_clean),
        FX_TEST(child_death_gives_one_error_result),
        FX_TEST(empty_request_gives_done_and_bad_request_is_refused),
        FX_TEST(two_workers_side_by_side_and_log_file),
        FX_TEST(start_cancel_cycles_leak_nothing),
        FX_TEST(solver_fault_fail),
        FX_TEST(solver_fault_exit),
        FX_TEST(solver_fault_abort),
        FX_TEST(solver_fault_hang_is_killed_at_its_deadline),
        FX_TEST(no_deadline_under_a_work_limit),
    };
    /* an optional argument runs only the tests whose names match it */
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
