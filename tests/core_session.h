/*
 * core_session.h - the recorder session the core tests run each case in: a scratch
 * directory for the group, fr_init writing into it, and finalize + flush + load of the
 * file written, with the checks every trace must pass. Include after cmocka.h and
 * core_parse.h; CORE_SESSION_DIR names the directory's template.
 */
#ifndef FLIGHTREC_TESTS_CORE_SESSION_H
#define FLIGHTREC_TESTS_CORE_SESSION_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flightrec.h"

static char dir[64];
static char path[256];

static int setup_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", CORE_SESSION_DIR);
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Starts a session writing to dir/name with extra options. */
static void start(const char *name, const char *opts)
{
    char o[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(o, sizeof o, "output=%s %s", path, opts);
    assert_int_equal(fr_init(o), FR_OK);
}

/* Ends the session and loads its file into t: every thread block carries its start marker. */
static void stop(struct cp_trace *t)
{
    assert_int_equal(fr_finalize(), FR_OK);
    assert_int_equal(fr_flush(), FR_OK);
    assert_string_equal(fr_last_output_path(), path);
    if (cp_load(t, path) != 0)
        fail_msg("%s: %s", path, t->error);
    assert_int_equal(t->block_starts, t->nblocks - 1);
}

#endif
