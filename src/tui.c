/* tui: the explorer's terminal side: curses set up and restored on every
 * way out (quit, signals, crashes), and the event loop that waits on the
 * keyboard, the solver worker and signals at once, so the screen never
 * waits for a solve. */
#include "tui_impl.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <term.h>
#include <unistd.h>

#include "text.h"

/* While the ILP runs, the elapsed time on screen ticks this often (ms). */
#define TICK_MS 200

/* Signals reach the loop through this pipe (handlers only write a byte). */
static int sig_pipe[2] = { -1, -1 };
/* Curses owns the terminal: a crash must give it back first. */
static volatile sig_atomic_t term_active;

/* every signal whose default ends the process: the terminal is given
 * back first (USR1 or ALRM left it in the alternate screen, cursor hidden) */
static const int quit_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1,
                                    SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF };
static const int crash_signals[] = { SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGTRAP,
                                     SIGSYS, SIGXCPU, SIGXFSZ };
#define NQUIT ((int)(sizeof quit_signals / sizeof quit_signals[0]))
#define NCRASH ((int)(sizeof crash_signals / sizeof crash_signals[0]))
static struct sigaction saved_quit[NQUIT], saved_crash[NCRASH], saved_winch, curses_winch;

static void signal_note(int sig)
{
    int saved = errno;
    unsigned char c = (unsigned char)sig;
    if (write(sig_pipe[1], &c, 1) < 0) {
        /* a full pipe already holds a wake-up */
    }
    errno = saved;
}

static void on_quit_signal(int sig)
{
    signal_note(sig);
}

static void on_winch(int sig)
{
    /* curses keeps its own resize bookkeeping: let it run too */
    if (!(curses_winch.sa_flags & SA_SIGINFO) && curses_winch.sa_handler != SIG_DFL &&
        curses_winch.sa_handler != SIG_IGN && curses_winch.sa_handler != NULL)
        curses_winch.sa_handler(sig);
    signal_note(sig);
}

static void on_crash(int sig)
{
    if (term_active) {
        term_active = 0;
        endwin();
    }
    /* the previous handler (default, or a sanitizer's) reports the crash */
    for (int i = 0; i < NCRASH; i++)
        if (crash_signals[i] == sig)
            sigaction(sig, &saved_crash[i], NULL);
    raise(sig);
}

static int signals_install(void)
{
    if (pipe(sig_pipe) != 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(sig_pipe[i], F_SETFL, fcntl(sig_pipe[i], F_GETFL) | O_NONBLOCK);
        fcntl(sig_pipe[i], F_SETFD, FD_CLOEXEC);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_quit_signal;
    for (int i = 0; i < NQUIT; i++)
        sigaction(quit_signals[i], &sa, &saved_quit[i]);
    sa.sa_handler = on_crash;
    for (int i = 0; i < NCRASH; i++)
        sigaction(crash_signals[i], &sa, &saved_crash[i]);
    return 0;
}

/* After newterm: chain to the SIGWINCH handler curses installed. */
static void winch_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_winch;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGWINCH, &sa, &curses_winch);
    saved_winch = curses_winch;
}

static void signals_restore(void)
{
    sigaction(SIGWINCH, &saved_winch, NULL);
    for (int i = 0; i < NQUIT; i++)
        sigaction(quit_signals[i], &saved_quit[i], NULL);
    for (int i = 0; i < NCRASH; i++)
        sigaction(crash_signals[i], &saved_crash[i], NULL);
    for (int i = 0; i < 2; i++) {
        if (sig_pipe[i] >= 0)
            close(sig_pipe[i]);
        sig_pipe[i] = -1;
    }
}

void tui_trace(struct tui *t, const char *fmt, ...)
{
    if (!t->trace)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(t->trace, fmt, ap);
    va_end(ap);
    fputc('\n', t->trace);
    fflush(t->trace);           /* tests read it while the explorer runs */
}

/* The newest knob values, planned again: baselines first so they show at
 * once, the ILP last; the running solve is killed. */
