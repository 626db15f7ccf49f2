/*
 * crash_nested.c - a second fault inside the crash dump (tests/crash.cmake crash_nested).
 * A metadata source (internal API: the dump calls every source) faults while the dump of
 * an abort() is being written. The process must still end, promptly, by SIGABRT (134,
 * not the nested SIGSEGV's 139), say the dump was abandoned, and leave no temporary file.
 */
#include <stdlib.h>
#include "core/recorder.h"
#include "flightrec.h"

static void faulting_source(fr_meta_writer *w, void *ctx)
{
    (void)w;
    *(volatile int *)ctx = 1; /* ctx is NULL */
}

int main(void)
{
    if (fr_init("crash_dump=1") != FR_OK)
        return 3;
    fr_meta_register_source(faulting_source, NULL);
    for (uint32_t i = 1; i <= 10; i++)
        fr_log_enter(i);
    abort();
}
