/*
 * interp.c - a small stack-machine interpreter: programs are written in a tiny assembly
 * language, assembled at run time (tokenise, parse, resolve labels), then run. A bytecode
 * CALL is a C call of vm_call, so the trace shows the interpreted program's own recursion
 * (fib, ackermann, gcd) nested inside the interpreter.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "demo.h"

enum op {
    OP_PUSH, OP_LOAD, OP_STORE, OP_ADD, OP_SUB, OP_MUL, OP_MOD, OP_DIV, OP_LT, OP_EQ,
    OP_JZ, OP_JMP, OP_CALL, OP_RET, OP_POP, OP_DUP, OP_MIX,
};

static const char *const op_names[] = {
    "push", "load", "store", "add", "sub", "mul", "mod", "div", "lt", "eq",
    "jz", "jmp", "call", "ret", "pop", "dup", "mix",
};

struct insn { enum op op; int64_t arg; };

#define MAX_CODE 512
#define MAX_FUNCS 16
#define MAX_LABELS 64
#define MAX_LOCALS 8
#define STACK_SIZE 4096

struct function {
    char name[24];
    int nargs;
    int start, end;       /* instruction range */
};

struct label { char name[24]; int pc; };

struct program {
    struct insn code[MAX_CODE];
    int ncode;
    struct function funcs[MAX_FUNCS];
    int nfuncs;
    struct label labels[MAX_LABELS];
    int nlabels;
    /* Operands naming a label or function, resolved after the whole text is read. */
    struct { int pc; char name[24]; int is_call; } fixups[MAX_LABELS * 2];
    int nfixups;
};

struct vm {
    const struct program *prog;
    int64_t stack[STACK_SIZE];
    int sp;
    uint64_t steps;
};

/* ------------------------------------------------------------------ assembler */

DEMO_FN int tokenize_line(char *line, char **tok, int max)
{
    int n = 0;
    char *comment = strchr(line, ';');
    if (comment)
        *comment = 0;
    for (char *p = line; *p && n < max;) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        tok[n++] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        if (*p)
            *p++ = 0;
    }
    return n;
}

DEMO_FN int lookup_op(const char *word)
{
    for (size_t i = 0; i < sizeof op_names / sizeof op_names[0]; i++)
        if (!strcmp(op_names[i], word))
            return (int)i;
    return -1;
}

DEMO_FN void add_label(struct program *p, const char *name)
{
    struct label *l = &p->labels[p->nlabels++];
    snprintf(l->name, sizeof l->name, "%s", name);
    l->pc = p->ncode;
}

DEMO_FN void add_fixup(struct program *p, const char *name, int is_call)
{
    p->fixups[p->nfixups].pc = p->ncode;
    p->fixups[p->nfixups].is_call = is_call;
    snprintf(p->fixups[p->nfixups].name, sizeof p->fixups[0].name, "%s", name);
    p->nfixups++;
}

DEMO_FN int find_label(const struct program *p, const char *name)
{
    for (int i = 0; i < p->nlabels; i++)
        if (!strcmp(p->labels[i].name, name))
            return p->labels[i].pc;
    return -1;
}

DEMO_FN int find_function(const struct program *p, const char *name)
{
    for (int i = 0; i < p->nfuncs; i++)
        if (!strcmp(p->funcs[i].name, name))
            return i;
    return -1;
}

DEMO_FN void resolve_fixups(struct program *p)
{
    for (int i = 0; i < p->nfixups; i++) {
        int target = p->fixups[i].is_call ? find_function(p, p->fixups[i].name)
                                          : find_label(p, p->fixups[i].name);
        if (target < 0) {
            fprintf(stderr, "fr_demo: unresolved '%s'\n", p->fixups[i].name);
            exit(1);
        }
        p->code[p->fixups[i].pc].arg = target;
    }
}

DEMO_FN void assemble_line(struct program *p, char *line)
{
    char *tok[4];
    int n = tokenize_line(line, tok, 4);
    if (n == 0)
        return;
    size_t len = strlen(tok[0]);
    if (tok[0][len - 1] == ':') {
        tok[0][len - 1] = 0;
        add_label(p, tok[0]);
        return;
    }
    if (!strcmp(tok[0], "func")) {
        struct function *f = &p->funcs[p->nfuncs++];
        snprintf(f->name, sizeof f->name, "%s", tok[1]);
        f->nargs = atoi(tok[2]);
        f->start = p->ncode;
        return;
    }
    if (!strcmp(tok[0], "end")) {
        p->funcs[p->nfuncs - 1].end = p->ncode;
        return;
    }
    int op = lookup_op(tok[0]);
    if (op < 0) {
        fprintf(stderr, "fr_demo: unknown instruction '%s'\n", tok[0]);
        exit(1);
    }
    struct insn *in = &p->code[p->ncode];
    in->op = (enum op)op;
    in->arg = 0;
    if (in->op == OP_JZ || in->op == OP_JMP || in->op == OP_CALL)
        add_fixup(p, tok[1], in->op == OP_CALL);
    else if (n > 1)
        in->arg = strtoll(tok[1], NULL, 0);
    p->ncode++;
}

