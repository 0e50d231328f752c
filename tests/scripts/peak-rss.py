#!/usr/bin/env python3
"""Runs a command (typically tests/scripts/side-by-side.py WORKLOAD ...) and reports the peak resident set size
(VmHWM from /proc/<pid>/status) of every Kafka broker and Raftline node JVM that started while it ran.

    tests/scripts/peak-rss.py [--interval-ms 200] -- COMMAND ARGS...

The command's stdout and stderr pass through. At the end one JSON line goes to stdout:
    {"peakRss": true, "kafkaMaxMiB": ..., "raftlineMaxMiB": ..., "ratio": kafka/raftline,
     "kafka": [per process MiB ...], "raftline": [...]}
(ratio > 1 means Raftline's largest broker stayed smaller than Kafka's largest.) VmHWM is the kernel's own
high-water mark, so a process only has to be read once shortly before it exits; it is read every interval.
Only JVMs whose main class is kafka.Kafka or io.raftline.broker.ServerMain and that started after this script
count, so run nothing else of either kind meanwhile.
"""
import json
import os
import subprocess
import sys
import threading
import time

MAIN_CLASSES = {"kafka.Kafka": "kafka", "io.raftline.broker.ServerMain": "raftline"}


def boot_time():
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("btime "):
                return int(line.split()[1])
    raise RuntimeError("no btime in /proc/stat")


def start_time_s(pid, btime, hz):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return btime + int(fields[19]) / hz


def kind_of(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            args = f.read().split(b"\0")
    except OSError:
        return None
    if not args or not args[0].endswith(b"java"):
        return None
    for i, a in enumerate(args):
        k = MAIN_CLASSES.get(a.decode(errors="replace"))
        if k == "raftline" and (i + 1 >= len(args) or args[i + 1] != b"server"):
            return None     # `raftline storage ...` runs the same main class briefly
        if k:
            return k
    return None


def vmhwm_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def main():
    argv = sys.argv[1:]
    interval = 0.2
    if argv[:1] == ["--interval-ms"]:
        interval = int(argv[1]) / 1000.0
        argv = argv[2:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        print("usage: peak-rss.py [--interval-ms N] -- COMMAND ARGS...", file=sys.stderr)
        return 2
    hz = os.sysconf("SC_CLK_TCK")
    btime = boot_time()
    started = time.time() - 1
    seen = {}   # pid -> (kind, peak KiB)
    done = threading.Event()

    def sample():
        while not done.is_set():
            for name in os.listdir("/proc"):
                if not name.isdigit():
                    continue
                pid = int(name)
                known = seen.get(pid)
                if known is None:
                    kind = kind_of(pid)
                    try:
                        if kind is None or start_time_s(pid, btime, hz) < started:
                            continue
                    except OSError:
                        continue
                    known = (kind, 0)
                hwm = vmhwm_kib(pid)
                if hwm is not None:
                    seen[pid] = (known[0], max(known[1], hwm))
            done.wait(interval)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    rc = subprocess.call(argv)
    done.set()
    t.join()
    out = {"peakRss": True, "kafka": [], "raftline": []}
    for kind, kib in seen.values():
        out[kind].append(round(kib / 1024.0, 1))
    for kind in ("kafka", "raftline"):
        out[kind].sort(reverse=True)
        out[kind + "MaxMiB"] = out[kind][0] if out[kind] else None
    k, r = out["kafkaMaxMiB"], out["raftlineMaxMiB"]
    out["ratio"] = round(k / r, 2) if k and r else None
    print(json.dumps(out), flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
