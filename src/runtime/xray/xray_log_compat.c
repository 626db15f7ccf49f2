/*
 * xray_log_compat.c - compiler-rt's xray_log_interface.h: logging modes, and mode
 * "xray-fdr" implemented by flightrec's recorder.
 *
 * __xray_log_init_mode("xray-fdr", CONFIG) translates compiler-rt's FDR flag names
 * (XRAY_FDR_OPTIONS first, then CONFIG; pairs separated by spaces, commas or colons)
 * into flightrec options and calls fr_init with them:
 *   buffer_size -> buffer_size, buffer_max -> buffers,
 *   func_duration_threshold_us -> threshold_us, no_file_flush -> no_file_flush,
 *   grace_period_ms -> accepted, ignored (finalize waits for running records anyway).
 * flightrec's own keys pass through. Sleds are not patched by init (patch=none, unless
 * FLIGHTREC_OPTIONS or CONFIG say otherwise): as with compiler-rt, the program calls
 * __xray_patch. Without an `output`, the trace goes to XRAY_OPTIONS' xray_logfile_base
 * (default "xray-log.") + program name + "." + 6 unique characters (mkstemp, created at
 * init).
 */
#define _GNU_SOURCE
#include "flightrec.h"
#include "flightrec/xray.h"
#include "core/recorder.h"
#include "functrace/sled_patch.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_MODES 16
#define MODE_NAME_MAX 64

struct mode {
    char name[MODE_NAME_MAX];
    struct XRayLogImpl impl;
};

static pthread_mutex_t modes_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mode modes[MAX_MODES];
static int mode_count;
static int current_mode = -1;            /* index into modes, or -1 */
static struct XRayLogImpl current_impl;  /* what init/finalize/flush call */
static int have_impl;
static struct XRayBuffer (*buffer_iterator)(struct XRayBuffer);

/* ---------------------------------------------------------------- option translation */

static const char *const separators = " ,:\t\n";

/* Appends the pairs of TEXT to OUT (size CAP), translated. Sets *has_output when an
 * output= pair is seen. -1 if OUT is too small. */
static int translate(const char *text, char *out, size_t cap, int *has_output)
{
    size_t n = strlen(out);
    for (const char *p = text; p && *p;) {
        p += strspn(p, separators);
        size_t len = strcspn(p, separators);
        if (!len)
            break;
        const char *eq = memchr(p, '=', len);
        size_t klen = eq ? (size_t)(eq - p) : len;
        const char *val = eq ? eq + 1 : "1";
        size_t vlen = eq ? len - klen - 1 : 1;
        const char *key = NULL;
        if (klen == 11 && !strncmp(p, "buffer_size", klen))
            key = "buffer_size";
        else if (klen == 10 && !strncmp(p, "buffer_max", klen))
            key = "buffers";
        else if (klen == 26 && !strncmp(p, "func_duration_threshold_us", klen))
            key = "threshold_us";
        else if (klen == 15 && !strncmp(p, "grace_period_ms", klen))
            key = "";   /* accepted: nothing to wait for */
        if (klen == 6 && !strncmp(p, "output", klen))
            *has_output = 1;
        if (!key || *key) {
            int w = key ? snprintf(out + n, cap - n, "%s%s=%.*s", n ? " " : "", key, (int)vlen, val)
                        : snprintf(out + n, cap - n, "%s%.*s", n ? " " : "", (int)len, p);
            if (w < 0 || (size_t)w >= cap - n)
                return -1;
            n += (size_t)w;
        }
        p += len;
    }
    return 0;
}

/* Value of KEY in an XRAY_OPTIONS-style string, copied to OUT; 0 if absent. */
static int option_value(const char *text, const char *key, char *out, size_t cap)
{
    size_t klen = strlen(key);
    for (const char *p = text; p && *p;) {
        p += strspn(p, " ,:\t\n");
        size_t len = strcspn(p, " ,:\t\n");
        if (!len)
            break;
        if (len > klen && !strncmp(p, key, klen) && p[klen] == '=') {
            size_t vlen = len - klen - 1;
            if (vlen >= cap)
                vlen = cap - 1;
            memcpy(out, p + klen + 1, vlen);
            out[vlen] = 0;
            return 1;
        }
        p += len;
    }
    return 0;
}

