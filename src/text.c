/* text: terminal-safe copies of outside text. */
#include "text.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

size_t text_utf8_len(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned c = p[0];
    if (c == 0)
        return 0;
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned cp, min;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2, cp = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3, cp = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* Bytes at s to copy as they are (0: escape one byte). */
static size_t safe_len(const char *s, bool keep_space)
{
    unsigned char c = (unsigned char)*s;
    if (c < 0x20 || c == 0x7f)
        return keep_space && (c == '\n' || c == '\t') ? 1 : 0;
    size_t n = text_utf8_len(s);
    /* C1 controls (U+0080 to U+009F): some terminals obey them too */
    if (n == 2 && c == 0xC2 && (unsigned char)s[1] < 0xA0)
        return 0;
    return n;
}

char *text_escape(const char *s, char *buf, size_t len)
{
    size_t n = 0;
    if (len == 0)
        return buf;
    while (*s) {
        size_t k = safe_len(s, false);
        if (k == 0) {
            if (n + 4 >= len)
                break;
            snprintf(buf + n, len - n, "\\x%02X", (unsigned char)*s);
            n += 4;
            s++;
            continue;
        }
        if (n + k >= len)
            break;
        memcpy(buf + n, s, k);
        n += k;
        s += k;
    }
    buf[n] = '\0';
    return buf;
}

/* s to out, controls but tabs escaped; a newline too unless `lines` (the
 * final newline of a one-line message is written by the caller) */
static int put_escaped(const char *s, FILE *out, bool lines)
{
    while (*s) {
        size_t k = *s == '\t' ? 1 : safe_len(s, lines);
        if (k == 0) {
            if (fprintf(out, "\\x%02X", (unsigned char)*s) < 0)
                return EOF;
            s++;
            continue;
        }
        if (fwrite(s, 1, k, out) != k)
            return EOF;
        s += k;
    }
    return 0;
}

int text_fputs(const char *s, FILE *out)
{
    return put_escaped(s, out, true);
}

void text_eprintf(const char *fmt, ...)
{
    char small[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    char *msg = small;
    if ((size_t)n >= sizeof small && (msg = malloc((size_t)n + 1)) != NULL) {
        va_start(ap, fmt);
        vsnprintf(msg, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    if (!msg)
        msg = small;
    /* one line: a newline inside it (a file name may hold one) is shown
     * as \x0A, as other controls are, so the message stays one line */
    size_t len = strlen(msg);
    bool last = len > 0 && msg[len - 1] == '\n';
    if (last)
        msg[len - 1] = '\0';
    put_escaped(msg, stderr, false);
    if (last)
        fputc('\n', stderr);
    if (msg != small)
        free(msg);
}

size_t text_bom_len(const char *s, size_t n)
{
    return n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

const char *text_skip_bom(const char *s)
{
    return s + text_bom_len(s, strnlen(s, 3));
}

void text_breaks_blank(char *s)
{
    for (; *s; s++)
        if (*s == '\n' || *s == '\r')
            *s = ' ';
}
