/*
 * fd_guard.h - the descriptors the runtime keeps open inside a program (the stream's
 * output, the user_events data file) against the program's own descriptor handling: a
 * program that closes every descriptor it did not open (a daemon's start-up,
 * closefrom(3)) frees our number, and its next open() may take it; writes through the
 * old number would then go into the program's file, and our close would close it.
 * So such descriptors live above the numbers a program's open() calls take (the lowest
 * free one), and are checked to still lead to the file (device and inode) before a use
 * that must not touch anything else.
 */
#ifndef FLIGHTREC_FD_GUARD_H
#define FLIGHTREC_FD_GUARD_H

#include <sys/types.h>
#include "core/visibility.h"

/* The lowest number our kept descriptors move to (where RLIMIT_NOFILE allows). */
#define FR_FD_HIGH 300

/* fd moved to a number >= FR_FD_HIGH, close-on-exec (the old number closed); fd itself
 * when the limit on open files is lower. Async-signal-safe. */
FR_HIDDEN int fr_fd_move_high(int fd);

/* Whether fd is open and leads to the file (dev, ino). Async-signal-safe. */
FR_HIDDEN int fr_fd_is(int fd, dev_t dev, ino_t ino);

/* A descriptor just opened, to keep: its file's device and inode into *dev, *ino, and
 * fd moved high (fr_fd_move_high). -1 (fd closed, errno set) when fstat fails. */
FR_HIDDEN int fr_fd_keep(int fd, dev_t *dev, ino_t *ino);

/* The file at path opened again (flags | O_NOFOLLOW | O_CLOEXEC, EINTR retried), only if
 * the name still leads to it (dev, ino), never through a final link; -1 if not. Not
 * moved high. Async-signal-safe. */
FR_HIDDEN int fr_fd_reopen(const char *path, int flags, dev_t dev, ino_t ino);

#endif
