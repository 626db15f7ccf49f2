"""bench_measure.py - what the analysis benchmarks share: CPU time of a command run
(user + system, in microseconds, from the kernel's rusage of the child: every command
measured here is single-threaded, so it is its thread's CPU time), rounds that run each
command once in turn (a slow moment of a shared machine hits all of them), the minimum
of each, peak RSS through GNU time, and verdicts that say MET or MISSED."""
import os
import subprocess
import sys


def trace(gen, work, name, records, *gen_args):
    """WORK/NAME-RECORDS.xray and its instrumentation map, made by gen (bench/analysis_gen.c)
    unless they exist, read once so that every command starts from the page cache"""
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "%s-%s.xray" % (name, records))
    mapf = os.path.join(work, "%s-%s-map.yaml" % (name, records))
    if not (os.path.exists(path) and os.path.exists(mapf)):
        subprocess.run([gen, path, mapf, records, *gen_args], check=True)
    subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)
    return path, mapf


def cpu_run(cmd, out_path):
    """CPU seconds (user + sys) of one run of cmd, its standard output into out_path"""
    with open(out_path, "wb") as out, open(out_path + ".err", "wb") as err:
        pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=[
            (os.POSIX_SPAWN_DUP2, out.fileno(), 1), (os.POSIX_SPAWN_DUP2, err.fileno(), 2)])
        _, status, ru = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), open(out_path + ".err").read()[-2000:]))
    return ru.ru_utime + ru.ru_stime


def peak_rss_mb(cmd, work):
    """peak RSS (MB) of one more run, through GNU time (a child spawned by Python would
    count Python's pages as its own)"""
    tf = os.path.join(work, "rss")
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", tf, *cmd], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    return int(open(tf).read().split()[-1]) / 1024


def rounds(cmds, n, work):
    """{name: [cpu seconds of each round]}: n rounds, each running every command once"""
    runs = {k: [] for k in cmds}
    for _ in range(n):
        for k, cmd in cmds.items():
            runs[k].append(cpu_run(cmd, os.path.join(work, k + ".out")))
    return runs


def show(runs, label=None):
    for k, v in runs.items():
        print("  %-34s cpu min %8.3f s   (%s)" % ((label or {}).get(k, k), min(v), ", ".join("%.3f" % x for x in v)))


def verdict(what, value, target, ok):
    """one line: the measure, its target and MET or MISSED; returns ok"""
    print("%-58s %10s   target %-10s %s" % (what, value, target, "MET" if ok else "MISSED"))
    return ok
