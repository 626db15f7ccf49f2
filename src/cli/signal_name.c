/*
 * signal_name.c - see signal_name.h. The C library has no abbreviation for real-time
 * signals (sigabbrev_np gives NULL): record's default snapshot signal was shown as
 * "signal 63 (SIG?)".
 */
#define _GNU_SOURCE /* sigabbrev_np */
#include "signal_name.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

const char *fr_signal_name(int sig, char buf[FR_SIGNAL_NAME_MAX])
{
    const char *abbrev = sig > 0 ? sigabbrev_np(sig) : NULL;
    if (abbrev)
        snprintf(buf, FR_SIGNAL_NAME_MAX, "SIG%s", abbrev);
    else if (sig == SIGRTMIN)
        snprintf(buf, FR_SIGNAL_NAME_MAX, "SIGRTMIN");
    else if (sig == SIGRTMAX)
        snprintf(buf, FR_SIGNAL_NAME_MAX, "SIGRTMAX");
    else if (sig > SIGRTMIN && sig < SIGRTMAX && sig - SIGRTMIN <= SIGRTMAX - sig)
        snprintf(buf, FR_SIGNAL_NAME_MAX, "SIGRTMIN+%d", sig - SIGRTMIN);
    else if (sig > SIGRTMIN && sig < SIGRTMAX)
        snprintf(buf, FR_SIGNAL_NAME_MAX, "SIGRTMAX-%d", SIGRTMAX - sig);
    else
        snprintf(buf, FR_SIGNAL_NAME_MAX, "SIG?");
    return buf;
}
