/* functrace_dlopen_b.c - a library without sleds, loaded where functrace_dlopen_a was:
 * patching must never write into it (the loader reuses A's freed address range). */
#define API __attribute__((noinline, visibility("default")))
API int dl_b_triple(int x) { __asm__ volatile(""); return 3 * x; }
API int dl_b_work(int x) { int r = dl_b_triple(x); __asm__ volatile(""); return r - 1; }
