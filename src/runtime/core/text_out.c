/* text_out.c - formatting messages without stdio (usable from signal handlers). */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "core/text_out.h"

void fr_fmt_str(char *buf, size_t cap, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (*len + n >= cap)
        n = cap - *len - 1;
    memcpy(buf + *len, s, n);
    *len += n;
}

void fr_fmt_u64(char *buf, size_t cap, size_t *len, uint64_t v)
{
    char digits[24];
    int i = sizeof digits;
    digits[--i] = 0;
    do
        digits[--i] = (char)('0' + v % 10);
    while ((v /= 10) && i > 0);
    fr_fmt_str(buf, cap, len, digits + i);
}

void fr_write_stderr(const char *buf, size_t len)
{
    while (len) {
        ssize_t n = write(STDERR_FILENO, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        buf += n;
        len -= (size_t)n;
    }
}
