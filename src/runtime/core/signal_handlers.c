/*
 * signal_handlers.c - which signals the recorder handles, on which stack, and how the
 * signal then goes on to do what it would have done without us.
 *
 * Fatal signals (crash_dump=1): SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP.
 * Termination signals (signal_flush=1): SIGTERM, SIGINT, SIGHUP. With the default action
 * the recorder stops and writes the trace; with the program's own handler the trace so
 * far is written while recording goes on, then the handler runs.
 * The snapshot signal (snapshot_signal=SIG): a snapshot, then the program's own handler
 * for it if it had one (never the default action, which would terminate).
 *
 * After the dump the signal continues as if we were not there:
 *  - the program's own handler, installed before us, is called (with its flags: mask,
 *    SA_SIGINFO, SA_RESETHAND); if it returns we return, as the kernel would have;
 *  - otherwise its disposition (default or ignore) is put back and the signal happens
 *    again: a fault raised by the kernel (SIGSEGV, SIGBUS, SIGILL, SIGFPE) by returning,
 *    so the faulting instruction runs again and faults with the full siginfo and a core
 *    dump; any other (abort's SIGABRT, int3's SIGTRAP, kill) is sent again to this
 *    thread with the same siginfo. The exit status is the program's (139, 134, ...).
 * A handler the program installs after us replaces ours: no dump for that signal,
 * unless that handler calls the one it replaced, as well-behaved crash handlers do.
 *
 * Our handlers run with SA_NODEFER so that a fault inside the dump enters the handler
 * again, which then abandons the dump (crash_dump.c) instead of the kernel killing the
 * process with the wrong signal or the thread hanging; and with SA_ONSTACK, on the
 * alternate stack each recording thread gets (a stack overflow leaves no stack).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "core/crash_dump.h"
#include "core/signal_handlers.h"
#include "core/signal_stack.h"
#include "core/snapshot.h"
#include "fr_format.h"

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };
static const int termination_signals[] = { SIGTERM, SIGINT, SIGHUP };

static struct sigaction previous[NSIG];
static uint8_t installed[NSIG];
static int crash_on, flush_on;       /* what the current session asked for */
static int snapshot_sig = -1;        /* snapshot_signal=, -1 none */

static int is_fatal(int sig)
{
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
        if (fatal_signals[i] == sig)
            return 1;
    return 0;
}

static void call_previous(int sig, siginfo_t *si, void *uc, const struct sigaction *old)
{
    sigset_t mask = old->sa_mask, saved;
    if (!(old->sa_flags & SA_NODEFER))
        sigaddset(&mask, sig);
    if (old->sa_flags & SA_RESETHAND) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(sig, &dfl, NULL);
    }
    pthread_sigmask(SIG_BLOCK, &mask, &saved);
    if (old->sa_flags & SA_SIGINFO)
        old->sa_sigaction(sig, si, uc);
    else
        old->sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

/* The signal goes on to what it would have done without us (see the top). */
static void chain(int sig, siginfo_t *si, void *uc)
{
    const struct sigaction *old = &previous[sig];
    if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
        call_previous(sig, si, uc, old);
        return;
    }
    sigaction(sig, old, NULL);
    int kernel_fault = si && si->si_code > 0 &&
                       (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE);
    if (kernel_fault)
        return; /* the instruction runs again and faults under the program's disposition */
    siginfo_t again;
    if (si) {
        again = *si;
    } else {
        memset(&again, 0, sizeof again);
        again.si_signo = sig;
        again.si_code = SI_TKILL;
    }
    syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), sig, &again);
}

/* ------------------------------------------------------------------ the handler */

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    int saved_errno = errno;
    if (sig == __atomic_load_n(&snapshot_sig, __ATOMIC_ACQUIRE)) {
        fr_snapshot_from_signal(sig);
        /* A handler the program had for it still runs; a default action (terminate) does not. */
        const struct sigaction *old = &previous[sig];
        if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN)
            call_previous(sig, si, uc, old);
        errno = saved_errno;
        return;
    }
    if (is_fatal(sig)) {
        fr_crash_dump_fault_inside(sig); /* does not return if the dump itself faulted */
        if (__atomic_load_n(&crash_on, __ATOMIC_ACQUIRE))
            fr_crash_dump(FR_DUMP_FATAL_SIGNAL, sig, si);
    } else if ((sig == SIGTERM || sig == SIGINT || sig == SIGHUP) &&
               __atomic_load_n(&flush_on, __ATOMIC_ACQUIRE)) {
        /* The program dies of it (default action): stop and write the trace now. A
         * program that handles the signal itself may go on, or _exit from its handler:
         * the trace so far is written without stopping (a later exit rewrites it). */
        const struct sigaction *old = &previous[sig];
        if (old->sa_handler == SIG_DFL)
            fr_crash_dump(FR_DUMP_TERMINATION_SIGNAL, sig, si);
        else
            fr_snapshot_termination(sig);
    }
    chain(sig, si, uc);
    errno = saved_errno;
}

static void install(int sig, int flags)
{
    if (installed[sig])
        return;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | flags;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, NULL, &old) != 0)
        return;
    /* An ignored termination signal (nohup) stays ignored: it ends nothing. */
    if ((sig == SIGTERM || sig == SIGINT || sig == SIGHUP) && old.sa_handler == SIG_IGN)
        return;
    previous[sig] = old;
    if (sigaction(sig, &sa, NULL) == 0)
        installed[sig] = 1;
}

void fr_signals_install(const struct fr_options *o)
{
    static int setup_done;
    if (!setup_done) {
        setup_done = 1;
        fr_crash_dump_setup();
    }
    __atomic_store_n(&crash_on, o->crash_dump, __ATOMIC_RELEASE);
    __atomic_store_n(&flush_on, o->signal_flush, __ATOMIC_RELEASE);
    fr_signal_stacks_enable(o->crash_dump);
    if (o->crash_dump) {
        for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
            install(fatal_signals[i], SA_NODEFER);
    }
    if (o->signal_flush)
        for (size_t i = 0; i < sizeof termination_signals / sizeof *termination_signals; i++)
            install(termination_signals[i], SA_RESTART);
    if (o->snapshot_signal > 0 && o->snapshot_signal < NSIG) {
        install(o->snapshot_signal, SA_RESTART);
        __atomic_store_n(&snapshot_sig, o->snapshot_signal, __ATOMIC_RELEASE);
    } else {
        __atomic_store_n(&snapshot_sig, -1, __ATOMIC_RELEASE);
    }
}
