/* libcall_lib.c - the library function libcall_bench calls through its PLT: as small as
 * the traced function it is compared with. */
int lib_tiny(int x) { return x * 3 + 1; }
