#!/usr/bin/env python3
"""vm.py - boots a Linux kernel with user_events in QEMU and runs the kernel tests inside.

    vm.py --work DIR --results DIR --bin NAME=PATH... [--tests a,b] [--timeout S]

The kernel: $FLIGHTREC_TEST_KERNEL when set (a bzImage; it must exist), else
$FLIGHTREC_KERNEL_DEFAULT (tests/kernel.cmake passes its configured default), else the one
tests/kernel/build_kernel.sh builds from Debian's linux-source package and
config.fragment, once, cached in DIR/kernel. The initramfs (DIR/initramfs.gz): busybox
(Debian's busybox-static), every --bin program and the shared libraries they need (ldd),
guest_init.sh as /init and guest_tests.sh as /tests.sh. QEMU's software emulation runs it
(the machines this was written on have a /dev/kvm that cannot), the console on the first
serial port (DIR/console.log), the results as a base64 tar on the second, unpacked into
--results. Exit status 0 when the machine ran every scenario and sent its results back,
1 when anything failed on the way (which is said), 2 bad usage. A scenario's own verdict
is kernel_check.py's, test by test.
"""
import argparse
import base64
import io
import os
import shutil
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


WORK = None   # the work folder, once known: a failure's report is kept there


def fail(msg):
    print(f"kernel vm: FAIL: {msg}", file=sys.stderr)
    if WORK:
        # kept past the next run (which rewrites console.log): why the last failure was
        with open(os.path.join(WORK, "failure.txt"), "w") as f:
            f.write(time.strftime("%Y-%m-%d %H:%M:%S ") + msg + "\n")
        console = os.path.join(WORK, "console.log")
        if os.path.exists(console):
            shutil.copy(console, os.path.join(WORK, "console.failed.log"))
    sys.exit(1)


def find_busybox():
    for p in ("/bin/busybox", "/usr/bin/busybox"):
        if os.path.exists(p):
            out = subprocess.run(["file", "-L", p], capture_output=True, text=True).stdout \
                if shutil.which("file") else "statically linked"
            if "statically linked" in out or "static-pie" in out:
                return p
    fail("no static busybox (/bin/busybox): install busybox-static (scripts/deps.sh)")


def kernel_image(work):
    for var in ("FLIGHTREC_TEST_KERNEL", "FLIGHTREC_KERNEL_DEFAULT"):
        env = os.environ.get(var)
        if env:
            if not os.path.isfile(env):
                fail(f"{var}={env}: no such file")
            return os.path.abspath(env), f"{var}={env}"
    cache = os.path.join(work, "kernel")
    image = os.path.join(cache, "bzImage")
    if not os.path.isfile(image):
        print(f"kernel vm: no FLIGHTREC_TEST_KERNEL; building the kernel into {cache} "
              "(once: minutes on two cores)", flush=True)
        rc = subprocess.run([os.path.join(HERE, "build_kernel.sh"), cache]).returncode
        if rc != 0 or not os.path.isfile(image):
            fail(f"building the kernel failed (exit {rc}; log in {cache})")
    return image, f"built from source ({image})"


def shared_libraries(path):
    """The files the dynamic loader maps for path (itself included), from ldd."""
    out = subprocess.run(["ldd", path], capture_output=True, text=True)
    libs = []
    for line in out.stdout.splitlines():
        parts = line.split()
        if "=>" in parts and len(parts) >= 3 and parts[2].startswith("/"):
            libs.append(parts[2])
        elif parts and parts[0].startswith("/"):
            libs.append(parts[0])       # the loader
    return libs


def copy_file(src, root, dest):
    """Copies src to root/dest, and makes dest's symlink chain (as the loader asks)."""
    target = os.path.join(root, dest.lstrip("/"))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if not os.path.exists(target):
        shutil.copy2(os.path.realpath(src), target)


