/* text: bytes from files and the command line shown safely. A name may
 * hold control characters or invalid UTF-8; they must not reach a
 * terminal raw (an ESC would drive it) nor break a JSON string. Pure C,
 * no I/O beyond the stream given. */
#ifndef PIPEPLAN_TEXT_H
#define PIPEPLAN_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Bytes of the valid UTF-8 character at s (1 for ASCII, 2 to 4 beyond;
 * overlong forms, surrogates and code points above U+10FFFF are invalid),
 * or 0 when s starts with an invalid sequence or the NUL. */
size_t text_utf8_len(const char *s);

/* Copy s into buf (truncated to fit len) with every control character
 * (C0, DEL, C1) and every byte of invalid UTF-8 written as \xNN; printable
 * ASCII and valid UTF-8 stay. Returns buf. */
char *text_escape(const char *s, char *buf, size_t len);

/* Write s escaped as above, except that newlines and tabs stay. Returns
 * what fputs returns. */
int text_fputs(const char *s, FILE *out);

/* 3 when the n bytes at s begin with a UTF-8 byte order mark, as editors
 * on Windows write one at the start of a file, else 0 */
size_t text_bom_len(const char *s, size_t n);

/* s past such a mark; s itself when it has none. */
const char *text_skip_bom(const char *s);

/* Every line break in s, in place, a blank (a pasted text shown on one line). */
void text_breaks_blank(char *s);

/* fprintf to stderr with the result escaped by text_fputs: every message
 * may quote a file's names or values. A message is one line: a newline
 * before its last character is escaped too. */
void text_eprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
