/* functrace_dlopen_a.c - an XRay-instrumented library functrace_dlopen_main loads and
 * unloads while it is traced. */
#define API __attribute__((noinline, visibility("default")))
API int dl_a_square(int x) { __asm__ volatile(""); return x * x; }
API int dl_a_work(int x) { int r = dl_a_square(x); __asm__ volatile(""); return r + 1; }