def build_initramfs(work, bins, busybox):
    root = os.path.join(work, "root")
    shutil.rmtree(root, ignore_errors=True)
    for d in ("bin", "dev", "proc", "sys", "tmp", "results", "etc"):
        os.makedirs(os.path.join(root, d))
    copy_file(busybox, root, "/bin/busybox")
    for name, path in bins.items():
        copy_file(path, root, "/bin/" + name)
        for lib in shared_libraries(path):
            copy_file(lib, root, lib)
            # the name the loader looks for may differ from the file's (a symlink)
            real = os.path.realpath(lib)
            if real != lib:
                copy_file(real, root, real)
    shutil.copy2(os.path.join(HERE, "guest_init.sh"), os.path.join(root, "init"))
    os.chmod(os.path.join(root, "init"), 0o755)
    shutil.copy2(os.path.join(HERE, "guest_tests.sh"), os.path.join(root, "tests.sh"))
    with open(os.path.join(root, "etc", "passwd"), "w") as f:
        f.write("root:x:0:0:root:/tmp:/bin/sh\nuser:x:1000:1000:user:/tmp:/bin/sh\n")
    with open(os.path.join(root, "host_time"), "w") as f:
        f.write(str(int(time.time())))
    files = subprocess.run(["find", "."], cwd=root, capture_output=True, text=True,
                           check=True).stdout
    if not shutil.which("cpio"):
        fail("no cpio: install it (scripts/deps.sh)")
    cpio = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root, input=files.encode(),
                          capture_output=True)
    if cpio.returncode != 0:
        fail(f"cpio: {cpio.stderr.decode(errors='replace')}")
    image = os.path.join(work, "initramfs.gz")
    with open(image, "wb") as f:
        f.write(subprocess.run(["gzip", "-1"], input=cpio.stdout, capture_output=True,
                               check=True).stdout)
    return image


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--bin", action="append", default=[], help="NAME=PATH")
    ap.add_argument("--tests", default="")
    ap.add_argument("--timeout", type=int, default=1800)
    a = ap.parse_args()
    bins = {}
    for b in a.bin:
        name, _, path = b.partition("=")
        if not path or not os.path.isfile(path):
            fail(f"--bin {b}: no such file")
        bins[name] = path
    qemu = shutil.which("qemu-system-x86_64")
    if not qemu:
        fail("no qemu-system-x86_64: install qemu-system-x86 (scripts/deps.sh)")
    os.makedirs(a.work, exist_ok=True)
    global WORK
    WORK = a.work
    kernel, origin = kernel_image(a.work)
    initramfs = build_initramfs(a.work, bins, find_busybox())
    console = os.path.join(a.work, "console.log")
    data = os.path.join(a.work, "results.b64")
    for f in (console, data):
        if os.path.exists(f):
            os.unlink(f)
    # no_timer_check: under software emulation on a loaded host the kernel's check of the
    # IO-APIC timer can time out and panic ("IO-APIC + timer doesn't work"; seen once at
    # load 30): the emulated timer works, only slowly.
    append = "console=ttyS0 panic=-1 quiet no_timer_check"
    if a.tests:
        append += " fr_tests=" + a.tests
    cmd = [qemu, "-accel", "tcg,thread=multi", "-cpu", "max", "-m", "1024", "-smp", "2",
           "-kernel", kernel, "-initrd", initramfs, "-append", append,
           "-display", "none", "-monitor", "none", "-no-reboot", "-nodefaults",
           "-serial", "file:" + console, "-serial", "file:" + data]
    print(f"kernel vm: kernel {origin}; initramfs {os.path.getsize(initramfs)} bytes", flush=True)
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=a.timeout)
    except subprocess.TimeoutExpired:
        fail(f"the virtual machine did not end within {a.timeout} s; console: {console}")
    elapsed = time.monotonic() - start
    text = open(console, errors="replace").read() if os.path.exists(console) else ""
    sys.stdout.write("".join(l + "\n" for l in text.splitlines() if l.startswith("guest:")))
    if proc.returncode != 0:
        fail(f"qemu exit {proc.returncode}: {proc.stderr.decode(errors='replace')[-2000:]}"
             f"\nconsole:\n{text[-3000:]}")
    if "FLIGHTREC-GUEST-END" not in text:
        fail(f"the guest did not finish (kernel panic, /init failed?); console:\n{text[-3000:]}")
    raw = open(data, "rb").read() if os.path.exists(data) else b""
    begin, end = raw.find(b"RESULTS-BEGIN"), raw.find(b"RESULTS-END")
    if begin < 0 or end < begin:
        fail(f"the results came back incomplete ({len(raw)} bytes, begin at {begin}, end at "
             f"{end}); console:\n{text[-3000:]}")
    try:
        blob = base64.b64decode(raw[begin + len(b"RESULTS-BEGIN"):end])
        shutil.rmtree(a.results, ignore_errors=True)
        os.makedirs(a.results)
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
            tar.extractall(a.results)
    except (OSError, ValueError, tarfile.TarError) as e:
        fail(f"the results from the guest do not unpack: {e}")
    with open(os.path.join(a.results, "vm.txt"), "w") as f:
        f.write(f"kernel {origin}\nvm seconds {elapsed:.1f}\n")
    print(f"kernel vm: the virtual machine ran {elapsed:.1f} s; results in {a.results}")


if __name__ == "__main__":
    main()
