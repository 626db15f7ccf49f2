#!/usr/bin/env bash
# build_kernel.sh DIR - builds the Linux kernel the kernel tests boot when
# FLIGHTREC_TEST_KERNEL names none: Debian's linux-source package (6.12 by default;
# FLIGHTREC_KERNEL_SOURCE_PACKAGE names another, 6.4 or later), `make tinyconfig` plus
# tests/kernel/config.fragment (serial console, initramfs, ELF, devtmpfs, proc/sys/tmpfs,
# futex/epoll/timers, perf events, ftrace, CONFIG_USER_EVENTS, kallsyms, unix sockets),
# into DIR/bzImage. Each step is skipped when its result is there, so a build that was
# cut short goes on where it stopped. The package is fetched with `apt-get download`
# (this machine's sources, else a private list with bookworm-backports: the machine's own
# packages do not change); the tools to build it (flex, bison, bc) are installed when
# missing. Log: DIR/build.log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mkdir -p "$1" && cd "$1" && pwd)
pkg=${FLIGHTREC_KERNEL_SOURCE_PACKAGE:-linux-source-6.12}
exec > >(tee -a "$dir/build.log") 2>&1
cd "$dir"

missing=()
for t in flex bison bc make gcc xz; do command -v "$t" >/dev/null || missing+=("$t"); done
if ((${#missing[@]})); then
  pkgs=${missing[*]}; pkgs=${pkgs/xz/xz-utils}
  echo "build_kernel: installing $pkgs"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $pkgs
fi

if ! ls "$pkg"_*.deb >/dev/null 2>&1; then
  echo "build_kernel: apt-get download $pkg"
  if ! apt-get download "$pkg"; then
    echo "build_kernel: $pkg not in this machine's sources; trying bookworm-backports"
    mkdir -p apt/lists/partial
    echo "deb http://deb.debian.org/debian bookworm-backports main" >apt/sources.list
    opts=(-o Dir::Etc::SourceList="$dir/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o Dir::State::Lists="$dir/apt/lists")
    apt-get "${opts[@]}" update -qq
    apt-get "${opts[@]}" download "$pkg/bookworm-backports"
  fi
fi
deb=$(ls "$pkg"_*.deb | tail -1)

if [ ! -d src ]; then
  echo "build_kernel: unpacking $deb"
  rm -rf unpack src.tmp && mkdir unpack src.tmp
  dpkg-deb -x "$deb" unpack
  tar -xf unpack/usr/src/"$pkg".tar.* -C src.tmp --strip-components=1
  rm -rf unpack && mv src.tmp src
fi

cd src
if [ ! -f .config ] || ! grep -q '^CONFIG_USER_EVENTS=y' .config; then
  make -s tinyconfig
  scripts/kconfig/merge_config.sh -m .config "$here/config.fragment"
  make -s olddefconfig
  grep -q '^CONFIG_USER_EVENTS=y' .config || { echo "build_kernel: CONFIG_USER_EVENTS did not stay set"; exit 1; }
fi
echo "build_kernel: make bzImage ($(nproc) jobs)"
start=$(date +%s)
make -s -j"$(nproc)" bzImage
cp arch/x86/boot/bzImage "$dir/bzImage.tmp" && mv "$dir/bzImage.tmp" "$dir/bzImage"
echo "build_kernel: $dir/bzImage built in $(( $(date +%s) - start )) s"
