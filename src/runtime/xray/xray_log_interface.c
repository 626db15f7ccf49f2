/*
 * xray_log_interface.c - compiler-rt's xray_log_interface.h: the registry of logging
 * modes and the calls that reach the current one, with compiler-rt 14's rules:
 *  - select_mode makes a registered mode current and installs its handle_arg0 as the
 *    function handler (__xray_set_handler);
 *  - init_mode(_bin) initialises the current mode only: a mode that is not the current
 *    one (never selected) answers XRAY_LOG_UNINITIALIZED, as does a NULL config;
 *  - set_log_impl installs an implementation without a name (the current mode's name
 *    stays); an incomplete one removes the current implementation and mode and the
 *    handlers; remove_log_impl removes the implementation and both function handlers;
 *  - process_buffers hands the current mode's name and each buffer of its iterator to the
 *    processor, and answers XRAY_LOG_FLUSHED whenever an implementation is installed.
 * The built-in modes (xray-fdr, xray-basic, xray-profiling) are registered before anything else can
 * look at the registry, as compiler-rt's static initialisers register them.
 */
#define _GNU_SOURCE
#include "xray/xray_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct mode {
    struct mode *next;
    char *name;
    struct XRayLogImpl impl;
};

XR_LINK_STARTUP;

static pthread_mutex_t modes_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mode *modes;                /* newest first, as compiler-rt's list */
static const struct mode *current_mode;
static struct XRayLogImpl current_impl;
static int have_impl;

static struct XRayBuffer null_iterator(struct XRayBuffer b)
{
    (void)b;
    return (struct XRayBuffer){NULL, 0};
}
static struct XRayBuffer (*buffer_iterator)(struct XRayBuffer) = null_iterator;

static int complete(const struct XRayLogImpl *impl)
{
    return impl->log_init && impl->log_finalize && impl->handle_arg0 && impl->flush_log;
}

/* Called with modes_lock held. */
static enum XRayLogRegisterStatus register_locked(const char *name, const struct XRayLogImpl *impl)
{
    for (struct mode *m = modes; m; m = m->next)
        if (!strcmp(m->name, name))
            return XRAY_DUPLICATE_MODE;
    struct mode *m = malloc(sizeof *m);
    char *copy = strdup(name);
    if (!m || !copy) {
        free(m);
        free(copy);
        return XRAY_INCOMPLETE_IMPL;   /* no memory: compiler-rt has no better answer */
    }
    m->name = copy;
    m->impl = *impl;
    m->next = modes;
    modes = m;
    return XRAY_REGISTRATION_OK;
}

static int builtins_done;

static void ensure_builtins_locked(void)
{
    if (builtins_done)
        return;
    builtins_done = 1;
    register_locked("xray-profiling", &xr_profiling_impl);
    register_locked("xray-basic", &xr_basic_impl);
    register_locked("xray-fdr", &xr_fdr_impl);
}

void xr_register_builtin_modes(void)
{
    pthread_mutex_lock(&modes_lock);
    ensure_builtins_locked();
    pthread_mutex_unlock(&modes_lock);
}

enum XRayLogRegisterStatus __xray_log_register_mode(const char *Mode, struct XRayLogImpl Impl)
{
    xr_startup_ensure();
    if (!Mode || !complete(&Impl))
        return XRAY_INCOMPLETE_IMPL;
    pthread_mutex_lock(&modes_lock);
    ensure_builtins_locked();
    enum XRayLogRegisterStatus st = register_locked(Mode, &Impl);
    pthread_mutex_unlock(&modes_lock);
    return st;
}

enum XRayLogRegisterStatus __xray_log_select_mode(const char *Mode)
{
    xr_startup_ensure();
    pthread_mutex_lock(&modes_lock);
    ensure_builtins_locked();
    const struct mode *found = NULL;
    for (const struct mode *m = modes; m && Mode && !found; m = m->next)
        if (!strcmp(m->name, Mode))
            found = m;
    if (found) {
        current_mode = found;
        current_impl = found->impl;
        have_impl = 1;
        __xray_set_handler(found->impl.handle_arg0);
    }
    pthread_mutex_unlock(&modes_lock);
    return found ? XRAY_REGISTRATION_OK : XRAY_MODE_NOT_FOUND;
}

const char *__xray_log_get_current_mode(void)
{
    xr_startup_ensure();
    pthread_mutex_lock(&modes_lock);
    const char *name = current_mode ? current_mode->name : NULL;
    pthread_mutex_unlock(&modes_lock);
    return name;
}

void __xray_set_log_impl(struct XRayLogImpl Impl)
{
    pthread_mutex_lock(&modes_lock);
    if (!complete(&Impl)) {
        have_impl = 0;
        current_mode = NULL;
        __xray_remove_handler();
        __xray_remove_handler_arg1();
    } else {
        current_impl = Impl;
        have_impl = 1;
        __xray_set_handler(Impl.handle_arg0);
    }
    pthread_mutex_unlock(&modes_lock);
}

void __xray_remove_log_impl(void)
{
    pthread_mutex_lock(&modes_lock);
    have_impl = 0;
    __xray_remove_handler();
    __xray_remove_handler_arg1();
    pthread_mutex_unlock(&modes_lock);
}

