/*
 * reader_tb_sample.c - writes a small trace with the trace builder, covering every kind
 * of record it can write (metadata block, two threads, a TSC wrap, a CPU change, an
 * argument, custom and typed events). Used by tests/reader_builder.sh (llvm-xray must
 * accept it) and as the reader tests' known trace.
 * Usage: reader_tb_sample OUT [small]
 * "small": a minimal trace of every record kind (the robustness test cuts it at every
 * offset, so it is kept short).
 */
#include <stdio.h>
#include "trace_builder.h"

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s OUT [small]\n", argv[0]);
        return 2;
    }
    fr_tb *b = fr_tb_new(1000000000);
    if (argc == 3) {
        fr_tb_function_name(b, 1, "f");
        fr_tb_block(b, 5, 4, 0, 100);
        fr_tb_enter_arg(b, 1, 9, 100);
        fr_tb_custom(b, "ab", 2, 110);
        fr_tb_typed(b, 2, "c", 1, 115);
        fr_tb_new_cpu(b, 1, 118);
        fr_tb_exit(b, 1, 120);
        int rc = fr_tb_write(b, argv[1]);
        if (rc)
            perror(argv[1]);
        fr_tb_free(b);
        return rc ? 1 : 0;
    }
    fr_tb_function_name(b, 1, "main");
    fr_tb_function_name(b, 2, "work");
    fr_tb_function_name(b, 3, "leaf");

    fr_tb_block(b, 100, 42, 0, 1000);
    fr_tb_enter(b, 1, 1000);
    fr_tb_enter(b, 2, 1100);
    fr_tb_exit(b, 2, 1300);
    fr_tb_enter_arg(b, 2, 7, 1400);
    fr_tb_custom(b, "hello", 5, 1450);
    fr_tb_typed(b, 3, "xy", 2, 1460);
    fr_tb_tail_exit(b, 2, 1500);
    fr_tb_enter(b, 3, 1000 + (1ull << 33));   /* delta > 32 bits: TSCWrap */
    fr_tb_exit(b, 3, 1100 + (1ull << 33));
    fr_tb_exit(b, 1, 1200 + (1ull << 33));

    fr_tb_block(b, 200, 42, 1, 5000);
    fr_tb_enter(b, 2, 5000);
    fr_tb_new_cpu(b, 0, 5100);
    fr_tb_enter(b, 3, 5200);
    fr_tb_exit(b, 3, 5300);
    fr_tb_exit(b, 2, 5400);

    int rc = fr_tb_write(b, argv[1]);
    if (rc)
        perror(argv[1]);
    fr_tb_free(b);
    return rc ? 1 : 0;
}
