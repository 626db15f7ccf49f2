/*
 * xray_mode_fdr.c - mode "xray-fdr" on flightrec's recorder, with compiler-rt 14's
 * life cycle: UNINITIALIZED -> init -> INITIALIZED -> finalize -> FINALIZED -> flush ->
 * UNINITIALIZED again (so a process may run any number of init/finalize/flush cycles);
 * an init in another state answers with the state, a flush before finalize answers
 * NOT_FLUSHING.
 *
 * Options: compiler-rt's FDR flags from XRAY_FDR_OPTIONS, then the init string
 * (func_duration_threshold_us, default 5; buffer_size, default 16384; buffer_max,
 * default 100; no_file_flush; grace_period_ms, accepted: nothing to wait for). When
 * XRAY_FDR_OPTIONS is empty, XRAY_OPTIONS' deprecated xray_fdr_log_* flags give the
 * threshold, as in compiler-rt. When buffers run out, a thread's newest records are the
 * ones lost (compiler-rt's queue hands out no more buffers): policy=discard. flightrec's
 * own keys (output, policy, threshold_us, patch, clock, events, file_mode, stream) pass
 * through.
 *
 * The log file: at flush, compiler-rt's name (xray_logfile.c) is created and the trace
 * written into it. Given an `output` (in the string or FLIGHTREC_OPTIONS), flightrec's
 * rules apply instead: that file, also written at exit. With stream=1 the file grows
 * from init on (docs/BUFFERS.md, "Streaming"): without an `output`, compiler-rt's log
 * file is named and created at init and is the stream's file; the flush appends what
 * is left and the final metadata block (fr_flush).
 *
 * The session's files are in compiler-rt's layout (core/xray_layout.h): a block per used
 * buffer, flightrec's metadata in a block llvm-xray shows nothing of.
 * In memory: after finalize and before flush, __xray_log_process_buffers hands out the
 * file header, then each used buffer (BufferExtents record + the buffer's bytes), as
 * compiler-rt's iterator hands out its header and buffers: their concatenation is a file
 * llvm-xray reads. flightrec's hidden metadata block is not among them.
 * With stream=1 the image is the streamed file, ended (fr_flush_fd): one buffer per
 * streamed block, several per thread.
 */
#define _GNU_SOURCE
#include "xray/xray_internal.h"
#include "flightrec.h"
#include "core/recorder.h"
#include "core/options.h"
#include "core/xray_layout.h"
#include "functrace/sled_patch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int status = XRAY_LOG_UNINITIALIZED;   /* compiler-rt's LoggingStatus */
static int flushing;
static int own_file;          /* no `output` given: compiler-rt's log file at flush */
static int no_file_flush;

/* flightrec's own keys, handed to fr_init as they are. */
static const char *const passthrough[] = {
    "output", "policy", "threshold_us", "patch", "clock", "events", "file_mode", "stream", NULL,
};