/* The implementation to call, and whether MODE (if not NULL) is the current mode.
 * compiler-rt calls log_init under its lock; we call outside ours, so that a mode may
 * use this interface from its own init (ours set the buffer iterator). */
static int snapshot(struct XRayLogImpl *out, const char *mode)
{
    xr_startup_ensure();
    pthread_mutex_lock(&modes_lock);
    int ok = have_impl && (!mode || (current_mode && !strcmp(current_mode->name, mode)));
    *out = current_impl;
    pthread_mutex_unlock(&modes_lock);
    return ok;
}

enum XRayLogInitStatus __xray_log_init(size_t BufferSize, size_t MaxBuffers, void *Args,
                                       size_t ArgsSize)
{
    struct XRayLogImpl impl;
    if (!snapshot(&impl, NULL))
        return XRAY_LOG_UNINITIALIZED;
    return impl.log_init(BufferSize, MaxBuffers, Args, ArgsSize);
}

/* compiler-rt answers XRAY_LOG_UNINITIALIZED and says nothing when the mode asked for is
 * not the selected one; the program then runs untraced with no clue why (a mode that
 * XRAY_OPTIONS was meant to select, a select_mode call missing). We say why. */
static enum XRayLogInitStatus refused(const char *fn, const char *mode, const char *config)
{
    const char *current = __xray_log_get_current_mode();
    if (!mode)
        xr_report("flightrec: %s(NULL): no mode named: not initialised\n", fn);
    else if (!config)
        xr_report("flightrec: %s(\"%s\", NULL): no configuration string: not initialised\n",
                  fn, mode);
    else if (current && !strcmp(current, mode))
        xr_report("flightrec: %s(\"%s\"): not initialised: its implementation was removed "
                  "(__xray_remove_log_impl or an incomplete __xray_set_log_impl)\n", fn, mode);
    else
        xr_report("flightrec: %s(\"%s\"): not initialised: not the selected mode (%s%s%s); "
                  "select it first (__xray_log_select_mode, or XRAY_OPTIONS=xray_mode=%s)\n",
                  fn, mode, current ? "the selected mode is \"" : "no mode is selected",
                  current ? current : "", current ? "\"" : "", mode);
    return XRAY_LOG_UNINITIALIZED;
}

enum XRayLogInitStatus __xray_log_init_mode(const char *Mode, const char *Config)
{
    struct XRayLogImpl impl;
    if (!Mode || !Config || !snapshot(&impl, Mode))
        return refused("__xray_log_init_mode", Mode, Config);
    return impl.log_init(0, 0, (void *)Config, 0);
}

enum XRayLogInitStatus __xray_log_init_mode_bin(const char *Mode, const char *Config,
                                                size_t ConfigSize)
{
    struct XRayLogImpl impl;
    if (!Mode || !Config || !snapshot(&impl, Mode))
        return refused("__xray_log_init_mode_bin", Mode, Config);
    if (impl.log_init == xr_fdr_impl.log_init || impl.log_init == xr_basic_impl.log_init ||
        impl.log_init == xr_profiling_impl.log_init) {
        /* Ours read a flag string (compiler-rt's read it up to its NUL, past ConfigSize
         * if there is none: we stop at ConfigSize). */
        char *text = strndup(Config, ConfigSize);
        if (!text)
            return XRAY_LOG_UNINITIALIZED;
        enum XRayLogInitStatus st = impl.log_init(0, 0, text, 0);
        free(text);
        return st;
    }
    return impl.log_init(0, 0, (void *)Config, ConfigSize);
}

enum XRayLogInitStatus __xray_log_finalize(void)
{
    struct XRayLogImpl impl;
    if (!snapshot(&impl, NULL))
        return XRAY_LOG_UNINITIALIZED;
    return impl.log_finalize();
}

enum XRayLogFlushStatus __xray_log_flushLog(void)
{
    struct XRayLogImpl impl;
    if (!snapshot(&impl, NULL))
        return XRAY_LOG_NOT_FLUSHING;
    return impl.flush_log();
}

void __xray_log_set_buffer_iterator(struct XRayBuffer (*Iterator)(struct XRayBuffer))
{
    __atomic_store_n(&buffer_iterator, Iterator ? Iterator : null_iterator, __ATOMIC_RELEASE);
}

void __xray_log_remove_buffer_iterator(void)
{
    __atomic_store_n(&buffer_iterator, null_iterator, __ATOMIC_RELEASE);
}

enum XRayLogFlushStatus __xray_log_process_buffers(void (*Processor)(const char *,
                                                                     struct XRayBuffer))
{
    struct XRayLogImpl impl;
    if (!snapshot(&impl, NULL))
        return XRAY_LOG_NOT_FLUSHING;
    struct XRayBuffer (*it)(struct XRayBuffer) = __atomic_load_n(&buffer_iterator, __ATOMIC_ACQUIRE);
    const char *mode = __xray_log_get_current_mode();
    struct XRayBuffer b = it((struct XRayBuffer){NULL, 0});
    while (b.Data) {
        if (Processor)
            Processor(mode, b);
        b = it(b);
    }
    return XRAY_LOG_FLUSHED;
}
