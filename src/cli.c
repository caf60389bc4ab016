/* cli: what the subcommands share in how they talk to the user. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "fileio.h"
#include "spec.h"
#include "text.h"

int cli_help(const char *cmd, const char *text)
{
    fputs(text, stdout);
    if (ferror(stdout) || fflush(stdout) != 0) {
        text_eprintf("pipeplan%s%s: write error on standard output\n", cmd ? " " : "",
                     cmd ? cmd : "");
        return 2;
    }
    return 0;
}

bool cli_value_is_option(const char *v)
{
    return v[0] == '-' && v[1] == '-' && isalpha((unsigned char)v[2]);
}

/* The command whose options are being read, for the messages below
 * ("pipeplan sweep: bad --blocks ..."); NULL for the explorer. */
static const char *command;

/* The value flags met so far on this command line: a flag given twice is
 * refused rather than the last one silently winning (`--memory 8GiB ...
 * --memory 80GiB` in a script is a mistake more often than an override). */
static const char *flags_seen[64];
static int nflags_seen;

void cli_set_command(const char *cmd)
{
    command = cmd;
    /* a new command line: what an earlier one gave is not "given twice"
     * (the unit tests run several commands in one process) */
    nflags_seen = 0;
}

const char *cli_command(void)
{
    return command;
}

/* "pipeplan[ CMD]: " and the message. */
static void __attribute__((format(printf, 1, 2))) option_error(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    text_eprintf("pipeplan%s%s: %s\n", command ? " " : "", command ? command : "", msg);
}

/* Where to look: "(see pipeplan sweep --help)" for sweep's options. */
static const char *help_hint(void)
{
    static char hint[64];
    snprintf(hint, sizeof hint, "(see pipeplan%s%s --help)", command ? " " : "",
             command ? command : "");
    return hint;
}

static bool flag_seen_before(const char *name)
{
    if (strcmp(name, "-o") == 0)
        name = "--output";
    for (int k = 0; k < nflags_seen; k++)
        if (strcmp(flags_seen[k], name) == 0)
            return true;
    if (nflags_seen < (int)(sizeof flags_seen / sizeof flags_seen[0]))
        flags_seen[nflags_seen++] = name;
    return false;
}

/* cli_flag_match, with `once` saying whether a second one is refused. */
static int flag_match(const char *const *names, int argc, char **argv, int *i,
                      const char **value, bool once)
{
    const char *arg = argv[*i];
    for (int n = 0; names[n]; n++) {
        size_t len = strlen(names[n]);
        if (strncmp(arg, names[n], len) != 0 || (arg[len] != '\0' && arg[len] != '='))
            continue;
        if (once && flag_seen_before(names[n])) {
            option_error("%s given twice (expected it once)",
                         strcmp(names[n], "-o") == 0 || strcmp(names[n], "--output") == 0
                         ? "-o/--output" : names[n]);
            return -2;
        }
        if (arg[len] == '=') {
            *value = arg + len + 1;
        } else if (*i + 1 < argc) {
            const char *v = argv[*i + 1];
            if (cli_value_is_option(v)) {
                option_error(CLI_OPTION_AS_VALUE, names[n], v, names[n], v);
                return -2;
            }
            *value = argv[++*i];
        } else {
            option_error("%s needs a value %s", names[n], help_hint());
            return -2;
        }
        return n;
    }
    return -1;
}

int cli_flag_match(const char *const *names, int argc, char **argv, int *i,
                   const char **value)
{
    return flag_match(names, argc, argv, i, value, true);
}

int cli_flag_match_repeatable(const char *const *names, int argc, char **argv, int *i,
                              const char **value)
{
    return flag_match(names, argc, argv, i, value, false);
}

void cli_bad_value(const char *name, const char *value, const char *why)
{
    bool said = strstr(why, "(expected") != NULL;
    option_error("bad %s '%s': %s%s%s", name, value, why, said ? "" : " ",
                 said ? "" : help_hint());
}

int cli_unknown_option(const char *arg)
{
    option_error("unknown option '%s' %s", arg, help_hint());
    return 2;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* the message may quote the user's arguments: escaped on the terminal */
    text_eprintf("pipeplan %s: %s\n", cmd, msg);
    return 2;
}

struct network_out {
    const struct spec_network *net;
    const char *const *comments;
};

static int network_write(FILE *out, void *ctx)
{
    const struct network_out *c = ctx;
    return spec_network_write(out, c->net, c->comments);
}

int cli_write_network(const char *cmd, const char *path, bool force,
                      const struct spec_network *net, const char *const *comments)
{
    struct network_out ctx = { net, comments };
    char err[SPEC_ERR_LEN];
    if (path) {
        if (fileio_write_atomic(path, force, network_write, &ctx, err, sizeof err) < 0) {
            text_eprintf("pipeplan %s: %s\n", cmd, err);
            return 2;
        }
    } else if (network_write(stdout, &ctx) < 0 || fflush(stdout) != 0) {
        text_eprintf("pipeplan %s: cannot write to standard output\n", cmd);
        return 2;
    }
    return 0;
}
