/*
 * signal_stack.c - each recording thread's alternate signal stack (signal_stack.h), so
 * that a stack overflow still gets its crash dump: our handlers run with SA_ONSTACK.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include "core/signal_stack.h"

#define ALTSTACK_SIZE (64 * 1024)
#define GUARD_SIZE    4096

static int stacks_on;                /* crash_dump=1 in the current session */
static pthread_key_t altstack_key;
static pthread_once_t altstack_once = PTHREAD_ONCE_INIT;
static int altstack_key_ok;

static void altstack_free(void *mem)
{
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == (uint8_t *)mem + GUARD_SIZE &&
        !(cur.ss_flags & SS_ONSTACK)) {
        stack_t off = { .ss_flags = SS_DISABLE };
        sigaltstack(&off, NULL);
    }
    munmap(mem, GUARD_SIZE + ALTSTACK_SIZE);
}

static void altstack_key_create(void)
{
    altstack_key_ok = pthread_key_create(&altstack_key, altstack_free) == 0;
}

void fr_signal_stacks_enable(int on)
{
    __atomic_store_n(&stacks_on, on, __ATOMIC_RELEASE);
    if (on)
        pthread_once(&altstack_once, altstack_key_create);
}

void fr_signals_thread_start(void)
{
    if (!__atomic_load_n(&stacks_on, __ATOMIC_ACQUIRE) || !altstack_key_ok)
        return;
    stack_t cur;
    if (sigaltstack(NULL, &cur) != 0 || !(cur.ss_flags & SS_DISABLE))
        return; /* the program (or a sanitizer) gave this thread one already */
    uint8_t *mem = mmap(NULL, GUARD_SIZE + ALTSTACK_SIZE, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED)
        return;
    mprotect(mem, GUARD_SIZE, PROT_NONE); /* an overflow of the handler faults, not corrupts */
    stack_t st = { .ss_sp = mem + GUARD_SIZE, .ss_size = ALTSTACK_SIZE, .ss_flags = 0 };
    if (sigaltstack(&st, NULL) != 0 || pthread_setspecific(altstack_key, mem) != 0) {
        stack_t off = { .ss_flags = SS_DISABLE };
        sigaltstack(&off, NULL);
        munmap(mem, GUARD_SIZE + ALTSTACK_SIZE);
    }
}
