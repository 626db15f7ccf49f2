#!/bin/sh
# core_pool_budget.sh PROG DIR - a pool larger than the process may have is refused with
# FR_ERR_NOMEM and a message (issue 15 item 6), instead of the program being OOM-killed:
# 1. larger than MemAvailable (any machine): 32 GiB x 1024 buffers;
# 2. inside a memory cgroup limited to 256 MiB (root, cgroup v2 or v1 memory controller;
#    Skipped without one): 512 MiB x 2 buffers.
# PROG is hostile_idle (start=1 from FLIGHTREC_OPTIONS; it says "not recording" on failure).
P=$1; D=$2
rm -rf "$D"; mkdir -p "$D" && cd "$D" || exit 1
fail() { echo "FAIL: $*"; cat err.txt 2>/dev/null; exit 1; }
FLIGHTREC_OPTIONS="start=1 buffer_size=1G buffers=32768 output=$D/huge.fr" "$P" >/dev/null 2>err.txt \
  || fail "exit $? with a pool larger than memory"
[ -e huge.fr ] && fail "a 32 TiB pool was accepted"
grep -q "does not fit: MemAvailable" err.txt || fail "no message naming MemAvailable"
grep -q "not recording: .*memory" err.txt || fail "start=1 did not report FR_ERR_NOMEM"

cg=""
if [ "$(id -u)" = 0 ]; then
  for try in /sys/fs/cgroup/flightrec-budget-$$:memory.max \
             /sys/fs/cgroup/memory/flightrec-budget-$$:memory.limit_in_bytes; do
    dir=${try%%:*} file=${try##*:}
    mkdir "$dir" 2>/dev/null || continue
    if [ -e "$dir/$file" ] && echo 268435456 > "$dir/$file" 2>/dev/null; then cg=$dir; break; fi
    rmdir "$dir"
  done
fi
[ -n "$cg" ] || { echo "SKIP: cannot create a memory cgroup (needs root and a writable hierarchy)"; exit 77; }
sh -c "echo \$\$ > $cg/cgroup.procs && FLIGHTREC_OPTIONS='start=1 buffer_size=512M buffers=2 output=$D/big.fr' exec $P" \
  >/dev/null 2>err.txt; rc=$?
rmdir "$cg" 2>/dev/null
[ $rc -eq 0 ] || fail "exit $rc in a 256 MiB cgroup (killed?)"
[ -e big.fr ] && fail "a 1 GiB pool was accepted in a 256 MiB cgroup"
grep -q "does not fit: the memory cgroup's limit" err.txt || fail "no message naming the cgroup limit"
echo ok
