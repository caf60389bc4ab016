/* cli: what the subcommands share in how they talk to the user. */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"
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
