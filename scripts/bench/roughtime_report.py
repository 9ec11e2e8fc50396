#!/usr/bin/env python3
"""The markdown of benchmark 6 (the Roughtime server with batch signing off and on, docs/BENCHMARKS.md)
from the JSON roughtime_measure.py writes. report.py calls roughtime_section(); run alone it prints it:

    scripts/bench/roughtime_report.py ROUGHTIME.json
"""
import sys

from benchlib import read_json


def peak(steps):
    return max(steps, key=lambda s: s["answeredRate"])


def roughtime_section(path):
    data = read_json(path)
    off, on = data["batch1"], data["batch64"]
    lines = ["## 6. Roughtime server: batch signing", "",
             "`timesync serve --roughtime` pinned to one core, every reply signed alone (`--roughtime-batch 1`) and "
             "up to 64 replies under one signature (`--roughtime-batch 64`, the default); `roughtime-load` "
             "(Benchmarks/Tools) on the other core offers each rate for 2 s (1024-byte requests from 16 source ports) "
             "and verifies the first 64 replies of every step in full. Made by `scripts/bench/roughtime_measure.py`.", "",
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
    if len(sys.argv) != 2:
        sys.exit("usage: roughtime_report.py ROUGHTIME.json")
    print("\n".join(roughtime_section(sys.argv[1])))
