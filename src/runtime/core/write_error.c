/*
 * write_error.c - a trace write's errno in words (write_error.h).
 */
#include <errno.h>
#include <stdint.h>
#include "core/text_out.h"
#include "core/write_error.h"

/* strerror is not async-signal-safe (locale): the errors a write of a trace (or the
 * making of a backing file) meets. */
static const char *write_error_text(int err)
{
    switch (err) {
    case ENOSPC:       return "no space left on device";
    case EDQUOT:       return "disk quota exceeded";
    case EFBIG:        return "file too large (RLIMIT_FSIZE)";
    case EIO:          return "input/output error";
    case EACCES:       return "permission denied";
    case EPERM:        return "operation not permitted";
    case ENOENT:       return "no such directory";
    case EROFS:        return "read-only file system";
    case ENAMETOOLONG: return "file name too long";
    case EEXIST:       return "no unused temporary name";
    case ENXIO:        return "FIFO without a reader";
    case EPIPE:        return "broken pipe";
    case ESPIPE:       return "the output cannot seek back (a FIFO or a device)";
    case EFAULT:       return "a fault inside the dump itself; the dump was abandoned";
    case ENOTDIR:      return "not a directory";
    case ELOOP:        return "a symbolic link (not followed)";
    case ENOMEM:       return "out of memory";
    case ENODEV:       return "the file system cannot map files";
    case EMFILE:       return "too many open files";
    default:           return NULL;
    }
}

void fr_fmt_write_error(char *buf, size_t cap, size_t *len, int err)
{
    const char *text = write_error_text(err);
    if (text) {
        fr_fmt_str(buf, cap, len, text);
    } else {
        fr_fmt_str(buf, cap, len, "errno ");
        fr_fmt_u64(buf, cap, len, (uint64_t)err);
    }
}
