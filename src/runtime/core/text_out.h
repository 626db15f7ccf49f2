/*
 * text_out.h - messages formatted without stdio (text_out.c): usable from a signal
 * handler, at exit and in a fork child, where stdio's locks may be held.
 */
#ifndef FLIGHTREC_TEXT_OUT_H
#define FLIGHTREC_TEXT_OUT_H

#include <stddef.h>
#include <stdint.h>
#include "core/visibility.h"

/* Append to buf at *len, truncating at cap - 1 (buf is not NUL-terminated by them). */
FR_HIDDEN void fr_fmt_str(char *buf, size_t cap, size_t *len, const char *s);
FR_HIDDEN void fr_fmt_u64(char *buf, size_t cap, size_t *len, uint64_t v);
/* write(2) to stderr until done, retrying on EINTR; errors are ignored. */
FR_HIDDEN void fr_write_stderr(const char *buf, size_t len);

#endif
