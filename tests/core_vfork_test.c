/*
 * core_vfork_test.c - a vfork child shares the parent's memory and thread state
 * (docs/BUFFERS.md "fork and vfork"): records it makes before exec or exit land in the
 * parent thread's buffer, and neither exit() nor _exit() nor exec in the child ends the
 * parent's session or writes its file. Not under TSan (its vfork is a fork).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>
#include "flightrec.h"
#include "core_parse.h"
#define CORE_SESSION_DIR "/tmp/fr-core-vfork-XXXXXX"
#include "core_session.h"

enum child_end { CHILD_EXIT, CHILD__EXIT, CHILD_EXEC };

/* The parent calls 1, the vfork child 2, the parent 3 after the child ended. */
static void run(enum child_end end, const char *name)
{
    start(name, "");
    fr_log_enter(1);
    fr_log_exit(1);
    pid_t pid = vfork();
    if (pid == 0) {
        fr_log_enter(2);
        fr_log_exit(2);
        if (end == CHILD_EXEC)
            execl("/bin/true", "true", (char *)NULL);
        if (end == CHILD_EXIT)
            exit(0);   /* runs the recorder's exit hook in the parent's memory */
        _exit(0);
    }
    assert_true(pid > 0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* The child's exit did not finalize or flush the parent's session. */
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(fr_get_state(), FR_STATE_INITIALIZED);
    fr_log_enter(3);
    fr_log_exit(3);
    struct cp_trace t;
    stop(&t);
    int32_t me = (int32_t)gettid();
    for (uint32_t id = 1; id <= 3; id++) {
        size_t enters = 0, exits = 0;
        for (size_t i = 0; i < t.nrecs; i++) {
            if (t.recs[i].tid != me || t.recs[i].id != id)
                continue;
            enters += t.recs[i].kind == FR_FN_ENTER;
            exits += t.recs[i].kind == FR_FN_EXIT;
        }
        assert_int_equal(enters, 1);
        assert_int_equal(exits, 1);
    }
    assert_int_equal(cp_count(&t, me, FR_FN_ENTER), 3);
    cp_free(&t);
    assert_int_equal(fr_reset(), FR_OK);
}

static void test_vfork_exit(void **state) { (void)state; run(CHILD_EXIT, "exit.fr"); }
static void test_vfork__exit(void **state) { (void)state; run(CHILD__EXIT, "_exit.fr"); }
static void test_vfork_exec(void **state) { (void)state; run(CHILD_EXEC, "exec.fr"); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vfork_exit),
        cmocka_unit_test(test_vfork__exit),
        cmocka_unit_test(test_vfork_exec),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
