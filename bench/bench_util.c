/* bench_util: see bench_util.h. */
#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double bench_peak_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

void bench_say(int fd, const char *step, double sec, double rss, const char *note)
{
    char line[256];
    int n = snprintf(line, sizeof line, "%s %.6f %.1f %s\n", step, sec, rss, note);
    if (n < 0 || n >= (int)sizeof line || write(fd, line, (size_t)n) != n)
        _exit(3);
}

struct bench_step *bench_step_get(struct bench_step *steps, int *nsteps, const char *name)
{
    for (int i = 0; i < *nsteps; i++)
        if (strcmp(steps[i].name, name) == 0)
            return &steps[i];
    if (*nsteps == BENCH_MAX_STEPS)
        return NULL;
    struct bench_step *s = &steps[(*nsteps)++];
    snprintf(s->name, sizeof s->name, "%s", name);
    for (int k = 0; k < BENCH_MAX_SIZES; k++) {
        s->sec[k] = s->rss[k] = NAN;
        s->note[k][0] = '\0';
    }
    return s;
}

void bench_fmt_sec(double s, double limit, char *buf, size_t len)
{
    if (isnan(s))
        snprintf(buf, len, "-");
    else if (isinf(s))
        snprintf(buf, len, ">%.0f", limit);
    else if (s < 1)
        snprintf(buf, len, "%.4f", s);
    else
        snprintf(buf, len, "%.2f", s);
}

static void read_field(const char *file, const char *key, char *buf, size_t len)
{
    snprintf(buf, len, "?");
    FILE *f = fopen(file, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, key, strlen(key)) == 0 && colon) {
            colon++;
            colon += strspn(colon, " \t");
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(buf, len, "%s", colon);
            break;
        }
    }
    if (f)
        fclose(f);
}

void bench_machine(char lines[5][256], const char *note_env, const char *network)
{
    char cpu[200], mem[64], load[64] = "?", rev[64] = "?", date[64] = "?";
    read_field("/proc/cpuinfo", "model name", cpu, sizeof cpu);
    read_field("/proc/meminfo", "MemTotal", mem, sizeof mem);
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fgets(load, sizeof load, f))
            load[strcspn(load, " ")] = '\0';
        fclose(f);
    }
    f = popen("git describe --always --dirty 2>/dev/null", "r");
    if (f) {
        if (fgets(rev, sizeof rev, f))
            rev[strcspn(rev, "\n")] = '\0';
        pclose(f);
    }
    time_t t = time(NULL);
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm);
    snprintf(lines[0], 256, "cpu: %s, %ld cores online", cpu, sysconf(_SC_NPROCESSORS_ONLN));
    snprintf(lines[1], 256, "memory: %s", mem);
    snprintf(lines[2], 256, "date: %s, git %s", date, rev);
    /* what else ran on the machine, said by whoever ran it */
    const char *note = getenv(note_env);
    snprintf(lines[3], 256, "load average (1 min) at the end: %s; wall-clock times%s%s", load,
             note && *note ? "; " : "", note && *note ? note : "");
    snprintf(lines[4], 256, "network: %s", network);
}

int bench_measure(struct bench_step *steps, int *nsteps, int k,
                  void (*run)(int fd, const void *arg), const void *arg)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        close(p[0]);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDOUT_FILENO);
        run(p[1], arg);
        _exit(2);
    }
    close(p[1]);
    FILE *in = fdopen(p[0], "r");
    char line[256];
    while (in && fgets(line, sizeof line, in)) {
        char name[32], note[96];
        double sec, rss;
        if (sscanf(line, "%31s %lf %lf %95s", name, &sec, &rss, note) != 4)
            continue;
        struct bench_step *s = bench_step_get(steps, nsteps, name);
        if (!s)
            continue;
        s->sec[k] = sec;
        s->rss[k] = rss;
        snprintf(s->note[k], sizeof s->note[k], "%s", note);
    }
    if (in)
        fclose(in);
    else
        close(p[0]);
    int st;
    if (waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}
