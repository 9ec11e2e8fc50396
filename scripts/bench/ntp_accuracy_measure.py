"""Measures NTP accuracy on an impaired path side by side with chronyd (docs/BENCHMARKS.md, section 4a).
ntp_measure.py runs these and writes the JSON; ntp_report.py prints it.

chronyd serves a clock shifted by libfaketime; a seeded udp-relay (base delay each way, exponential
jitter, spikes, loss) sits in front of it; our client (`timesync query --samples 4`) and
`chronyd -Q ... maxsamples 4` measure the shift through the same relay settings and seed, four
packets each; |measured - shift| for each. Then the one-shot query, eight packets, on a rougher path.
"""
import json
import os
import re
import subprocess
import sys
import time

from benchlib import BUILD, ROOT, TIMESYNC, chronyd, free_port, start, stop, summarize

RELAY = os.path.join(ROOT, f".build/{BUILD}/udp-relay")
SHIFT = 1.5
SEEDS = list(range(1, 21))
PATH = {"up_ms": 15, "down_ms": 15, "jitter_ms": 8, "spike_probability": 0.05, "spike_ms": 150, "loss": 0.02}
ASYMMETRIC = dict(PATH, up_ms=25, down_ms=5)
# The one-shot query on a rougher path: 20 ms each way, exponential jitter of mean 10 ms, 10 % spikes of
# 200 ms, eight packets per client, 24 seeds.
ONE_SHOT = {"up_ms": 20, "down_ms": 20, "jitter_ms": 10, "spike_probability": 0.10, "spike_ms": 200, "loss": 0.0}
ONE_SHOT_SEEDS = list(range(1, 25))
ONE_SHOT_PACKETS = 8


def relay(listen, upstream, seed, path):
    return start([RELAY, "--listen", f"127.0.0.1:{listen}", "--upstream", f"127.0.0.1:{upstream}",
                  "--up-ms", str(path["up_ms"]), "--down-ms", str(path["down_ms"]), "--jitter-ms", str(path["jitter_ms"]),
                  "--spike-probability", str(path["spike_probability"]), "--spike-ms", str(path["spike_ms"]),
                  "--loss", str(path["loss"]), "--seed", str(seed)])


def ours_through(port, packets=4, binary=None):
    out = subprocess.run([binary or TIMESYNC, "query", f"ntp://127.0.0.1:{port}", "--samples", str(packets), "--timeout", "2",
                          "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return json.loads(out.stdout)["offset"]


def chrony_through(port, packets=4):
    out = subprocess.run(["chronyd", "-Q", "-f", "/dev/null",
                          f"server 127.0.0.1 port {port} iburst maxsamples {packets}"],
                         capture_output=True, text=True, timeout=60)
    m = re.search(r"System clock wrong by (-?[0-9.]+) seconds", out.stdout + out.stderr)
    # chronyd reports how far the local clock is off: the server's offset, with its sign.
    return float(m.group(1)) if m else None


def accuracy(directory, path, seeds, packets=4, before=None):
    """|measured - shift| per seed for our query and chronyd -Q (and `before`, another timesync
    binary, when given: an earlier build measured in the same run, seed for seed)."""
    upstream = free_port()
    server = chronyd(upstream, directory, shift=SHIFT, cpu=1)
    rows = []
    clients = [("timesync", ours_through), ("chronyd", chrony_through)]
    if before:
        clients.insert(0, ("before", lambda port, n: ours_through(port, n, binary=before)))
    for seed in seeds:
        row = {"seed": seed}
        for name, measure in clients:
            port = free_port()
            r = relay(port, upstream, seed, path)
            time.sleep(0.5)
            value = measure(port, packets)
            stop(r)
            row[name] = None if value is None else value - SHIFT
        rows.append(row)
        print(f"  seed {seed}: " + ", ".join(f"{name} {row[name]}" for name, _ in clients), file=sys.stderr)
    stop(server)
    return {"path": path, "shift": SHIFT, "rows": rows, "packets": packets}


def one_shot(directory):
    print(f"  one-shot accuracy through the relay ({ONE_SHOT_PACKETS} packets, {len(ONE_SHOT_SEEDS)} seeds)…",
          file=sys.stderr)
    # TIMESYNC_BEFORE=path/to/an/earlier/timesync measures that build too, seed for seed in the same run.
    before = os.environ.get("TIMESYNC_BEFORE")
    result = accuracy(directory, ONE_SHOT, ONE_SHOT_SEEDS, ONE_SHOT_PACKETS, before=before)
    o = summarize([r["timesync"] for r in result["rows"]])
    c = summarize([r["chronyd"] for r in result["rows"]])
    if before:
        b = summarize([r["before"] for r in result["rows"]])
        print(f"  before ({before}): median |error| {b[0]*1e3:.3f} ms, max {b[1]*1e3:.3f} ms ({b[2]} answers)", file=sys.stderr)
    print(f"  median |error|: timesync {o[0]*1e3:.3f} ms, chronyd -Q {c[0]*1e3:.3f} ms; "
          f"max: timesync {o[1]*1e3:.3f} ms, chronyd -Q {c[1]*1e3:.3f} ms ({o[2]} and {c[2]} answers)", file=sys.stderr)
    return result
