#!/usr/bin/env python3
"""The NTP servers on ONE core, in one run: each server alone on core 1, the load generator (ntp-load)
and every client on core 0. ntp_one_core_report.py prints the JSON it writes.

Servers, one after the other:
  before   TIMESYNC_BEFORE (optional): an earlier `timesync` build
  after    benchlib.TIMESYNC (this checkout's .build/release/timesync), or TIMESYNC_AFTER
  chronyd  chronyd with NTS (ntsprocesses 0: everything in its one process)
  null     null-ntp-server.c, a do-nothing SNTP server compiled here with gcc -O2 (SNTP only): the floor
Ours runs `serve --ntp 127.0.0.1:P --nts-ke 127.0.0.1:K --cert C --key K --rate-limit off
--nts-ke-rate-limit off --local-stratum 3 --log-level warning --threads 1`.

For each:
  NTS      answered/s at rising offered rates (peak), CPU µs per reply at NTS_COST_RATE (not null)
  SNTP     answered/s at rising offered rates (peak, and at SNTP_COST_RATE), CPU µs per reply there
  key exchange  server CPU per handshake over HANDSHAKES `timesync query nts://` (ours, chronyd)
  allocations   ours only, a second instance under malloc-count.so: allocations per reply (NTS at
                NTS_COST_RATE, SNTP at SNTP_ALLOC_RATE, each after a warm-up step), per key exchange,
                and per idle second
  perf     the after server only: `perf record -e cpu-clock -F 2000 -g` for PERF_SECONDS while NTS at
           NTS_COST_RATE, then SNTP at SNTP_COST_RATE, runs against it: user vs kernel share (by the
           sample's own frame) and the top symbols by self share

Usage: scripts/bench/ntp_one_core.py OUT.json
Environment:
  TIMESYNC_BEFORE=PATH  also measure this timesync binary, as "before"
  TIMESYNC_AFTER=PATH   measure this binary as "after" instead of benchlib.TIMESYNC
  ONE_CORE_QUICK=1      a short check of the script: fewer rates, 1-second steps, 10 handshakes
  ONE_CORE_SERVERS=a,b  only these of before,after,chronyd,null
Expects release builds of timesync and of Benchmarks' ntp-load, gcc, openssl, chronyd and perf; the
machine otherwise idle (the load average is recorded beside each server's figures).
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

import benchlib
import ntp_server_measure
from benchlib import chronyd_pid, free_port, pinned, start, stop
from ntp_server_measure import NTP_LOAD, chronyd_nts, cpu_seconds, credentials, load

HERE = os.path.dirname(os.path.abspath(__file__))
QUICK = os.environ.get("ONE_CORE_QUICK") == "1"
AFTER = os.environ.get("TIMESYNC_AFTER") or benchlib.TIMESYNC
BEFORE = os.environ.get("TIMESYNC_BEFORE")
SERVER_CORE, LOAD_CORE = 1, 0

STEP_SECONDS = 1 if QUICK else 2
NTS_RATES = [20000, 80000, 160000] if QUICK else [10000, 20000, 40000, 80000, 120000, 160000, 200000, 240000]
SNTP_RATES = [100000, 200000, 300000] if QUICK else [100000, 150000, 200000, 250000, 300000, 350000, 400000]
NTS_COST_RATE = 20000
COST_SECONDS = 8
SNTP_COST_RATE = 200000
SNTP_ALLOC_RATE = 100000
HANDSHAKES = 10 if QUICK else 100
ALLOC_HANDSHAKES = 5 if QUICK else 20
PERF_SECONDS = 1 if QUICK else 3
TOP_SYMBOLS = 12


def log(text):
    print(f"  {text}", file=sys.stderr, flush=True)


# -- measurements ------------------------------------------------------------------------------------


def server_cost(pid, port, rate, extra=()):
    """CPU per answered request over one COST_SECONDS step at `rate`: from the threads' schedstat
    (nanoseconds, the figure reported) and from /proc/PID/stat (10 ms clock ticks, beside it)."""
    seconds = 1 if QUICK else COST_SECONDS
    ticks, nanos = cpu_seconds(pid), thread_cpu_seconds(pid)
    step = load(port, [rate], seconds=seconds, cpu=LOAD_CORE, extra=extra)[0]
    ticks, nanos = cpu_seconds(pid) - ticks, thread_cpu_seconds(pid) - nanos
    answered = step["answered"]
    return {"rate": rate, "seconds": seconds, "answered": answered, "cpuSeconds": nanos, "tickCPUSeconds": ticks,
            "microsecondsPerReply": nanos / answered * 1e6 if answered else None,
            "tickMicrosecondsPerReply": ticks / answered * 1e6 if answered else None}


def rising(pid, port, rates, extra=()):
    """ntp-load's steps at rising rates, the server's CPU per step included, and the peak answered/s."""
    steps = load(port, rates, seconds=STEP_SECONDS, cpu=LOAD_CORE, extra=list(extra) + ["--server-pid", str(pid)])
    return {"steps": steps, "peak": max((s["answeredRate"] for s in steps), default=None)}


def at_rate(steps, rate):
    return next((s["answeredRate"] for s in steps if s["offeredRate"] == rate), None)


def query(ke_port, cert):
    """One `timesync query nts://` on the load core: the key-exchange seconds it reports, or None."""
    out = subprocess.run(pinned([AFTER, "query", f"nts://127.0.0.1:{ke_port}", "--ca-file", cert, "--samples", "1", "--json"],
                                LOAD_CORE), capture_output=True, text=True)
    if out.returncode != 0:
        return None
    try:
        return json.loads(out.stdout).get("keyExchange")
    except ValueError:
        return None


def thread_cpu_seconds(pid):
    """CPU time the process's present threads have run (/proc/PID/task/*/schedstat, nanoseconds): finer
    than cpu_seconds' clock ticks, but a thread that has exited is not counted."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total / 1e9