DEMO_FN struct program *assemble(const char *text)
{
    struct program *p = calloc(1, sizeof *p);
    char *copy = strdup(text), *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        assemble_line(p, line);
    free(copy);
    resolve_fixups(p);
    return p;
}

/* ------------------------------------------------------------------ virtual machine */

/* Out of line on purpose: an "expensive" primitive worth seeing in a profile. */
DEMO_FN int64_t op_mix(int64_t a, int64_t b)
{
    uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull ^ (uint64_t)b;
    h ^= h >> 29;
    return (int64_t)(h & 0xFFFF);
}

DEMO_FN int64_t vm_call(struct vm *vm, int fn);

DEMO_FN void vm_fail(const char *what)
{
    fprintf(stderr, "fr_demo: vm: %s\n", what);
    exit(1);
}

DEMO_FN int64_t vm_call(struct vm *vm, int fn)
{
    const struct function *f = &vm->prog->funcs[fn];
    int64_t locals[MAX_LOCALS] = {0};
    for (int i = f->nargs - 1; i >= 0; i--)
        locals[i] = vm->stack[--vm->sp];
    int base = vm->sp;
    for (int pc = f->start; pc < f->end; pc++) {
        const struct insn *in = &vm->prog->code[pc];
        int64_t a, b;
        vm->steps++;
        if (vm->sp >= STACK_SIZE - 2)
            vm_fail("stack overflow");
        switch (in->op) {
        case OP_PUSH: vm->stack[vm->sp++] = in->arg; break;
        case OP_LOAD: vm->stack[vm->sp++] = locals[in->arg]; break;
        case OP_STORE: locals[in->arg] = vm->stack[--vm->sp]; break;
        case OP_DUP: vm->stack[vm->sp] = vm->stack[vm->sp - 1]; vm->sp++; break;
        case OP_POP: vm->sp--; break;
        case OP_ADD: b = vm->stack[--vm->sp]; a = vm->stack[--vm->sp]; vm->stack[vm->sp++] = a + b; break;
        case OP_SUB: b = vm->stack[--vm->sp]; a = vm->stack[--vm->sp]; vm->stack[vm->sp++] = a - b; break;
        case OP_MUL: b = vm->stack[--vm->sp]; a = vm->stack[--vm->sp]; vm->stack[vm->sp++] = a * b; break;
        case OP_MOD: b = vm->stack[--vm->sp]; a = vm->stack[--vm->sp]; vm->stack[vm->sp++] = b ? a % b : 0; break;
        case OP_DIV: b = vm->stack[--vm->sp]; a = vm->stack[--vm->sp]; vm->stack[vm->sp++] = b ? a / b : 0; break;
        case OP_LT: b = vm->stack[--vm->sp]; a = vm->stack[--vm->sp]; vm->stack[vm->sp++] = a < b; break;
        case OP_EQ: b = vm->stack[--vm->sp]; a = vm->stack[--vm->sp]; vm->stack[vm->sp++] = a == b; break;
        case OP_MIX: b = vm->stack[--vm->sp]; a = vm->stack[--vm->sp]; vm->stack[vm->sp++] = op_mix(a, b); break;
        case OP_JZ: if (!vm->stack[--vm->sp]) pc = (int)in->arg - 1; break;
        case OP_JMP: pc = (int)in->arg - 1; break;
        case OP_CALL: a = vm_call(vm, (int)in->arg); vm->stack[vm->sp++] = a; break;
        case OP_RET: a = vm->stack[--vm->sp]; vm->sp = base; return a;
        }
    }
    vm->sp = base;
    return 0;
}

DEMO_FN int64_t run_program(const struct program *p, const char *entry, const int64_t *args, int nargs)
{
    fr_span span;
    FR_SPAN_START(demo_events, &span, "Program", FR_LEVEL(5), FR_STR("entry", entry),
                  FR_I64("arg0", nargs ? args[0] : 0));
    struct vm *vm = calloc(1, sizeof *vm);
    vm->prog = p;
    for (int i = 0; i < nargs; i++)
        vm->stack[vm->sp++] = args[i];
    int fn = find_function(p, entry);
    if (fn < 0)
        vm_fail("no entry function");
    int64_t result = vm_call(vm, fn);
    FR_SPAN_STOP(demo_events, &span, "Program", FR_LEVEL(5), FR_I64("result", result),
                 FR_U64("steps", vm->steps));
    free(vm);
    return result;
}

/* ------------------------------------------------------------------ programs */

static const char fib_src[] =
    "func fib 1\n"
    "  load 0\n  push 2\n  lt\n  jz fib_rec\n  load 0\n  ret\n"
    "fib_rec:\n"
    "  load 0\n  push 1\n  sub\n  call fib\n"
    "  load 0\n  push 2\n  sub\n  call fib\n  add\n  ret\n"
    "end\n";

