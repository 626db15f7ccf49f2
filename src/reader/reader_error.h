/*
 * reader_error.h - how the reader's parsers report why an input is refused: a message
 * formatted into the caller's buffer, and -1 to return in the same statement.
 */
#ifndef FLIGHTREC_READER_ERROR_H
#define FLIGHTREC_READER_ERROR_H

#include <stddef.h>

/* Formats the message into err (errlen bytes; nothing when err is NULL); returns -1. */
int fr_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
