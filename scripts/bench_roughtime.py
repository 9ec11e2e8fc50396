#!/usr/bin/env python3
"""Roughtime server cost (docs/BENCHMARKS.md, section 6): replies per second per core, batch signing
off and on.

`timesync serve --roughtime` runs pinned to one core, with --roughtime-batch 1 (every reply signed
alone) and then 64 (one signature over the Merkle tree of up to 64 requests read together);
roughtime-load (Benchmarks/Tools), pinned to the other core, offers the same rising rates of
1024-byte requests to each, from 16 source ports, and verifies the first 64 replies of every step in
full. Per rate: replies/s, and the server's CPU time, from which replies per CPU-second (what one core
answers when it does nothing else).

Usage: scripts/bench_roughtime.py OUT.json   (expects release builds of timesync and roughtime-load)
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_ntp import TIMESYNC, ROOT, start, stop, cleanup, free_port  # noqa: E402

LOAD = os.path.join(ROOT, "Benchmarks/.build/release/roughtime-load")
RATES = [5000, 10000, 20000, 40000, 80000, 160000]
BATCHES = [1, 64]


def pinned(cmd, cpu):
    return ["taskset", "-c", str(cpu)] + cmd if os.cpu_count() and os.cpu_count() > 1 else cmd


def measure(directory, key, public_key, batch):
    port = free_port()
    server = start([TIMESYNC, "serve", "--roughtime", f"127.0.0.1:{port}", "--key", key, "--roughtime-batch", str(batch),
                    "--log-level", "warning"], cpu=1)
    try:
        time.sleep(1.0)
        run = subprocess.run(pinned([LOAD, "--host", "127.0.0.1", "--port", str(port), "--key", public_key, "--rates",
                                     ",".join(map(str, RATES)), "--seconds", "2", "--server-pid", str(server.pid), "--json"], 0),
                             capture_output=True, text=True, check=True)
        return json.loads(run.stdout)
    finally:
        stop(server)


def main():
    out = sys.argv[1]
    signal.signal(signal.SIGTERM, cleanup)
    directory = tempfile.mkdtemp(prefix="timesync-bench-roughtime-")
    key = os.path.join(directory, "long-term.key")
    public_key = subprocess.run([TIMESYNC, "roughtime", "keygen", "--out", key], capture_output=True, text=True,
                                check=True).stdout.strip()
    result = {"rates": RATES}
    try:
        for batch in BATCHES:
            print(f"  Roughtime, batch {batch}…", file=sys.stderr)
            result[f"batch{batch}"] = measure(directory, key, public_key, batch)
    finally:
        cleanup()
    with open(out, "w") as f:
        json.dump(result, f, indent=2)


def peak(steps):
    return max(steps, key=lambda s: s["answeredRate"])


def roughtime_section(path):
    with open(path) as f:
        data = json.load(f)
    off, on = data["batch1"], data["batch64"]
    lines = ["## 6. Roughtime server: batch signing", "",
             "`timesync serve --roughtime` pinned to one core, every reply signed alone (`--roughtime-batch 1`) and "
             "up to 64 replies under one signature (`--roughtime-batch 64`, the default); `roughtime-load` "
             "(Benchmarks/Tools) on the other core offers each rate for 2 s (1024-byte requests from 16 source ports) "
             "and verifies the first 64 replies of every step in full. Made by `scripts/bench_roughtime.py`.", "",
             "| offered/s | batch 1: replies/s | batch 1: replies per CPU-s | batch 64: replies/s | batch 64: replies per CPU-s | verified (1 / 64) |",
             "|---:|---:|---:|---:|---:|---:|"]
    for a, b in zip(off, on):
        def per_cpu(s):
            return f"{s['repliesPerCPUSecond']:,.0f}" if s.get("repliesPerCPUSecond") else "–"
        lines.append(f"| {a['offeredRate']:,} | {a['answeredRate']:,.0f} | {per_cpu(a)} | {b['answeredRate']:,.0f} | {per_cpu(b)} | "
                     f"{a['verified']}/{a['verified'] + a['failedVerification']} · {b['verified']}/{b['verified'] + b['failedVerification']} |")
    p_off, p_on = peak(off), peak(on)
    ratio = p_on["answeredRate"] / p_off["answeredRate"] if p_off["answeredRate"] else float("nan")
    lines += ["", f"Peak: {p_off['answeredRate']:,.0f} replies/s with batching off, {p_on['answeredRate']:,.0f} with batch 64 "
              f"(**{ratio:.1f}×**), one core each.", ""]
    return lines


if __name__ == "__main__":
    main()