static void worker_restart(struct tui *t)
{
    /* a solve cut short before its baselines came in still owes them */
    bool all = t->replan == REPLAN_ALL || tui_baselines_owed(t);
    /* your plan with the baselines, or alone when it alone changed */
    bool user = t->user >= 0 && (all || !t->rows[t->user].done);
    t->replan = REPLAN_NONE;
    worker_free(t->worker);
    t->worker = NULL;
    t->gen++;
    t->gen_key = t->replan_key;
    /* only a full re-plan has new baseline plans to wait for */
    if (!all)
        t->shown_gen = t->gen;
    /* only the ILP's blocks or limit changed: its plan so far holds for
     * the same problem, and the new search starts from it (it showed the
     * baselines' plan again, 1.90 s where it had 1.89 s) */
    const struct tui_row *was = &t->rows[t->ilp];
    struct plan *kept = !all && was->plan && was->plan->fits && was->tp == t->cur
                        ? plan_copy(was->plan) : NULL;
    tui_rows_begin(t, all);
    const struct problem *pb = t->cur->pb;
    /* the memory-aware baselines first (nothing is called "nothing fits"
     * before they answered), the others, the solver last */
    const char *names[TUI_MAX_ROWS];
    int n = 0;
    for (int pass = 0; pass < 2 && all; pass++)
        for (int i = 0; i < t->nrows; i++)
            if (i != t->ilp && i != t->user &&
                planner_has_memory_rule(t->rows[i].planner) == (pass == 0))
                names[n++] = t->rows[i].planner;
    /* your plan after them, judged in the worker too: its schedule
     * builder takes most of a second on a plan that does not fit */
    if (user)
        names[n++] = t->rows[t->user].planner;
    /* a setting solved before continues from its result (and one proven
     * is not solved again) */
    struct tui_row *ilp = &t->rows[t->ilp];
    const struct tui_cache_entry *ce = tui_cache_find(t);
    const struct plan *warm = NULL;
    double known = NAN;
    if (ce) {
        tui_row_from_cache(t, ce);
        warm = ilp->plan;
        known = ce->nblocks >= pb->L ? ce->bound : ce->block_bound;
    }
    if (!warm || (kept && kept->objective < warm->objective))
        warm = kept;
    /* what a search of this problem proved for the network holds for any
     * blocks: shown at once and given to the new search (k, K and T did
     * not keep it) */
    double known_net = tui_cache_net_bound(t);
    if (isfinite(known_net) && !(ilp->bound >= known_net))
        ilp->bound = known_net;
    if (!ilp->done) {
        names[n++] = ilp->planner;
        /* with the baselines in already, the solver starts at once */
        if (!all) {
            ilp->started = true;
            t->ilp_t0 = tui_now();
        }
    }
    /* the baselines' plans in already: the solver starts from them rather
     * than planning them again (the child gets its copy at the fork) */
    struct planner_result base[TUI_MAX_ROWS];
    int nb = 0;
    for (int i = 0; i < t->nrows && !all; i++) {
        const struct tui_row *r = &t->rows[i];
        if (i == t->ilp || i == t->user || !r->done || r->stale || r->tp != t->cur)
            continue;
        memset(&base[nb], 0, sizeof base[nb]);
        base[nb].planner = r->planner;
        base[nb].status = r->status;
        base[nb].plan = r->plan;
        base[nb].believed_fit = r->believed_fit;
        base[nb].bound = base[nb].block_bound = NAN;
        nb++;
    }
    t->cap_owed = all;
    struct worker_request req = {
        .pb = pb, .planners = names, .nplanners = n, .time_limit = t->set.time_limit,
        .work_limit = t->opt.work_limit, .warm = warm, .known_bound = known,
        .known_net_bound = known_net,
        .threads = t->opt.threads > 0 ? t->opt.threads : 1, .blocks = t->set.k.blocks,
        .log_path = t->opt.log_path, .min_cap = all, .baselines = base, .nbaselines = nb,
    };
    tui_user_request(t, &req);
    char err[256];
    t->worker = n > 0 ? worker_start(&req, err, sizeof err) : NULL;
    plan_free(kept);            /* the child has its copy */
    if (n > 0 && !t->worker) {
        struct worker_event ev;
        memset(&ev, 0, sizeof ev);
        ev.kind = WORKER_RESULT;
        snprintf(ev.message, sizeof ev.message, "cannot start the planners: %s", err);
        tui_event_apply(t, &ev);
        tui_message(t, MSG_ERROR, "%s", ev.message);
    }
    /* what was asked of the worker: the ILP or not, and from a kept plan */
    tui_trace(t, "replan %.3f %u %.3f%s%s", tui_now() * 1e3, t->gen, t->gen_key * 1e3,
              !ilp->done ? " ilp" : "", !ilp->done && warm ? " warm" : "");
    t->dirty = true;
}