def key_exchange_cost(pid, ke_port, cert, count=HANDSHAKES):
    """Server CPU per handshake over `count` sequential NTS queries (each also one NTS request): from
    the threads' schedstat (ns), and from /proc/PID/stat (clock ticks, exited threads included)."""
    before, before_fine = cpu_seconds(pid), thread_cpu_seconds(pid)
    times = [query(ke_port, cert) for _ in range(count)]
    used, used_fine = cpu_seconds(pid) - before, thread_cpu_seconds(pid) - before_fine
    ok = [t for t in times if t is not None]
    return {"handshakes": count, "succeeded": len(ok), "cpuSeconds": used, "threadCPUSeconds": used_fine,
            "cpuMillisecondsPerHandshake": used_fine / len(ok) * 1e3 if ok else None,
            "tickCPUMillisecondsPerHandshake": used / len(ok) * 1e3 if ok else None,
            "clientKeyExchangeMilliseconds": sorted(t * 1e3 for t in ok)}


# -- allocations ------------------------------------------------------------------------------------


class Counter:
    """Reads a malloc-count.so process's allocation count: SIGUSR2, then the line it appends."""

    def __init__(self, path):
        self.path = path

    def lines(self):
        try:
            with open(self.path) as f:
                return [int(x) for x in f.read().split()]
        except FileNotFoundError:
            return []

    def read(self, pid, timeout=3.0):
        seen = len(self.lines())
        os.kill(pid, signal.SIGUSR2)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            values = self.lines()
            if len(values) > seen:
                return values[-1]
            time.sleep(0.02)
        raise RuntimeError("malloc-count: no count after SIGUSR2 (is the library preloaded?)")


def allocations(binary, directory, cert, key, library):
    """A second instance of our server under malloc-count.so: allocations per NTS reply, per SNTP reply,
    per key exchange, per idle second; each load after a warm-up step at the same rate."""
    port, ke_port = free_port(), free_port()
    path = os.path.join(directory, f"malloc-count-{port}")
    env = dict(os.environ, LD_PRELOAD=library, MALLOC_COUNT_FILE=path)
    server = our_server(binary, port, ke_port, cert, key, env=env)
    counter = Counter(path)
    pid = server.pid
    nts_extra = ["--nts-ke", f"127.0.0.1:{ke_port}", "--ca-file", cert]
    seconds = STEP_SECONDS * 2
    try:
        result = {}
        a = counter.read(pid)
        time.sleep(1.0)
        b = counter.read(pid)
        result["idlePerSecond"] = b - a
        load(port, [NTS_COST_RATE], seconds=STEP_SECONDS, cpu=LOAD_CORE, extra=nts_extra)  # warm-up
        a = counter.read(pid)
        ok = sum(query(ke_port, cert) is not None for _ in range(ALLOC_HANDSHAKES))
        b = counter.read(pid)
        per_ke = (b - a) / ok if ok else None
        result["keyExchange"] = {"handshakes": ok, "allocations": b - a, "perHandshake": per_ke}
        step = load(port, [NTS_COST_RATE], seconds=seconds, cpu=LOAD_CORE, extra=nts_extra)[0]
        c = counter.read(pid)
        # The step's one key exchange (ntp-load's) is taken out, at the per-handshake figure just measured.
        net = (c - b) - (per_ke or 0)
        result["nts"] = {"rate": NTS_COST_RATE, "seconds": seconds, "answered": step["answered"], "allocations": c - b,
                         "perReply": net / step["answered"] if step["answered"] else None,
                         "perReplyRaw": (c - b) / step["answered"] if step["answered"] else None}
        load(port, [SNTP_ALLOC_RATE], seconds=STEP_SECONDS, cpu=LOAD_CORE)  # warm-up
        a = counter.read(pid)
        step = load(port, [SNTP_ALLOC_RATE], seconds=seconds, cpu=LOAD_CORE)[0]
        b = counter.read(pid)
        result["sntp"] = {"rate": SNTP_ALLOC_RATE, "seconds": seconds, "answered": step["answered"], "allocations": b - a,
                          "perReply": (b - a) / step["answered"] if step["answered"] else None}
        return result
    finally:
        stop(server)


