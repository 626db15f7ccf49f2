/*
 * fork.c - the recorder across fork(): the child starts with empty buffers of its own
 * and writes its own trace file: the output pattern with %p expanded to the child's pid,
 * or, if the pattern has no %p, the pattern followed by ".PID".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "flightrec.h"
#include "core/buffer_pool.h"
#include "core/session.h"
#include "core/thread_writer.h"

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

static void before_fork(void)
{
    pthread_mutex_lock(&fr_registry_lock);
}

static void in_parent(void)
{
    pthread_mutex_unlock(&fr_registry_lock);
}

static void in_child(void)
{
    pthread_mutex_init(&fr_registry_lock, NULL);
    fr_state s = fr_get_state();
    if (s != FR_STATE_INITIALIZED && s != FR_STATE_FINALIZED)
        return;
    /* Only this thread exists here; the parent's records stay the parent's. */
    fr_pool_clear();
    fr_pid = (int32_t)getpid();
    fr_process_info_read();
    if (fr_expand_output(fr_output_path, FR_OPTIONS_PATH_MAX, fr_opts.output, fr_pid, 1) < 0)
        fr_output_path[0] = 0;
    __atomic_fetch_add(&fr_session, 1, __ATOMIC_RELEASE);
    fr_writer_forget_self();
}

__attribute__((visibility("hidden"))) void fr_fork_install(void)
{
    pthread_atfork(before_fork, in_parent, in_child);
}