static void frame_show(struct tui *t)
{
    tui_draw(t);
    t->dirty = false;
    double now = tui_now();
    tui_trace(t, "frame %.3f", now * 1e3);
    if (t->trace) {
        /* the plan on show: a row of an older setting is shown only
         * while the memory-aware planners answer (the hold) */
        bool updating;
        const struct tui_row *r = tui_view_row(t, &updating);
        tui_trace(t, "view %s %s %s %s", r->planner ? r->planner : "-",
                  r->stale ? "stale" : "fresh", tui_settled(t) ? "settled" : "updating",
                  !r->plan ? "-" : r->plan->fits ? "fits" : "nofit");
        bool ilp;
        tui_trace(t, "bound %.17g", tui_objective_bound(t, &ilp));
        const struct tui_row *s = &t->rows[t->ilp];
        tui_trace(t, "ilp %s", s->started ? "running" : s->done ? "done" : "waiting");
    }
    if (t->shown_gen != t->gen) {
        for (int i = 0; i < t->nrows; i++)
            if (i != t->ilp && t->rows[i].done && t->rows[i].plan) {
                t->shown_gen = t->gen;
                tui_trace(t, "shown %.3f %u %.3f", now * 1e3, t->gen, t->gen_key * 1e3);
                break;
            }
    }
}

/* Size the screen from the terminal when curses has no handler of its own. */
static void screen_resize(void)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
        resize_term(ws.ws_row, ws.ws_col);
}

static bool curses_handles_winch(void)
{
    return !(curses_winch.sa_flags & SA_SIGINFO) && curses_winch.sa_handler != SIG_DFL &&
           curses_winch.sa_handler != SIG_IGN && curses_winch.sa_handler != NULL;
}

static void signals_drain(struct tui *t)
{
    unsigned char buf[64];
    ssize_t n;
    while ((n = read(sig_pipe[0], buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            int sig = buf[i];
            if (sig == SIGWINCH) {
                if (!curses_handles_winch())
                    screen_resize();
                t->dirty = true;
            } else if (!t->quit) {
                t->quit = true;
                /* Ctrl-C is the documented way to quit: not an error */
                t->exit_status = sig == SIGINT ? 0 : 128 + sig;
            }
        }
    }
}

static void worker_drain(struct tui *t)
{
    if (!t->worker)
        return;
    struct worker_event ev;
    int r;
    while ((r = worker_next(t->worker, &ev)) == 1) {
        if (ev.kind == WORKER_RESULT)
            tui_trace(t, "result %.3f %u %s", tui_now() * 1e3, t->gen, ev.planner);
        tui_event_apply(t, &ev);
        worker_event_clear(&ev);
    }
    if (r < 0) {
        /* finished: nothing more will come (and its fd would poll forever) */
        worker_free(t->worker);
        t->worker = NULL;
        t->rows[t->ilp].started = false;
        t->dirty = true;
    }
}

/* The frontier view's next request, when it is open and none is in
 * flight; its computation starts over for a new problem (a knob). */
static void frontier_next(struct tui *t)
{
    struct tui_frontier *f = &t->front;
    /* it goes on while its help is read */
    if (t->mode != MODE_FRONTIER && !(t->mode == MODE_HELP && t->help_from == MODE_FRONTIER))
        return;
    if (!tui_frontier_current(t))
        tui_frontier_open(t, tui_frontier_points());
    while (!f->worker) {
        struct worker_request req;
        const char *names[TUI_MAX_ROWS];
        if (!tui_frontier_request(t, &req, names))
            break;
        char err[256];
        f->worker = worker_start(&req, err, sizeof err);
        if (!f->worker) {
            f->phase = FR_FAILED;
            snprintf(f->why, sizeof f->why, "cannot start the planners: %s", err);
        }
        t->dirty = true;
    }
}

static void frontier_drain(struct tui *t)
{
    struct tui_frontier *f = &t->front;
    if (!f->worker)
        return;
    struct worker_event ev;
    int r;
    while ((r = worker_next(f->worker, &ev)) == 1) {
        tui_frontier_event(t, &ev);
        worker_event_clear(&ev);
    }
    if (r < 0) {
        worker_free(f->worker);
        f->worker = NULL;
        t->dirty = true;
    }
}

static int poll_timeout(const struct tui *t, double *next_tick)
{
    /* the workers' own deadlines: a hung solver is killed there */
    int w = t->worker ? worker_poll_ms(t->worker) : -1;
    int fw = t->front.worker ? worker_poll_ms(t->front.worker) : -1;
    if (fw >= 0 && (w < 0 || fw < w))
        w = fw;
    if (!t->rows[t->ilp].started)
        return w;
    double now = tui_now();
    if (*next_tick <= now)
        *next_tick = now + TICK_MS / 1e3;
    int tick = (int)ceil((*next_tick - now) * 1e3);
    return w >= 0 && w < tick ? w : tick;
}

static void loop_run(struct tui *t)
{
    double next_tick = 0, wake = 0;
    while (!t->quit) {
        if (t->replan != REPLAN_NONE)
            worker_restart(t);
        frontier_next(t);
        if (t->dirty)
            frame_show(t);
        /* how long a key that came during this pass waited unseen */
        if (t->trace && wake > 0)
            tui_trace(t, "work %.3f %.3f", wake * 1e3, tui_now() * 1e3);
        struct pollfd fds[4] = {
            { .fd = STDIN_FILENO, .events = POLLIN },
            { .fd = sig_pipe[0], .events = POLLIN },
            { .fd = t->worker ? worker_fd(t->worker) : -1, .events = POLLIN },
            { .fd = t->front.worker ? worker_fd(t->front.worker) : -1, .events = POLLIN },
        };
        int n = poll(fds, 4, poll_timeout(t, &next_tick));
        wake = tui_now();
        if (n < 0 && errno != EINTR)
            break;
        signals_drain(t);
        if (t->quit)
            break;
        /* events first: they belong to the problem the worker was given,
         * which a key below may replace */
        worker_drain(t);
        frontier_drain(t);
        if (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL)) {
            t->quit = true;     /* the terminal went away */
            t->exit_status = 128 + SIGHUP;
            break;
        }
        int ch;
        while (!t->quit && (ch = getch()) != ERR) {
            if (t->replan == REPLAN_NONE)
                t->replan_key = wake;
            tui_trace(t, "key %.3f %d", wake * 1e3, ch);
            tui_key(t, ch);
        }
        if (t->rows[t->ilp].started && wake >= next_tick)
            t->dirty = true;
    }
}