static enum XRayLogInitStatus fdr_init(size_t buffer_size, size_t max_buffers, void *args,
                                       size_t args_size)
{
    (void)buffer_size;
    (void)max_buffers;
    (void)args_size;
    if (!args)   /* compiler-rt 14 reads its options from the string only */
        return XRAY_LOG_UNINITIALIZED;
    int expected = XRAY_LOG_UNINITIALIZED;
    if (!__atomic_compare_exchange_n(&status, &expected, XRAY_LOG_INITIALIZING, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        if (xr_verbose())
            xr_report("Cannot initialize already initialized implementation.\n");
        return (enum XRayLogInitStatus)expected;
    }
    xr_flags_init();
    if (xr_verbose())
        xr_report("Initializing FDR mode with options: %s\n", (const char *)args);

    int threshold_us = 5, grace_ms = 100, size = 16384, max = 100;
    bool nff = false;
    const struct xr_flag table[] = {
        {"func_duration_threshold_us", XR_FLAG_INT, &threshold_us, 0},
        {"grace_period_ms", XR_FLAG_INT, &grace_ms, 0},
        {"buffer_size", XR_FLAG_INT, &size, 0},
        {"buffer_max", XR_FLAG_INT, &max, 0},
        {"no_file_flush", XR_FLAG_BOOL, &nff, 0},
    };
    const size_t n = sizeof table / sizeof table[0];
    char pass[4096] = "";
    const char *env = secure_getenv("XRAY_FDR_OPTIONS");
    int bad = xr_parse_flags(env, "XRAY_FDR_OPTIONS", table, n, passthrough, pass, sizeof pass);
    if (!env || !*env) {
        threshold_us = xr_flags.xray_fdr_log_func_duration_threshold_us;
        grace_ms = xr_flags.xray_fdr_log_grace_period_ms;
    }
    bad |= xr_parse_flags((const char *)args, "xray-fdr options", table, n, passthrough, pass,
                          sizeof pass);
    (void)grace_ms;
    if (size <= 0 || max <= 0) {
        xr_report("BufferQueue init failed.\n");
        bad = -1;
    }
    /* flightrec's keys as fr_init will see them: FLIGHTREC_OPTIONS, then those passed
     * through here (which keys were given, by the options parser: not substrings, which
     * took snapshot_output= for output=). Bad pairs are fr_init's to report. */
    struct fr_options given;
    fr_options_from_env(&given, NULL);
    const uint32_t env_given = given.given;
    fr_options_parse(&given, pass, NULL);
    int has_output = (given.given & FR_OPT_OUTPUT) != 0;
    /* stream=1 without an `output`: the file grows from init on, so compiler-rt's log
     * file is named (and created) now instead of at flush, and becomes the output; the
     * flush then writes the stream's end (fr_flush). '%' is doubled: output expands it. */
    char stream_out[2 * (XR_BASE_MAX + 512) + 8] = "", path[XR_BASE_MAX + 512] = "";
    int wants_stream = given.stream;
    if (wants_stream && !has_output && !nff && !bad) {
        int fd = xr_open_logfile(path, sizeof path);
        if (fd < 0) {
            bad = -1;
        } else {
            close(fd);
            size_t len = 0;
            memcpy(stream_out, " output=", 8);
            len = 8;
            for (const char *p = path; *p; p++) {
                if (*p == '%')
                    stream_out[len++] = '%';
                stream_out[len++] = *p;
            }
            stream_out[len] = 0;
            has_output = 1;
        }
    }
    char opts[8192];
    /* Our defaults first: FLIGHTREC_OPTIONS (applied by fr_init before the string) wins
     * only where we add nothing, so patch/policy from it are kept. */
    int w = snprintf(opts, sizeof opts, "buffer_size=%d buffers=%d threshold_us=%d%s%s%s%s %s",
                     size < 1024 ? 1024 : size, max, threshold_us < 0 ? 0 : threshold_us,
                     env_given & FR_OPT_PATCH ? "" : " patch=none",
                     env_given & FR_OPT_POLICY ? "" : " policy=discard",
                     has_output && !nff ? "" : " no_file_flush=1", stream_out, pass);
    fr_status st = bad || w < 0 || (size_t)w >= sizeof opts ? FR_ERR_OPTIONS : fr_init(opts);
    if (st != FR_OK && path[0])
        unlink(path);   /* the log file named for the stream, left empty */
    if (bad || w < 0 || (size_t)w >= sizeof opts) {
        __atomic_store_n(&status, XRAY_LOG_UNINITIALIZED, __ATOMIC_RELEASE);
        return XRAY_LOG_UNINITIALIZED;
    }
    if (st != FR_OK) {
        xr_report("BufferQueue init failed.\n");
        __atomic_store_n(&status, XRAY_LOG_UNINITIALIZED, __ATOMIC_RELEASE);
        return XRAY_LOG_UNINITIALIZED;
    }
    own_file = !has_output;
    no_file_flush = nff;
    /* compiler-rt's layout: llvm-xray shows the program's records only (not with stream=1:
     * the streamed file is flightrec's, block by block as it grows) */
    fr_xray_layout_set(!fr_current_options()->stream);
    /* compiler-rt installs arg1, arg0, custom and typed event handlers at init. */
    fr_functrace_install_recorder(1);
    __xray_log_set_buffer_iterator(NULL);   /* reset first: ours is set below */
    extern FR_HIDDEN struct XRayBuffer xr_fdr_iterator(struct XRayBuffer);
    __xray_log_set_buffer_iterator(xr_fdr_iterator);
    __atomic_store_n(&status, XRAY_LOG_INITIALIZED, __ATOMIC_RELEASE);
    if (xr_verbose())
        xr_report("XRay FDR init successful.\n");
    return XRAY_LOG_INITIALIZED;
}

static enum XRayLogInitStatus fdr_finalize(void)
{
    int expected = XRAY_LOG_INITIALIZED;
    if (!__atomic_compare_exchange_n(&status, &expected, XRAY_LOG_FINALIZING, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        if (xr_verbose())
            xr_report("Cannot finalize log, implementation not initialized.\n");
        return (enum XRayLogInitStatus)expected;
    }
    fr_finalize();
    __atomic_store_n(&status, XRAY_LOG_FINALIZED, __ATOMIC_RELEASE);
    return XRAY_LOG_FINALIZED;
}

static enum XRayLogFlushStatus fdr_flush(void)
{
    if (__atomic_load_n(&status, __ATOMIC_ACQUIRE) != XRAY_LOG_FINALIZED) {
        if (xr_verbose())
            xr_report("Not flushing log, implementation is not finalized.\n");
        return XRAY_LOG_NOT_FLUSHING;
    }
    if (__atomic_exchange_n(&flushing, 1, __ATOMIC_ACQ_REL)) {
        if (xr_verbose())
            xr_report("Not flushing log, implementation is still flushing.\n");
        return XRAY_LOG_NOT_FLUSHING;
    }
    __xray_log_remove_buffer_iterator();
    enum XRayLogFlushStatus result = XRAY_LOG_FLUSHED;
    if (no_file_flush) {
        if (xr_verbose())
            xr_report("XRay FDR: Not flushing to file, 'no_file_flush=true'.\n");
    } else if (!own_file) {
        if (fr_flush() != FR_OK)
            result = XRAY_LOG_NOT_FLUSHING;
    } else {
        char path[XR_BASE_MAX + 512];
        int fd = xr_open_logfile(path, sizeof path);
        if (fd < 0) {
            result = XRAY_LOG_NOT_FLUSHING;
        } else {
            fr_status st = fr_flush_fd(fd);
            if (close(fd) != 0 && st == FR_OK)
                st = FR_ERR_IO;
            if (st != FR_OK) {
                xr_report("Failed to write; %s\n", fr_status_string(st));
                result = XRAY_LOG_NOT_FLUSHING;
            }
            /* compiler-rt loses records silently when its buffers run out: we say so. */
            fr_stats stats;
            fr_get_stats(&stats);
            if (stats.records_dropped)
                xr_report("flightrec: xray-fdr: %llu records dropped (buffers full, newest "
                          "lost: raise buffer_max or buffer_size), %llu kept in %s\n",
                          (unsigned long long)stats.records_dropped,
                          (unsigned long long)stats.records_written, path);
        }
    }
    /* Once flushed, compiler-rt's FDR mode is uninitialised: the next init starts over. */
    __atomic_store_n(&status, XRAY_LOG_UNINITIALIZED, __ATOMIC_RELEASE);
    __atomic_store_n(&flushing, 0, __ATOMIC_RELEASE);
    return result;
}

/* The impl's handle_arg0 (select_mode installs it; init replaces it by the recorder). */
static void fdr_handle_arg0(int32_t id, enum XRayEntryType kind)
{
    if (kind <= LOG_ARGS_ENTRY)
        fr_record_function((uint32_t)id, kind == LOG_ARGS_ENTRY ? FR_FN_ENTER : (unsigned)kind);
}

FR_HIDDEN const struct XRayLogImpl xr_fdr_impl = {fdr_init, fdr_finalize, fdr_handle_arg0,
                                                  fdr_flush};

/* ---------------------------------------------------------------- in-memory iteration */

static uint8_t *image;      /* the trace as written to a file, in an anonymous file */
static size_t image_size;

/* A block starts with BufferExtents (metadata kind 7): byte 0x0F, then its u64 size. */
static size_t block_end(size_t at)
{
    if (at + 16 > image_size || image[at] != 0x0F)
        return 0;
    uint64_t size;
    memcpy(&size, image + at + 1, 8);
    if (size > image_size - at - 16)
        return 0;
    return at + 16 + (size_t)size;
}

/* The metadata block is the one whose NewBuffer (0x01) names thread 0. */
static int is_metadata_block(size_t at)
{
    int32_t tid;
    if (at + 32 > image_size || image[at + 16] != 0x01)
        return 0;
    memcpy(&tid, image + at + 17, 4);
    return tid == 0;
}

static struct XRayBuffer next_block(size_t at)
{
    while (at < image_size) {
        size_t end = block_end(at);
        if (!end)
            break;
        if (!is_metadata_block(at))
            return (struct XRayBuffer){image + at, end - at};
        at = end;
    }
    return (struct XRayBuffer){NULL, 0};
}

static int build_image(void)
{
    if (image) {
        munmap(image, image_size);
        image = NULL;
        image_size = 0;
    }
    int fd = memfd_create("flightrec-xray-buffers", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    int ok = fr_flush_fd(fd) == FR_OK;
    off_t size = ok ? lseek(fd, 0, SEEK_END) : -1;
    if (size >= 32) {
        void *p = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            image = p;
            image_size = (size_t)size;
        }
    }
    close(fd);
    return image ? 0 : -1;
}

FR_HIDDEN struct XRayBuffer xr_fdr_iterator(struct XRayBuffer b)
{
    if (__atomic_load_n(&status, __ATOMIC_ACQUIRE) != XRAY_LOG_FINALIZED) {
        if (xr_verbose())
            xr_report("XRay FDR: Failed global buffer queue is null or not finalizing!\n");
        return (struct XRayBuffer){NULL, 0};
    }
    if (!b.Data) {
        if (build_image() < 0)
            return (struct XRayBuffer){NULL, 0};
        return (struct XRayBuffer){image, 32};   /* the file header */
    }
    const uint8_t *p = b.Data;
    if (!image || p < image || p + b.Size > image + image_size)
        return (struct XRayBuffer){NULL, 0};
    return next_block((size_t)(p - image) + b.Size);
}
