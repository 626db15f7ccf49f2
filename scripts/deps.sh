#!/usr/bin/env bash
# Installs what building and testing flightrec needs, from Debian's packages, when missing.
# Usage: scripts/deps.sh [--aarch64]
set -euo pipefail
pkgs=(cmake make clang llvm libclang-rt-14-dev gcc g++ libelf-dev libdw-dev libcmocka-dev python3 pkg-config protobuf-compiler
      man-db groff-base zsh   # man-db, groff-base: the man page test renders with man -l; zsh: it loads the zsh completion
      zlib1g-dev              # doctor reads the kernel's config (/proc/config.gz)
      qemu-system-x86 busybox-static cpio linux-perf)  # the kernel tests (tests/kernel/, docs/KERNEL_TESTS.md)
# --aarch64: also what scripts/test-aarch64.sh needs: the cross toolchain, qemu's user-mode
# emulator and the arm64 libraries the command and the tests link (a multiarch install).
arm64=()
if [ "${1:-}" = "--aarch64" ]; then
  pkgs+=(qemu-user gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross)
  arm64=(libc6:arm64 libstdc++6:arm64 libelf-dev:arm64 libdw-dev:arm64 zlib1g-dev:arm64 libcmocka-dev:arm64)
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO dpkg --add-architecture arm64
  fi
fi
pkgs+=("${arm64[@]}")
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
