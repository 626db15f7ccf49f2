#!/usr/bin/env bash
# pool_history.sh PROGRAM - the table of issue 21: live threads 1 to 1,024 writing 8 pools'
# worth together with the default pool, and 20,000 short threads of 22 records; each run
# checks accounting, order, the suffix property and the share kept (pool_history.c).
# Under a sanitizer (10-50x slower) or an emulator (qemu-user: the aarch64 build, where
# the full table took 374 s of a loaded machine) fewer runs, with a 1 MiB pool: 1, 8 and
# 32 threads, and 2,000 short threads.
set -uo pipefail
. "$(dirname "$0")/frtest.sh"
prog=$1
# (nm's whole output read: with `grep -q` nm dies of SIGPIPE at the first match and,
# under pipefail, the test took the full workload under TSan: 600 s and a timeout)
slow=
[ "$(nm "$prog" 2>/dev/null | grep -c '__asan_init\|__tsan_init')" != 0 ] && slow="sanitizer build"
emulated "$prog" && slow="$(elf_cpu "$prog") program under an emulator"
if [ -n "$slow" ]; then
  opts="buffers=256 buffer_size=4096"
  echo "($slow: a pool of 256 x 4 KiB, fewer runs)"
  for t in 1 8 32; do
    "$prog" live "$t" 8 "$opts" 85 || status=1
  done
  "$prog" short 2000 22 "$opts" 85 || status=1
  exit $status
fi
for t in 1 2 8 32 64 256; do
  "$prog" live "$t" 8 "" 85 || status=1
done
"$prog" live 1024 8 "" 70 || status=1
"$prog" short 20000 22 "" 85 || status=1
exit $status