# -- perf -------------------------------------------------------------------------------------------

PERF_LINE = re.compile(r"^\s*([\d.]+)%\s+(\d+)\s+(\S+)\s+\[(.)\]\s+(.+?)\s*$")


def demangle(names):
    """Swift symbols demangled (simplified) by `swift demangle`, when it is there; else as they are."""
    try:
        out = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(names) + "\n",
                             capture_output=True, text=True, timeout=60)
        lines = out.stdout.split("\n")
        if out.returncode == 0 and len(lines) >= len(names):
            return lines[:len(names)]
    except (OSError, subprocess.SubprocessError):
        pass
    return names


def perf_profile(pid, port, directory, name, extra, rate):
    """perf record on the server (on the load core) for PERF_SECONDS while ntp-load offers `rate`."""
    data = os.path.join(directory, f"perf-{name}-{pid}.data")
    generator = start([NTP_LOAD, "--host", "127.0.0.1", "--port", str(port), "--rates", str(rate),
                       "--seconds", str(PERF_SECONDS + 3), "--json"] + list(extra), cpu=LOAD_CORE,
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.5)  # past the key exchange and the first second
        record = subprocess.run(pinned(["perf", "record", "-e", "cpu-clock", "-F", "2000", "-g", "-p", str(pid), "-o", data,
                                        "--", "sleep", str(PERF_SECONDS)], LOAD_CORE), capture_output=True, text=True)
        if record.returncode != 0:
            return {"error": record.stderr.strip()[-500:]}
        generator.wait(timeout=PERF_SECONDS + 30)
    finally:
        stop(generator)
    report = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "dso,sym", "-g", "none",
                             "--show-nr-samples", "--percent-limit", "0"], capture_output=True, text=True)
    if report.returncode != 0:
        return {"error": report.stderr.strip()[-500:]}
    rows = []
    for line in report.stdout.splitlines():
        m = PERF_LINE.match(line)
        if m:
            rows.append({"percent": float(m.group(1)), "samples": int(m.group(2)), "dso": m.group(3),
                         "kernel": m.group(4) == "k", "symbol": m.group(5)})
    kernel = sum(r["percent"] for r in rows if r["kernel"])
    user = sum(r["percent"] for r in rows if not r["kernel"])
    top = sorted(rows, key=lambda r: -r["percent"])[:TOP_SYMBOLS]
    for row, readable in zip(top, demangle([r["symbol"] for r in top])):
        row["symbol"] = readable
    os.remove(data)
    return {"rate": rate, "seconds": PERF_SECONDS, "samples": sum(r["samples"] for r in rows),
            "userPercent": user, "kernelPercent": kernel, "top": top}


# -- servers ----------------------------------------------------------------------------------------


def our_server(binary, port, ke_port, cert, key, env=None):
    # No rate limit on either port, as chronyd has none by default (its ntsratelimit is opt-in): the
    # generator and the handshake loop come from one address.
    p = start([binary, "serve", "--ntp", f"127.0.0.1:{port}", "--nts-ke", f"127.0.0.1:{ke_port}", "--cert", cert,
               "--key", key, "--rate-limit", "off", "--nts-ke-rate-limit", "off", "--local-stratum", "3", "--log-level", "warning",
               "--threads", "1"],
              env=env, cpu=SERVER_CORE)
    time.sleep(1.0)
    if p.poll() is not None:
        raise RuntimeError(f"{binary} serve exited: {p.stdout.read().decode(errors='replace')[-1000:]}")
    return p


def null_server(binary, port):
    p = start([binary, str(port)], cpu=SERVER_CORE)
    time.sleep(0.5)
    if p.poll() is not None:
        raise RuntimeError(f"null-ntp-server exited: {p.stdout.read().decode(errors='replace')}")
    return p


def section(result, key, make):
    """result[key] = make(), or the error it raised (the other sections still run)."""
    try:
        result[key] = make()
    except Exception as e:  # noqa: BLE001 - one failed section must not lose the run
        log(f"    {key} failed: {e}")
        result[key] = {"error": str(e)}


