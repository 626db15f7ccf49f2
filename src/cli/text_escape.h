/*
 * text_escape.h - strings that come from a trace (function, thread and process names,
 * paths, the command line), made safe for the CLI's text outputs. A trace is input from
 * anyone: a name holding ESC would send control sequences to the terminal that shows the
 * output (retitle it, rewrite lines already shown, answer back), BEL rings it, CR and LF
 * forge lines that scripts then parse as records.
 *
 * Escaped: the C0 controls and DEL as \xHH, the backslash as \\, each byte that is not
 * part of valid UTF-8 as \xHH, and the UTF-8 forms of the C1 controls U+0080..U+009F
 * (some terminals act on them) as their two bytes \xC2\xHH. Everything else (printable
 * ASCII, valid UTF-8 text) is kept.
 */
#ifndef FLIGHTREC_TEXT_ESCAPE_H
#define FLIGHTREC_TEXT_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

typedef struct fr_text_buf {
    char  *data;
    size_t cap;
} fr_text_buf;   /* zero-initialised; fr_text_buf_free when done */

/* s itself when nothing in it needs escaping, else its escaped form in b (valid until
 * b's next use). Out of memory: a fixed "(name not shown: out of memory)". */
const char *fr_text_escape(fr_text_buf *b, const char *s);
/* A frame of a folded stack ("a;b;c 12"): ';' becomes ':' and CR and LF a space, as
 * `convert --format folded` does, and the rest is escaped as above except that the
 * backslash is kept (as convert keeps it). */
const char *fr_text_escape_frame(fr_text_buf *b, const char *s);
void fr_text_buf_free(fr_text_buf *b);

/* Length of the valid UTF-8 sequence of 2..4 bytes at p (NUL-terminated), or 0 if the
 * bytes there are not one (overlong forms, surrogates and code points above U+10FFFF are
 * not). */
size_t fr_utf8_length(const unsigned char *p);

/* fputs of the escaped string (a buffer of the caller's own is not needed). */
void fr_text_put(FILE *out, const char *s);
void fr_text_put_frame(FILE *out, const char *s);

#endif