int tui_run(const struct tui_options *opt, struct spec_network *net,
            struct spec_platform *plat)
{
    struct tui *t = calloc(1, sizeof *t);
    char err[SPEC_ERR_LEN];
    if (!t) {
        spec_network_free(net);
        spec_platform_free(plat);
        text_eprintf("pipeplan: out of memory\n");
        return 2;
    }
    if (tui_state_init(t, opt, net, plat, err, sizeof err) < 0) {
        tui_state_free(t);
        free(t);
        text_eprintf("pipeplan: %s\n", err);
        return 2;
    }
    /* the user's locale for the screen, but numbers (JSON exports, spec
     * files on reload) keep their dot */
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C");
    const char *codeset = nl_langinfo(CODESET);
    t->unicode = codeset && strcmp(codeset, "UTF-8") == 0;
    const char *trace = getenv("PIPEPLAN_TRACE");
    if (trace && *trace && (t->trace = fopen(trace, "a")) != NULL)
        setvbuf(t->trace, NULL, _IOLBF, 0);

    if (signals_install() < 0) {
        text_eprintf("pipeplan: cannot set up signals: %s\n", strerror(errno));
        t->exit_status = 2;
        goto out;
    }
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (!scr) {
        signals_restore();
        const char *term = getenv("TERM");
        text_eprintf("pipeplan: cannot use the terminal (TERM=%s)\n", term ? term : "unset");
        t->exit_status = 2;
        goto out;
    }
    set_term(scr);
    /* a terminal that cannot place the cursor (TERM=dumb) draws every
     * frame onto one line */
    const char *cup = tigetstr("cup");
    if (!cup || cup == (const char *)-1) {
        endwin();
        delscreen(scr);
        signals_restore();
        const char *term = getenv("TERM");
        text_eprintf("pipeplan: the terminal (TERM=%s) cannot move the cursor, which the "
                     "explorer needs (e.g. TERM=xterm-256color); solve works anywhere\n",
                     term ? term : "unset");
        t->exit_status = 2;
        goto out;
    }
    term_active = 1;
    winch_install();
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    tui_draw_init(t);

    loop_run(t);

    worker_free(t->worker);
    t->worker = NULL;
    tui_frontier_stop(t);
    curs_set(1);
    endwin();
    term_active = 0;
    delscreen(scr);
    signals_restore();
out:
    if (t->trace)
        fclose(t->trace);
    int rc = t->exit_status;
    tui_state_free(t);
    free(t);
    return rc;
}
