/* reader_error.c - fr_errf (reader_error.h). */
#include "reader_error.h"

#include <stdarg.h>
#include <stdio.h>

int fr_errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}
