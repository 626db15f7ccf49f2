/*
 * convert_deep_trace.c - writes a trace of one thread whose main calls a recursion DEPTH
 * deep (recurse -> recurse -> ... -> leaf) and, beside it, one shallow call:
 *   convert_deep_trace OUTPUT DEPTH
 * convert_svg_deep.py checks that the flame graph of it shows its root on the first
 * screen (a deep graph drawn root at the bottom opened blank: the root 1,118 px down).
 */
#include <stdio.h>
#include <stdlib.h>
#include "trace_builder.h"

enum { MAIN = 1, RECURSE = 2, LEAF = 3, SHALLOW = 4 };

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: convert_deep_trace OUTPUT DEPTH\n");
        return 2;
    }
    int depth = atoi(argv[2]);
    fr_tb *b = fr_tb_new(1000000000);
    fr_tb_function_name(b, MAIN, "main");
    fr_tb_function_name(b, RECURSE, "recurse");
    fr_tb_function_name(b, LEAF, "leaf");
    fr_tb_function_name(b, SHALLOW, "shallow");
    uint64_t t = 1000;
    fr_tb_block(b, 100, 100, 0, t);
    fr_tb_enter(b, MAIN, t += 10);
    for (int i = 0; i < depth; i++)
        fr_tb_enter(b, RECURSE, t += 10);
    fr_tb_enter(b, LEAF, t += 10);
    fr_tb_exit(b, LEAF, t += 100);
    for (int i = 0; i < depth; i++)
        fr_tb_exit(b, RECURSE, t += 10);
    fr_tb_enter(b, SHALLOW, t += 10);
    fr_tb_exit(b, SHALLOW, t += 500);
    fr_tb_exit(b, MAIN, t += 10);
    int rc = fr_tb_write(b, argv[1]);
    fr_tb_free(b);
    if (rc) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