static const char primes_src[] =
    "func is_prime 1        ; trial division\n"
    "  push 2\n  store 1\n"
    "ip_loop:\n"
    "  load 1\n  load 1\n  mul\n  load 0\n  push 1\n  add\n  lt\n  jz ip_yes\n"
    "  load 0\n  load 1\n  mod\n  jz ip_no\n"
    "  load 1\n  push 1\n  add\n  store 1\n  jmp ip_loop\n"
    "ip_yes:\n  push 1\n  ret\n"
    "ip_no:\n  push 0\n  ret\n"
    "end\n"
    "func count_primes 1\n"
    "  push 0\n  store 1\n  push 2\n  store 2\n"
    "cp_loop:\n"
    "  load 2\n  load 0\n  lt\n  jz cp_done\n"
    "  load 2\n  call is_prime\n  load 1\n  add\n  store 1\n"
    "  load 2\n  push 1\n  add\n  store 2\n  jmp cp_loop\n"
    "cp_done:\n  load 1\n  ret\n"
    "end\n";

static const char collatz_src[] =
    "func collatz_len 1\n"
    "  push 0\n  store 1\n"
    "cl_loop:\n"
    "  load 0\n  push 1\n  eq\n  jz cl_step\n  load 1\n  ret\n"
    "cl_step:\n"
    "  load 1\n  push 1\n  add\n  store 1\n"
    "  load 0\n  push 2\n  mod\n  jz cl_even\n"
    "  load 0\n  push 3\n  mul\n  push 1\n  add\n  store 0\n  jmp cl_loop\n"
    "cl_even:\n"
    "  load 0\n  push 2\n  div\n  store 0\n  jmp cl_loop\n"
    "end\n"
    "func max_collatz 1\n"
    "  push 0\n  store 1\n  push 1\n  store 2\n"
    "mc_loop:\n"
    "  load 2\n  load 0\n  lt\n  jz mc_done\n"
    "  load 2\n  call collatz_len\n  dup\n  load 1\n  lt\n  jz mc_keep\n  pop\n  jmp mc_next\n"
    "mc_keep:\n  store 1\n"
    "mc_next:\n  load 2\n  push 1\n  add\n  store 2\n  jmp mc_loop\n"
    "mc_done:\n  load 1\n  ret\n"
    "end\n";

static const char ackermann_src[] =
    "func ack 2\n"
    "  load 0\n  push 0\n  eq\n  jz ack_m\n  load 1\n  push 1\n  add\n  ret\n"
    "ack_m:\n"
    "  load 1\n  push 0\n  eq\n  jz ack_mn\n  load 0\n  push 1\n  sub\n  push 1\n  call ack\n  ret\n"
    "ack_mn:\n"
    "  load 0\n  push 1\n  sub\n"
    "  load 0\n  load 1\n  push 1\n  sub\n  call ack\n"
    "  call ack\n  ret\n"
    "end\n";

static const char gcd_src[] =
    "func gcd 2\n"
    "  load 1\n  push 0\n  eq\n  jz gcd_rec\n  load 0\n  ret\n"
    "gcd_rec:\n  load 1\n  load 0\n  load 1\n  mod\n  call gcd\n  ret\n"
    "end\n"
    "func gcd_mix 1           ; sum of mix(gcd(i, n-i), i)\n"
    "  push 0\n  store 1\n  push 1\n  store 2\n"
    "gm_loop:\n"
    "  load 2\n  load 0\n  lt\n  jz gm_done\n"
    "  load 2\n  load 0\n  load 2\n  sub\n  call gcd\n  load 2\n  mix\n"
    "  load 1\n  add\n  store 1\n"
    "  load 2\n  push 1\n  add\n  store 2\n  jmp gm_loop\n"
    "gm_done:\n  load 1\n  ret\n"
    "end\n";

DEMO_FN int64_t run_fib(void)
{
    struct program *p = assemble(fib_src);
    int64_t n = 16, r = run_program(p, "fib", &n, 1);
    free(p);
    return r;
}

DEMO_FN int64_t run_primes(void)
{
    struct program *p = assemble(primes_src);
    int64_t n = 12000, r = run_program(p, "count_primes", &n, 1);
    free(p);
    return r;
}

DEMO_FN int64_t run_collatz(void)
{
    struct program *p = assemble(collatz_src);
    int64_t n = 6000, r = run_program(p, "max_collatz", &n, 1);
    free(p);
    return r;
}

DEMO_FN int64_t run_ackermann(void)
{
    struct program *p = assemble(ackermann_src);
    int64_t args[2] = {2, 40};
    int64_t r = run_program(p, "ack", args, 2);
    free(p);
    return r;
}

DEMO_FN int64_t run_gcd(void)
{
    struct program *p = assemble(gcd_src);
    int64_t n = 1500, r = run_program(p, "gcd_mix", &n, 1);
    free(p);
    return r;
}

uint64_t interp_workload(unsigned rounds)
{
    uint64_t sum = 0;
    for (unsigned i = 0; i < rounds; i++) {
        sum += (uint64_t)run_fib();
        sum += (uint64_t)run_primes();
        sum += (uint64_t)run_collatz();
        sum += (uint64_t)run_ackermann();
        sum += (uint64_t)run_gcd();
    }
    return sum;
}
