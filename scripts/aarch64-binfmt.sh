#!/usr/bin/env bash
# aarch64-binfmt.sh COMMAND [ARG...]
# Runs COMMAND where an execve() of an aarch64 program runs it under qemu-aarch64, as
# on a host with qemu-user-binfmt installed, without changing this host: COMMAND runs in
# a user and mount namespace of its own, whose own binfmt_misc instance (Linux 6.7 and
# later give each user namespace one) has an entry for aarch64 ELF programs. The entry
# and the mount go away with the namespace. Inside, COMMAND is root of its namespace,
# mapped to the caller's user outside.
# Scripts that run the programs they are given (most of the suite's tests), and
# `flightrec record -- PROG` built for aarch64, need this: the kernel refuses to execve an
# aarch64 program otherwise (ENOEXEC).
# Exit 125 when this kernel cannot (no user namespaces, or no binfmt_misc in them),
# without running COMMAND; else COMMAND's status.
# scripts/test-aarch64.sh runs the cross build's ctest through it.
set -euo pipefail
qemu=$(command -v qemu-aarch64 || true)
if [ -z "$qemu" ]; then
  echo "aarch64-binfmt.sh: qemu-aarch64 not found (Debian's qemu-user)" >&2
  exit 125
fi
if [ "${1:-}" = "--inside" ]; then   # the second half, run by unshare below
  shift
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || exit 125
  # The ELF header of an aarch64 executable or shared object (e_machine 183); flags: P
  # keeps the program's argv[0], F opens qemu now (the entry works in any mount
  # namespace).
  magic='\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00'
  mask='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'
  printf '%s' ":qemu-aarch64:M::$magic:$mask:$qemu:PF" \
    >/proc/sys/fs/binfmt_misc/register 2>/dev/null || exit 125
  exec "$@"
fi
[ $# -gt 0 ] || { echo "usage: aarch64-binfmt.sh COMMAND [ARG...]" >&2; exit 2; }
unshare --user --map-root-user --mount true 2>/dev/null || exit 125
exec unshare --user --map-root-user --mount "$0" --inside "$@"
