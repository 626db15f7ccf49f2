#!/usr/bin/env bash
# Installs what building and testing flightrec needs, from Debian's packages, when missing.
set -euo pipefail
pkgs=(cmake make clang llvm libclang-rt-14-dev gcc g++ libelf-dev libdw-dev libcmocka-dev python3 pkg-config protobuf-compiler
      man-db groff-base zsh   # man-db, groff-base: the man page test renders with man -l; zsh: it loads the zsh completion
      zlib1g-dev              # doctor reads the kernel's config (/proc/config.gz)
      qemu-system-x86 busybox-static cpio linux-perf)  # the kernel tests (tests/kernel/, docs/KERNEL_TESTS.md)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
