/*
 * regular_file.h - opening a file named by a user or by a trace, for reading, only if it
 * is a regular file, and without ever opening anything else: a FIFO would block open()
 * until a writer comes, a device would be opened (a tape rewinds, a terminal changes
 * state) and could be read forever (/dev/zero).
 */
#ifndef FLIGHTREC_REGULAR_FILE_H
#define FLIGHTREC_REGULAR_FILE_H

#include <stddef.h>

enum {
    /* The last component of the path must not be a symbolic link (a trace's path: a
     * link planted in a shared directory must not make a privileged reader open the
     * file it points to). Links in the directories above are followed. */
    FR_OPEN_NOFOLLOW = 1,
};

/* Returns a read-only descriptor (O_CLOEXEC) of the regular file at path, or -1 with
 * "PATH: why" in err ("not a regular file (a FIFO)", "a symbolic link (not followed)",
 * strerror). */
int fr_open_regular(const char *path, unsigned flags, char *err, size_t errlen);

#endif