/* compiler-rt's file name: xray_logfile_base + program name + ".XXXXXX". */
static int xray_log_path(char *out, size_t cap)
{
    char base[1024] = "xray-log.";
    option_value(secure_getenv("XRAY_OPTIONS"), "xray_logfile_base", base, sizeof base);
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    const char *prog = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
    int w = snprintf(out, cap, "%s%s.XXXXXX", base, prog[0] ? prog : "unknown");
    if (w < 0 || (size_t)w >= cap)
        return -1;
    int fd = mkstemp(out);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* ---------------------------------------------------------------- the "xray-fdr" mode */

static enum XRayLogInitStatus fdr_init(size_t buffer_size, size_t max_buffers, void *args,
                                       size_t args_size)
{
    fr_state state = fr_get_state();
    if (state != FR_STATE_UNINITIALIZED && state != FR_STATE_FINALIZED)
        return (enum XRayLogInitStatus)state;   /* compiler-rt answers with its state */
    char local[8192] = "";
    char path[2048] = "";
    int has_output = 0;
    int bad = translate(secure_getenv("XRAY_FDR_OPTIONS"), local, sizeof local, &has_output);
    if (buffer_size || max_buffers) {   /* __xray_log_init's explicit sizes */
        char sizes[64];
        snprintf(sizes, sizeof sizes, "buffer_size=%zu buffer_max=%zu", buffer_size, max_buffers);
        bad |= translate(sizes, local, sizeof local, &has_output);
    }
    if (args && args_size == 0)   /* a flag string, as __xray_log_init_mode passes it */
        bad |= translate((const char *)args, local, sizeof local, &has_output);
    const char *env = secure_getenv("FLIGHTREC_OPTIONS");
    int env_patch = env && strstr(env, "patch=") != NULL;
    if (env && strstr(env, "output="))
        has_output = 1;
    size_t n = strlen(local);
    if (!bad && !env_patch && !strstr(local, "patch="))
        bad |= snprintf(local + n, sizeof local - n, "%spatch=none", n ? " " : "") >= (int)(sizeof local - n);
    n = strlen(local);
    if (!bad && !has_output) {
        if (xray_log_path(path, sizeof path) == 0)
            bad |= snprintf(local + n, sizeof local - n, " output=%s", path) >= (int)(sizeof local - n);
        else
            path[0] = 0;
    }
    if (bad) {
        static const char msg[] = "flightrec: xray-fdr options too long\n";
        (void)!write(2, msg, sizeof msg - 1);
        return XRAY_LOG_UNINITIALIZED;
    }
    fr_status st = fr_init(local);
    if (st != FR_OK && path[0])
        unlink(path);   /* the empty file mkstemp made */
    if (st == FR_ERR_STATE)
        return (enum XRayLogInitStatus)fr_get_state();
    if (st != FR_OK)
        return XRAY_LOG_UNINITIALIZED;
    fr_functrace_install_recorder(1);
    return XRAY_LOG_INITIALIZED;
}

static enum XRayLogInitStatus fdr_finalize(void)
{
    fr_status st = fr_finalize();
    return st == FR_OK ? XRAY_LOG_FINALIZED : (enum XRayLogInitStatus)fr_get_state();
}

static enum XRayLogFlushStatus fdr_flush(void)
{
    if (fr_get_state() != FR_STATE_FINALIZED)
        return XRAY_LOG_NOT_FLUSHING;
    return fr_flush() == FR_OK ? XRAY_LOG_FLUSHED : XRAY_LOG_NOT_FLUSHING;
}

/* Our sleds call the recorder directly; this is for programs that call the impl's
 * handler themselves. */
static void fdr_handle_arg0(int32_t id, enum XRayEntryType kind)
{
    if (kind <= LOG_ARGS_ENTRY)
        fr_record_function((uint32_t)id, kind == LOG_ARGS_ENTRY ? FR_FN_ENTER : (unsigned)kind);
}

static void ensure_builtin_modes(void)
{
    if (mode_count == 0) {
        strcpy(modes[0].name, "xray-fdr");
        modes[0].impl = (struct XRayLogImpl){fdr_init, fdr_finalize, fdr_handle_arg0, fdr_flush};
        mode_count = 1;
    }
}

/* ---------------------------------------------------------------- the interface */

static int complete(const struct XRayLogImpl *impl)
{
    return impl->log_init && impl->log_finalize && impl->handle_arg0 && impl->flush_log;
}

static void use_impl(const struct XRayLogImpl *impl)
{
    current_impl = *impl;
    have_impl = 1;
    if (impl->log_init != fdr_init)   /* flightrec's mode installs the recorder at init */
        __xray_set_handler(impl->handle_arg0);
}

enum XRayLogRegisterStatus __xray_log_register_mode(const char *Mode, struct XRayLogImpl Impl)
{
    if (!Mode || !complete(&Impl))
        return XRAY_INCOMPLETE_IMPL;
    enum XRayLogRegisterStatus st = XRAY_REGISTRATION_OK;
    pthread_mutex_lock(&modes_lock);
    ensure_builtin_modes();
    for (int i = 0; i < mode_count; i++)
        if (!strcmp(modes[i].name, Mode))
            st = XRAY_DUPLICATE_MODE;
    if (st == XRAY_REGISTRATION_OK) {
        if (mode_count >= MAX_MODES || strlen(Mode) >= MODE_NAME_MAX) {
            st = XRAY_INCOMPLETE_IMPL;
        } else {
            strcpy(modes[mode_count].name, Mode);
            modes[mode_count].impl = Impl;
            mode_count++;
        }
    }
    pthread_mutex_unlock(&modes_lock);
    return st;
}

static int find_mode(const char *Mode)
{
    ensure_builtin_modes();
    for (int i = 0; Mode && i < mode_count; i++)
        if (!strcmp(modes[i].name, Mode))
            return i;
    return -1;
}

enum XRayLogRegisterStatus __xray_log_select_mode(const char *Mode)
{
    pthread_mutex_lock(&modes_lock);
    int i = find_mode(Mode);
    if (i >= 0) {
        current_mode = i;
        use_impl(&modes[i].impl);
    }
    pthread_mutex_unlock(&modes_lock);
    return i >= 0 ? XRAY_REGISTRATION_OK : XRAY_MODE_NOT_FOUND;
}

const char *__xray_log_get_current_mode(void)
{
    pthread_mutex_lock(&modes_lock);
    const char *name = current_mode >= 0 ? modes[current_mode].name : NULL;
    pthread_mutex_unlock(&modes_lock);
    return name;
}

void __xray_set_log_impl(struct XRayLogImpl Impl)
{
    if (!complete(&Impl)) {   /* as compiler-rt: an incomplete impl removes the current one */
        __xray_remove_log_impl();
        return;
    }
    pthread_mutex_lock(&modes_lock);
    current_mode = -1;
    use_impl(&Impl);
    pthread_mutex_unlock(&modes_lock);
}

void __xray_remove_log_impl(void)
{
    pthread_mutex_lock(&modes_lock);
    have_impl = 0;
    current_mode = -1;
    pthread_mutex_unlock(&modes_lock);
    __xray_remove_handler();
    __xray_remove_handler_arg1();
}

static int snapshot_impl(struct XRayLogImpl *out)
{
    pthread_mutex_lock(&modes_lock);
    int ok = have_impl;
    *out = current_impl;
    pthread_mutex_unlock(&modes_lock);
    return ok;
}

enum XRayLogInitStatus __xray_log_init(size_t BufferSize, size_t MaxBuffers, void *Args,
                                       size_t ArgsSize)
{
    struct XRayLogImpl impl;
    if (!snapshot_impl(&impl))
        return XRAY_LOG_UNINITIALIZED;
    return impl.log_init(BufferSize, MaxBuffers, Args, ArgsSize);
}

enum XRayLogInitStatus __xray_log_init_mode(const char *Mode, const char *Config)
{
    if (__xray_log_select_mode(Mode) != XRAY_REGISTRATION_OK)
        return XRAY_LOG_UNINITIALIZED;
    struct XRayLogImpl impl;
    snapshot_impl(&impl);
    return impl.log_init(0, 0, (void *)Config, 0);
}

enum XRayLogInitStatus __xray_log_init_mode_bin(const char *Mode, const char *Config,
                                                size_t ConfigSize)
{
    if (__xray_log_select_mode(Mode) != XRAY_REGISTRATION_OK)
        return XRAY_LOG_UNINITIALIZED;
    struct XRayLogImpl impl;
    snapshot_impl(&impl);
    if (impl.log_init == fdr_init) {   /* ours takes text: make it a string */
        char *text = strndup(Config ? Config : "", ConfigSize);
        enum XRayLogInitStatus st = impl.log_init(0, 0, text, 0);
        free(text);
        return st;
    }
    return impl.log_init(0, 0, (void *)Config, ConfigSize);
}

enum XRayLogInitStatus __xray_log_finalize(void)
{
    struct XRayLogImpl impl;
    if (!snapshot_impl(&impl))
        return XRAY_LOG_UNINITIALIZED;
    return impl.log_finalize();
}

enum XRayLogFlushStatus __xray_log_flushLog(void)
{
    struct XRayLogImpl impl;
    if (!snapshot_impl(&impl))
        return XRAY_LOG_NOT_FLUSHING;
    return impl.flush_log();
}

void __xray_log_set_buffer_iterator(struct XRayBuffer (*Iterator)(struct XRayBuffer))
{
    __atomic_store_n(&buffer_iterator, Iterator, __ATOMIC_RELEASE);
}

void __xray_log_remove_buffer_iterator(void)
{
    __atomic_store_n(&buffer_iterator, NULL, __ATOMIC_RELEASE);
}

/* flightrec's own mode writes files and sets no iterator; a mode of the program's that
 * does gets its buffers handed to PROCESSOR, as compiler-rt does. */
enum XRayLogFlushStatus __xray_log_process_buffers(void (*Processor)(const char *,
                                                                     struct XRayBuffer))
{
    struct XRayBuffer (*it)(struct XRayBuffer) = __atomic_load_n(&buffer_iterator, __ATOMIC_ACQUIRE);
    struct XRayLogImpl impl;
    if (!Processor || !it || !snapshot_impl(&impl))
        return XRAY_LOG_NOT_FLUSHING;
    const char *mode = __xray_log_get_current_mode();
    struct XRayBuffer b = it((struct XRayBuffer){NULL, 0});
    while (b.Data) {
        Processor(mode, b);
        b = it(b);
    }
    return XRAY_LOG_FLUSHED;
}
