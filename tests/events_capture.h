/*
 * events_capture.h - a user_events backend for tests (the sink's seam): records every
 * registration command and every writev as separate iovecs, answers like the kernel
 * (one write index per distinct tracepoint, starting at 7 as in vectors.md) and can set
 * or clear the enable bits the kernel would.
 */
#ifndef FLIGHTREC_EVENTS_CAPTURE_H
#define FLIGHTREC_EVENTS_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "events/events_internal.h"

#define CAP_MAX 64

typedef struct cap_write {
    int      iovcnt;
    size_t   len[16];
    uint8_t  bytes[16][512];
    uint8_t  all[2048];      /* everything after the write index */
    size_t   all_len;
    uint32_t write_index;
} cap_write;

typedef struct capture {
    int       nreg, nunreg, nwrites;
    char      commands[CAP_MAX][512];
    uint32_t  indexes[CAP_MAX];
    uint32_t *enable_words[CAP_MAX];
    bool      enable_on_register;
    int       unreg_pipe;        /* > 0: each unregistration also writes a byte here */
    cap_write writes[CAP_MAX];
} capture;

static capture cap;

static int cap_open(void *ctx) { (void)ctx; return 42; }

static int cap_reg(void *ctx, int fd, struct fr_user_reg *reg)
{
    (void)ctx; (void)fd;
    const char *cmd = (const char *)(uintptr_t)reg->name_args;
    uint32_t index = 0;
    for (int i = 0; i < cap.nreg; i++)
        if (!strcmp(cap.commands[i], cmd))
            index = cap.indexes[i];
    if (!index) {
        index = 7;
        for (int i = 0; i < cap.nreg; i++)
            if (cap.indexes[i] >= index)
                index = cap.indexes[i] + 1;
    }
    if (cap.nreg < CAP_MAX) {
        strncpy(cap.commands[cap.nreg], cmd, sizeof cap.commands[0] - 1);
        cap.indexes[cap.nreg] = index;
        cap.enable_words[cap.nreg] = (uint32_t *)(uintptr_t)reg->enable_addr;
        cap.nreg++;
    }
    reg->write_index = index;
    if (cap.enable_on_register)
        __atomic_fetch_or((uint32_t *)(uintptr_t)reg->enable_addr, 1u << reg->enable_bit,
                          __ATOMIC_RELAXED);
    return 0;
}

static int cap_unreg(void *ctx, int fd, struct fr_user_unreg *unreg)
{
    (void)ctx; (void)fd;
    __atomic_fetch_and((uint32_t *)(uintptr_t)unreg->disable_addr, ~(1u << unreg->disable_bit),
                       __ATOMIC_RELAXED);
    cap.nunreg++;
    if (cap.unreg_pipe > 0 && write(cap.unreg_pipe, "u", 1) != 1)
        return -1;
    return 0;
}

static ssize_t cap_writev(void *ctx, int fd, const struct iovec *iov, int iovcnt)
{
    (void)ctx; (void)fd;
    if (cap.nwrites >= CAP_MAX)
        return -1;
    cap_write *w = &cap.writes[cap.nwrites++];
    w->iovcnt = iovcnt;
    w->all_len = 0;
    size_t total = 0;
    for (int i = 0; i < iovcnt; i++) {
        if (i < 16 && iov[i].iov_len <= sizeof w->bytes[0]) {
            w->len[i] = iov[i].iov_len;
            memcpy(w->bytes[i], iov[i].iov_base, iov[i].iov_len);
        }
        if (i == 0 && iov[0].iov_len == 4)
            memcpy(&w->write_index, iov[0].iov_base, 4);
        else if (w->all_len + iov[i].iov_len <= sizeof w->all) {
            memcpy(w->all + w->all_len, iov[i].iov_base, iov[i].iov_len);
            w->all_len += iov[i].iov_len;
        }
        total += iov[i].iov_len;
    }
    return (ssize_t)total;
}

static const fr_ue_backend cap_backend = {cap_open, cap_reg, cap_unreg, cap_writev, NULL};

static void cap_reset(bool enable_on_register)
{
    memset(&cap, 0, sizeof cap);
    cap.enable_on_register = enable_on_register;
    fr_ue_set_backend(&cap_backend);
}

/* Parses "07 00 2a ..." into bytes; returns the count. */
static size_t cap_hex(const char *text, uint8_t *out, size_t max)
{
    size_t n = 0;
    unsigned v;
    int used;
    while (n < max && sscanf(text, " %2x%n", &v, &used) == 1) {
        out[n++] = (uint8_t)v;
        text += used;
    }
    return n;
}

#endif
