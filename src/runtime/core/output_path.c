/*
 * output_path.c - the trace file's name from the output= pattern: "%p" is the pid, so
 * that each process of a program that forks or execs writes its own file.
 */
#include <string.h>
#include "core/output_path.h"
#include "core/text_out.h"

int fr_expand_output(char *out, size_t cap, const char *pattern, int32_t pid, int force_pid)
{
    size_t n = 0;
    int had_pid = 0;
    char num[16];
    size_t numlen = 0;
    fr_fmt_u64(num, sizeof num, &numlen, (uint64_t)(uint32_t)pid);
    num[numlen] = 0;
    for (const char *p = pattern; *p; p++) {
        const char *piece = p;
        size_t len = 1;
        if (p[0] == '%' && p[1] == 'p') {
            piece = num;
            len = numlen;
            had_pid = 1;
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            p++;
        }
        if (n + len >= cap)
            return -1;
        memcpy(out + n, piece, len);
        n += len;
    }
    if (force_pid && !had_pid) {
        if (n + 1 + numlen >= cap)
            return -1;
        out[n++] = '.';
        memcpy(out + n, num, numlen);
        n += numlen;
    }
    out[n] = 0;
    return 0;
}
