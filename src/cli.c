/* cli: what the subcommands share in how they talk to the user. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>

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
