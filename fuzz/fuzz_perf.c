/*
 * fuzz_perf.c - libFuzzer target for `flightrec decode-perf`: any bytes as a perf.data
 * file, read by the command itself (the perf.data reader, the tracing data and format
 * parser, the EventHeader and tracepoint renderers, the meta and time formatting), from
 * a file or, when the input's last byte is odd, through a pipe on standard input (the
 * reader then cannot seek: pipe mode only). The command must never crash, hang, leak or
 * read out of bounds; it may refuse the input (exit status 1).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

#define INPUT "fuzz_perf_input.data"
#define OUTPUT "fuzz_perf_output.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 60000)    /* a pipe holds 64 KiB: the write must not block */
        return 0;
    bool through_pipe = data[size - 1] & 1;
    char *argv[] = {"decode-perf", through_pipe ? "-" : INPUT, "-o", OUTPUT, NULL};
    int saved_stdin = -1;
    if (through_pipe) {
        int p[2];
        if (pipe(p) < 0 || write(p[1], data, size) != (ssize_t)size) {
            perror("pipe");
            abort();
        }
        close(p[1]);
        saved_stdin = dup(STDIN_FILENO);
        dup2(p[0], STDIN_FILENO);
        close(p[0]);
    } else {
        FILE *f = fopen(INPUT, "wb");
        if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
            perror(INPUT);
            abort();
        }
    }
    int rc = cmd_decode_perf(4, argv);
    if (through_pipe) {
        dup2(saved_stdin, STDIN_FILENO);
        close(saved_stdin);
    }
    if (rc != 0 && rc != 1) {
        fprintf(stderr, "fuzz_perf: decode-perf exited %d\n", rc);
        abort();
    }
    return 0;
}