def measure(name, directory, cert, key, tools):
    """One server alone on the server core: every section that applies to it."""
    result = {"loadAverageBefore": os.getloadavg()}
    port, ke_port = free_port(), free_port()
    if name in ("before", "after"):
        binary = BEFORE if name == "before" else AFTER
        result["binary"] = binary
        server = our_server(binary, port, ke_port, cert, key)
        pid = server.pid
    elif name == "chronyd":
        server = chronyd_nts(port, ke_port, directory, cert, key, cpu=SERVER_CORE)
        if server.poll() is not None:
            raise RuntimeError(f"chronyd exited: {server.stdout.read().decode(errors='replace')[-1000:]}")
        pid = chronyd_pid(directory, port)
        result["binary"] = subprocess.run(["chronyd", "--version"], capture_output=True, text=True).stdout.strip()
    else:
        server = null_server(tools["null"], port)
        pid = server.pid
        result["binary"] = "null-ntp-server.c (gcc -O2)"
    nts_extra = ["--nts-ke", f"127.0.0.1:{ke_port}", "--ca-file", cert]
    try:
        if name != "null":
            log(f"{name}: NTS at {NTS_RATES}")
            section(result, "nts", lambda: rising(pid, port, NTS_RATES, nts_extra))
            section(result["nts"], "cost", lambda: server_cost(pid, port, NTS_COST_RATE, nts_extra))
        log(f"{name}: SNTP at {SNTP_RATES}")
        section(result, "sntp", lambda: rising(pid, port, SNTP_RATES))
        if "steps" in result["sntp"]:
            result["sntp"]["atCostRate"] = at_rate(result["sntp"]["steps"], SNTP_COST_RATE)
        section(result["sntp"], "cost", lambda: server_cost(pid, port, SNTP_COST_RATE))
        if name != "null":
            log(f"{name}: {HANDSHAKES} key exchanges")
            section(result, "keyExchange", lambda: key_exchange_cost(pid, ke_port, cert))
        if name == "after":
            log(f"{name}: perf, NTS at {NTS_COST_RATE}/s and SNTP at {SNTP_COST_RATE}/s")
            perf = {}
            section(perf, "nts", lambda: perf_profile(pid, port, directory, "nts", nts_extra, NTS_COST_RATE))
            section(perf, "sntp", lambda: perf_profile(pid, port, directory, "sntp", (), SNTP_COST_RATE))
            result["perf"] = perf
    finally:
        stop(server)
    if name in ("before", "after"):
        log(f"{name}: allocations (malloc-count.so)")
        section(result, "allocations", lambda: allocations(result["binary"], directory, cert, key, tools["malloc"]))
    return result


def build_tools(directory):
    null = os.path.join(directory, "null-ntp-server")
    library = os.path.join(directory, "malloc-count.so")
    subprocess.run(["gcc", "-O2", "-o", null, os.path.join(HERE, "null-ntp-server.c")], check=True)
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", library, os.path.join(HERE, "malloc-count.c"), "-ldl"], check=True)
    return {"null": null, "malloc": library}


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    out = sys.argv[1]
    names = ["before", "after", "chronyd", "null"]
    if not BEFORE:
        names.remove("before")
    if os.environ.get("ONE_CORE_SERVERS"):
        wanted = os.environ["ONE_CORE_SERVERS"].split(",")
        names = [n for n in names if n in wanted]
    for binary in [AFTER, NTP_LOAD] + ([BEFORE] if BEFORE else []):
        if not os.access(binary, os.X_OK):
            sys.exit(f"missing: {binary}")
    signal.signal(signal.SIGTERM, benchlib.stop_all)
    directory = tempfile.mkdtemp(prefix="timesync-one-core-")
    os.chmod(directory, 0o777)
    result = {
        "quick": QUICK, "cpuCount": os.cpu_count(), "uname": " ".join(os.uname()),
        "cores": {"server": SERVER_CORE, "load": LOAD_CORE},
        "settings": {"stepSeconds": STEP_SECONDS, "ntsRates": NTS_RATES, "sntpRates": SNTP_RATES,
                     "ntsCostRate": NTS_COST_RATE, "sntpCostRate": SNTP_COST_RATE, "sntpAllocationRate": SNTP_ALLOC_RATE,
                     "handshakes": HANDSHAKES, "perfSeconds": PERF_SECONDS},
        "servers": {},
    }
    try:
        tools = build_tools(directory)
        cert, key = credentials(directory)
        for name in names:
            try:
                result["servers"][name] = measure(name, directory, cert, key, tools)
            except Exception as e:  # noqa: BLE001
                log(f"{name} failed: {e}")
                result["servers"][name] = {"error": str(e)}
            benchlib.write_json(out, result)  # after each server: a failure later keeps what was measured
    finally:
        benchlib.stop_all()
    benchlib.write_json(out, result)
    log(f"wrote {out}")


if __name__ == "__main__":
    main()
