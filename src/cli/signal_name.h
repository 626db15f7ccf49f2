/*
 * signal_name.h - a signal's name as the command shows it ("SIGSEGV", "SIGRTMAX-1").
 */
#ifndef FR_CLI_SIGNAL_NAME_H
#define FR_CLI_SIGNAL_NAME_H

#include <stddef.h>

#define FR_SIGNAL_NAME_MAX 16

/* The name of signal SIG in buf: the C library's abbreviation with "SIG" before it, a
 * real-time signal as "SIGRTMIN+N" or "SIGRTMAX-N" (the nearer end, as record's
 * snapshot_signal=SIGRTMAX-1 is written), "SIG?" for a number that is no signal here. */
const char *fr_signal_name(int sig, char buf[FR_SIGNAL_NAME_MAX]);

#endif
