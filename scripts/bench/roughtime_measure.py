#!/usr/bin/env python3
"""Roughtime server cost (docs/BENCHMARKS.md, section 6): replies per second per core, batch signing
off and on, written as JSON; roughtime_report.py turns it into the section.

`timesync serve --roughtime` runs pinned to one core, with --roughtime-batch 1 (every reply signed
alone) and then 64 (one signature over the Merkle tree of up to 64 requests read together);
roughtime-load (Benchmarks/Tools), pinned to the other core, offers the same rising rates of
1024-byte requests to each, from 16 source ports, and verifies the first 64 replies of every step in
full. Per rate: replies/s, and the server's CPU time, from which replies per CPU-second (what one core
answers when it does nothing else).

Usage: scripts/bench/roughtime_measure.py OUT.json   (expects release builds of timesync and roughtime-load)
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import benchlib
from benchlib import ROOT, TIMESYNC, free_port, pinned, start, stop

LOAD = os.path.join(ROOT, "Benchmarks/.build/release/roughtime-load")
RATES = [5000, 10000, 20000, 40000, 80000, 160000]
BATCHES = [1, 64]


def measure(key, public_key, batch):
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
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", metavar="OUT.json")
    out = parser.parse_args().out
    signal.signal(signal.SIGTERM, benchlib.stop_all)
    directory = tempfile.mkdtemp(prefix="timesync-bench-roughtime-")
    key = os.path.join(directory, "long-term.key")
    public_key = subprocess.run([TIMESYNC, "roughtime", "keygen", "--out", key], capture_output=True, text=True,
                                check=True).stdout.strip()
    result = {"rates": RATES}
    try:
        for batch in BATCHES:
            print(f"  Roughtime, batch {batch}…", file=sys.stderr)
            result[f"batch{batch}"] = measure(key, public_key, batch)
    finally:
        benchlib.stop_all()
    benchlib.write_json(out, result)


if __name__ == "__main__":
    main()
