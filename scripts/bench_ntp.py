#!/usr/bin/env python3
"""NTP benchmarks, side by side with chronyd on loopback (docs/BENCHMARKS.md, sections 2 and 4):

2. SNTP server throughput: ntp-load offers rising request rates to `timesync serve --ntp --rate-limit off`
   and to chronyd (no rate limit either), same generator and settings, server and generator pinned to
   different cores; answered requests/s and reply latency p50/p99 per rate; the server's CPU time per
   reply at 100k/s; then nothing pinned, ours with one socket per core.
4. Accuracy on an impaired path: chronyd serves a clock shifted by libfaketime; a seeded udp-relay
   (base delay each way, exponential jitter, spikes, loss) sits in front of it; our client
   (`timesync query --samples 4`) and `chronyd -Q ... maxsamples 4` measure the shift through the same
   relay settings and seed, four packets each; |measured - shift| for each.

2b. NTS server cost: the same generator with --nts-ke (one key exchange, then NTS requests sealed with
   its key) against `timesync serve --ntp --nts-ke` and chronyd's NTS server, each on one core, beside
   plain SNTP to the same servers in the same run: answered requests/s per rate, CPU time per reply at
   NTS_COST_RATE; and the client's key-exchange time (`timesync query nts://`, 20 runs) against both.

Usage: scripts/bench_ntp.py OUT.json   (expects release builds of timesync, ntp-load and udp-relay)
       scripts/bench_ntp.py OUT.json --only nts   (section 2b alone, into an existing OUT.json)
"""
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# TIMESYNC_BUILD=debug measures a debug build (for a quick look; the report uses release builds).
BUILD = os.environ.get("TIMESYNC_BUILD", "release")
TIMESYNC = os.path.join(ROOT, f".build/{BUILD}/timesync")
NTP_LOAD = os.path.join(ROOT, "Benchmarks/.build/release/ntp-load")
RELAY = os.path.join(ROOT, f".build/{BUILD}/udp-relay")
FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
SHIFT = 1.5
RATES = [20000, 40000, 80000, 160000, 240000, 320000, 480000]
UNPINNED_RATES = [160000, 240000, 320000, 480000]
COST_RATE = 100000
NTS_RATES = [10000, 20000, 40000, 80000, 160000]
NTS_COST_RATE = 20000
KEY_EXCHANGES = 20
SEEDS = list(range(1, 21))
PATH = {"up_ms": 15, "down_ms": 15, "jitter_ms": 8, "spike_probability": 0.05, "spike_ms": 150, "loss": 0.02}
ASYMMETRIC = dict(PATH, up_ms=25, down_ms=5)
# The one-shot query on a rougher path: 20 ms each way, exponential jitter of mean 10 ms, 10 % spikes of
# 200 ms, eight packets per client, 24 seeds.
ONE_SHOT = {"up_ms": 20, "down_ms": 20, "jitter_ms": 10, "spike_probability": 0.10, "spike_ms": 200, "loss": 0.0}
ONE_SHOT_SEEDS = list(range(1, 25))
ONE_SHOT_PACKETS = 8
processes = []


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(cmd, env=None, cpu=None):
    if cpu is not None and os.cpu_count() and os.cpu_count() > 1:
        cmd = ["taskset", "-c", str(cpu)] + cmd
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    processes.append(p)
    return p


def stop(p):
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGTERM)
            p.wait(timeout=3)
        except Exception:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def cleanup(*_):
    for p in processes:
        try:
            stop(p)
        except Exception:
            pass


def chronyd(port, directory, shift=None, cpu=1, extra=""):
    conf = os.path.join(directory, f"chrony-{port}.conf")
    with open(conf, "w") as f:
        f.write(f"port {port}\nbindaddress 127.0.0.1\nallow 127.0.0.1\nlocal stratum 3\ncmdport 0\nbindcmdaddress /\n"
                f"pidfile {directory}/chronyd-{port}.pid\n{extra}")
    env = dict(os.environ)
    if shift is not None:
        env.update({"LD_PRELOAD": FAKETIME_LIB, "FAKETIME": f"{shift:+}s", "FAKETIME_DONT_FAKE_MONOTONIC": "1"})
    # As root, stay root (the pidfile is in a private temporary folder); otherwise skip the root check.
    privileges = ["-u", "root"] if os.geteuid() == 0 else ["-U"]
    p = start(["chronyd", "-x", "-d"] + privileges + ["-f", conf], env=env, cpu=cpu)
    time.sleep(1.0)
    return p


def load(port, rates=None, seconds=2, cpu=0, extra=()):
    cmd = [NTP_LOAD, "--host", "127.0.0.1", "--port", str(port), "--rates", ",".join(map(str, rates or RATES)),
           "--seconds", str(seconds), "--json"] + list(extra)
    if cpu is not None and os.cpu_count() and os.cpu_count() > 1:
        cmd = ["taskset", "-c", str(cpu)] + cmd
    return json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)


def cpu_seconds(pid):
    """User + system CPU time a process has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cost(pid, port, rate=COST_RATE, extra=()):
    """CPU time the server spends per answered request at `rate` requests/s (below saturation)."""
    before = cpu_seconds(pid)
    step = load(port, [rate], seconds=4, extra=extra)[0]
    used = cpu_seconds(pid) - before
    return {"rate": rate, "answered": step["answered"], "cpuSeconds": used,
            "microsecondsPerReply": used / step["answered"] * 1e6 if step["answered"] else None}


def our_server(port, cpu, threads=None):
    extra = ["--threads", str(threads)] if threads else []
    # --local-stratum 3, as chronyd is configured: this host need not be synchronized.
    p = start([TIMESYNC, "serve", "--ntp", f"127.0.0.1:{port}", "--rate-limit", "off", "--local-stratum", "3",
               "--log-level", "warning"] + extra,
              cpu=cpu)
    time.sleep(1.0)
    return p


def chronyd_pid(directory, port):
    with open(os.path.join(directory, f"chronyd-{port}.pid")) as f:
        return int(f.read().strip())


def throughput(directory):
    """Each server alone on core 1 (ours with one socket), the generator on core 0: rising rates, then
    the CPU cost per reply at COST_RATE. Then nothing pinned, ours with a socket per core."""
    result = {"pinned": {}, "cost": {}, "unpinned": {}}
    port = free_port()
    ours = our_server(port, cpu=1)  # pinned to one core: one socket (it counts the cores it may use)
    result["pinned"]["timesync"] = load(port)
    result["cost"]["timesync"] = cost(ours.pid, port)
    stop(ours)
    port = free_port()
    chrony = chronyd(port, directory)
    result["pinned"]["chronyd"] = load(port)
    result["cost"]["chronyd"] = cost(chronyd_pid(directory, port), port)
    stop(chrony)
    port = free_port()
    ours = our_server(port, cpu=None, threads=os.cpu_count())
    result["unpinned"]["timesync"] = load(port, UNPINNED_RATES, cpu=None)
    stop(ours)
    port = free_port()
    chrony = chronyd(port, directory, cpu=None)
    result["unpinned"]["chronyd"] = load(port, UNPINNED_RATES, cpu=None)
    stop(chrony)
    return result


LINE_RATES = [50000, 100000, 200000, 300000, 400000, 500000, 600000]
LINE_COST_RATES = [50000, 100000]
FLOOD_RATES = [10000, 50000, 100000]
LAG_RATES = [50000, 100000, 200000]
# chronyd's rate limit set like ours: 1 request/s sustained, a burst of 8, one over-limit request in
# 16 answered (leak 4: 1 in 2^4).
CHRONY_RATELIMIT = "ratelimit interval 0 burst 8 leak 4\n"


def our_ntp(port, cpu, io="batched", threads=1, kernel=True, rate_limit="off"):
    cmd = [TIMESYNC, "serve", "--ntp", f"127.0.0.1:{port}", "--rate-limit", rate_limit, "--local-stratum", "3",
           "--log-level", "warning", "--ntp-io", io, "--threads", str(threads)]
    if not kernel:
        cmd.append("--no-kernel-timestamps")
    p = start(cmd, cpu=cpu)
    time.sleep(1.0)
    return p


def line_rate(directory):
    """The SNTP server at line rate: ours on its batched path and on SwiftNIO's, chronyd, each alone on
    core 1 (the generator on core 0): rising rates with latency and receive-timestamp lag, CPU per
    reply at 50k and 100k/s; ours with two sockets and nothing pinned; a flood from one address
    against each server's rate limit; the receive-timestamp lag of our batched path without kernel
    timestamps."""
    result = {"rates": LINE_RATES, "pinned": {}, "cost": {}, "twoCores": {}, "flood": {}, "lagWithoutKernel": None}
    servers = {
        "batched": lambda port, cpu, **kw: our_ntp(port, cpu, **kw),
        "swiftNIO": lambda port, cpu, **kw: our_ntp(port, cpu, io="swiftnio", **kw),
        "chronyd": lambda port, cpu, **kw: chronyd(port, directory, cpu=cpu, extra=CHRONY_RATELIMIT if kw.get("rate_limit") else ""),
    }

    def pid_of(name, port, p):
        return chronyd_pid(directory, port) if name == "chronyd" else p.pid

    for name, make in servers.items():
        print(f"    {name}: rising rates, one core", file=sys.stderr)
        port = free_port()
        p = make(port, 1)
        pid = pid_of(name, port, p)
        result["pinned"][name] = load(port, LINE_RATES, extra=["--server-pid", str(pid)])
        result["cost"][name] = [cost(pid, port, rate) for rate in LINE_COST_RATES]
        stop(p)
    print("    batched without kernel timestamps", file=sys.stderr)
    port = free_port()
    p = our_ntp(port, 1, kernel=False)
    result["lagWithoutKernel"] = load(port, LAG_RATES)
    stop(p)
    print("    two sockets, nothing pinned", file=sys.stderr)
    for name, threads in [("batched", 2), ("chronyd", None)]:
        port = free_port()
        p = our_ntp(port, None, threads=threads) if name == "batched" else chronyd(port, directory, cpu=None)
        result["twoCores"][name] = load(port, LINE_RATES, cpu=None)
        stop(p)
    for name, make in servers.items():
        print(f"    {name}: a flood from one address against the rate limit", file=sys.stderr)
        port = free_port()
        p = make(port, 1, rate_limit="1")
        pid = pid_of(name, port, p)
        result["flood"][name] = load(port, FLOOD_RATES, extra=["--server-pid", str(pid)])
        stop(p)
    return result


def line_rate_section(r):
    """Markdown for section 2c from line_rate()'s result."""
    def best(rows):
        return max(rows, key=lambda x: x["answeredRate"])

    def us(v):
        return "–" if v is None else f"{v:.0f}"

    pinned = r["pinned"]
    lines = ["## 2c. SNTP server at line rate", "",
             "`timesync serve --ntp … --rate-limit off --local-stratum 3` on its batched path (Linux: `recvmmsg`/`sendmmsg` "
             "on a thread per socket, kernel receive timestamps; `--ntp-io batched`, the default) and on SwiftNIO's "
             "(`--ntp-io swiftnio`), and chronyd, each alone on core 1 with `ntp-load` on core 0; each rate offered for "
             "2 s. *Lag* is the reply's receive timestamp minus the instant the request was sent (loopback transit plus any "
             "time the request waited in the server's queue before it was dated). Made by `scripts/bench_ntp.py OUT.json "
             "--only line-rate`.", "",
             "| offered /s | batched: answered /s, p50 / p99 µs, lag p99 µs | SwiftNIO: answered /s, p50 / p99 µs | chronyd: answered /s, p50 / p99 µs, lag p99 µs |",
             "| ---: | ---: | ---: | ---: |"]
    for a, n, c in zip(pinned["batched"], pinned["swiftNIO"], pinned["chronyd"]):
        lines.append(f"| {a['offeredRate']:,} | {a['answeredRate']:,.0f}, {us(a['p50LatencyMicroseconds'])} / {us(a['p99LatencyMicroseconds'])}, "
                     f"{us(a.get('p99ReceiveLagMicroseconds'))} | {n['answeredRate']:,.0f}, {us(n['p50LatencyMicroseconds'])} / "
                     f"{us(n['p99LatencyMicroseconds'])} | {c['answeredRate']:,.0f}, {us(c['p50LatencyMicroseconds'])} / "
                     f"{us(c['p99LatencyMicroseconds'])}, {us(c.get('p99ReceiveLagMicroseconds'))} |")
    b, n, c = best(pinned["batched"]), best(pinned["swiftNIO"]), best(pinned["chronyd"])
    lines += ["", f"Highest answered rate on one core: batched **{b['answeredRate']:,.0f}/s** (p99 {us(b['p99LatencyMicroseconds'])} µs), "
              f"SwiftNIO {n['answeredRate']:,.0f}/s, chronyd **{c['answeredRate']:,.0f}/s** (p99 {us(c['p99LatencyMicroseconds'])} µs): "
              f"batched/chronyd **{b['answeredRate'] / c['answeredRate']:.2f}×** (goal ≥ 1.5×).", ""]
    lines += ["CPU time per reply (the server's user + system time from `/proc/PID/stat` over 4 s, below saturation):", "",
              "| offered /s | batched µs | SwiftNIO µs | chronyd µs | batched / chronyd |", "| ---: | ---: | ---: | ---: | ---: |"]
    for a, n2, c2 in zip(r["cost"]["batched"], r["cost"]["swiftNIO"], r["cost"]["chronyd"]):
        ratio = a["microsecondsPerReply"] / c2["microsecondsPerReply"] if a["microsecondsPerReply"] and c2["microsecondsPerReply"] else float("nan")
        lines.append(f"| {a['rate']:,} | {a['microsecondsPerReply']:.2f} | {n2['microsecondsPerReply']:.2f} | {c2['microsecondsPerReply']:.2f} | **{ratio:.2f}×** |")
    lines += ["", "(goal at 100k/s: ≤ 0.6×)", ""]
    two = r["twoCores"]
    tb, tc = best(two["batched"]), best(two["chronyd"])
    lines += ["### Two cores", "",
              f"Nothing pinned, ours with two sockets sharing the port (`--threads 2`), chronyd on its one thread; the "
              f"generator shares the machine's {os.cpu_count()} cores with the server.", "",
              "| offered /s | batched ×2 answered /s (p99 µs) | chronyd answered /s (p99 µs) |", "| ---: | ---: | ---: |"]
    for a, c2 in zip(two["batched"], two["chronyd"]):
        lines.append(f"| {a['offeredRate']:,} | {a['answeredRate']:,.0f} ({us(a['p99LatencyMicroseconds'])}) | "
                     f"{c2['answeredRate']:,.0f} ({us(c2['p99LatencyMicroseconds'])}) |")
    lines += ["", f"Highest: batched ×2 **{tb['answeredRate']:,.0f}/s**, **{tb['answeredRate'] / b['answeredRate']:.2f}×** our one-core "
              f"rate (goal ≥ 1.8×); chronyd {tc['answeredRate']:,.0f}/s.", ""]
    lines += ["### A flood from one address", "",
              "Every request from 127.0.0.1, against each server's rate limit: ours `--rate-limit 1` (burst 8, one kiss in "
              "16 over the limit), chronyd `ratelimit interval 0 burst 8 leak 4` (the same shape); the server's CPU share "
              "of its core during the 2 s step.", "",
              "| flood /s | batched: CPU, answered /s | SwiftNIO: CPU, answered /s | chronyd: CPU, answered /s |", "| ---: | ---: | ---: | ---: |"]
    for a, n2, c2 in zip(r["flood"]["batched"], r["flood"]["swiftNIO"], r["flood"]["chronyd"]):
        def share(x):
            return "–" if x.get("serverCPUSeconds") is None else f"{x['serverCPUSeconds'] / 2 * 100:.1f} %"
        lines.append(f"| {a['offeredRate']:,} | {share(a)}, {a['answeredRate']:,.0f} | {share(n2)}, {n2['answeredRate']:,.0f} | "
                     f"{share(c2)}, {c2['answeredRate']:,.0f} |")
    lines += ["", "(goal at 100k/s: ≤ 10 % of a core)", ""]
    lines += ["### Receive timestamps under load", "",
              "The batched path with kernel receive timestamps (`SO_TIMESTAMPNS`, the default) and without "
              "(`--no-kernel-timestamps`: dated when read), one core:", "",
              "| offered /s | kernel: lag p50 / p99 µs | read time: lag p50 / p99 µs | SwiftNIO: lag p50 / p99 µs | chronyd: lag p50 / p99 µs |",
              "| ---: | ---: | ---: | ---: | ---: |"]
    by_rate = {x["offeredRate"]: x for x in r["lagWithoutKernel"]}
    for rate in LAG_RATES:
        row = [next(x for x in pinned[k] if x["offeredRate"] == rate) for k in ("batched",)]
        k = row[0]
        w = by_rate.get(rate)
        nn = next(x for x in pinned["swiftNIO"] if x["offeredRate"] == rate)
        cc = next(x for x in pinned["chronyd"] if x["offeredRate"] == rate)
        lines.append(f"| {rate:,} | {us(k.get('p50ReceiveLagMicroseconds'))} / {us(k.get('p99ReceiveLagMicroseconds'))} | "
                     f"{us(w.get('p50ReceiveLagMicroseconds') if w else None)} / {us(w.get('p99ReceiveLagMicroseconds') if w else None)} | "
                     f"{us(nn.get('p50ReceiveLagMicroseconds'))} / {us(nn.get('p99ReceiveLagMicroseconds'))} | "
                     f"{us(cc.get('p50ReceiveLagMicroseconds'))} / {us(cc.get('p99ReceiveLagMicroseconds'))} |")
    lines += ["", "Alone: `scripts/bench_ntp.py out.json --only line-rate` after the release builds (timesync, ntp-load).", ""]
    return lines


def credentials(directory):
    """A self-signed P-256 certificate for localhost and 127.0.0.1 (both NTS servers use it)."""
    cert, key = os.path.join(directory, "nts-cert.pem"), os.path.join(directory, "nts-key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], check=True, capture_output=True)
    return cert, key


def chronyd_nts(port, ke_port, directory, cert, key, cpu=1):
    dump = os.path.join(directory, f"nts-dump-{port}")
    os.makedirs(dump, exist_ok=True)
    conf = os.path.join(directory, f"chrony-nts-{port}.conf")
    with open(conf, "w") as f:
        f.write(f"bindaddress 127.0.0.1\nbindaddress ::1\nport {port}\nntsport {ke_port}\nallow 127.0.0.1\nlocal stratum 3\n"
                f"ntsserverkey {key}\nntsservercert {cert}\nntsdumpdir {dump}\nntsprocesses 0\ncmdport 0\nbindcmdaddress /\n"
                f"pidfile {directory}/chronyd-{port}.pid\n")
    privileges = ["-u", "root"] if os.geteuid() == 0 else ["-U"]
    p = start(["chronyd", "-x", "-d"] + privileges + ["-f", conf], cpu=cpu)
    time.sleep(1.0)
    return p


def key_exchanges(ke_port, cert):
    """The key-exchange time `timesync query nts://` reports, KEY_EXCHANGES runs, in ms."""
    times = []
    for _ in range(KEY_EXCHANGES):
        out = subprocess.run([TIMESYNC, "query", f"nts://127.0.0.1:{ke_port}", "--ca-file", cert, "--samples", "1", "--json"],
                             capture_output=True, text=True)
        if out.returncode == 0 and json.loads(out.stdout).get("keyExchange") is not None:
            times.append(json.loads(out.stdout)["keyExchange"] * 1e3)
    return times


def nts(directory):
    """Section 2b: each NTS server alone on core 1, the generator on core 0; NTS and plain SNTP to the
    same server, then the CPU cost per reply of each at NTS_COST_RATE, then the key-exchange times."""
    cert, key = credentials(directory)
    result = {"rates": NTS_RATES, "costRate": NTS_COST_RATE}
    for name in ("timesync", "chronyd"):
        port, ke_port = free_port(), free_port()
        if name == "timesync":
            server = start([TIMESYNC, "serve", "--ntp", f"127.0.0.1:{port}", "--nts-ke", f"127.0.0.1:{ke_port}", "--cert", cert,
                            "--key", key, "--rate-limit", "off", "--local-stratum", "3", "--log-level", "warning"], cpu=1)
            time.sleep(1.0)
            pid = server.pid
        else:
            server = chronyd_nts(port, ke_port, directory, cert, key)
            pid = chronyd_pid(directory, port)
        extra = ["--nts-ke", f"127.0.0.1:{ke_port}", "--ca-file", cert]
        print(f"  {name}: NTS and plain SNTP, rates {NTS_RATES}…", file=sys.stderr)
        result[name] = {
            "nts": load(port, NTS_RATES, extra=extra),
            "plain": load(port, NTS_RATES),
            "costNTS": cost(pid, port, NTS_COST_RATE, extra=extra),
            "costPlain": cost(pid, port, NTS_COST_RATE),
            "keyExchangeMilliseconds": key_exchanges(ke_port, cert),
        }
        stop(server)
    return result


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
    server = chronyd(upstream, directory, shift=SHIFT)
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


def main():
    # scripts/bench_ntp.py OUT.json [--only one-shot]: the one-shot accuracy section alone (about 2 min);
    # [--only accuracy]: the client's accuracy through the relay, into an existing OUT.json.
    out = sys.argv[1]
    only = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--only" else None
    signal.signal(signal.SIGTERM, cleanup)
    directory = tempfile.mkdtemp(prefix="timesync-bench-")
    os.chmod(directory, 0o777)
    try:
        if only == "one-shot":
            with open(out, "w") as f:
                json.dump({"oneShot": one_shot(directory)}, f, indent=2)
            return
        if only == "line-rate":
            result = {}
            if os.path.exists(out):
                with open(out) as f:
                    result = json.load(f)
            print("  SNTP server at line rate…", file=sys.stderr)
            result["lineRate"] = line_rate(directory)
            with open(out, "w") as f:
                json.dump(result, f, indent=2)
            return
        if only == "nts":
            with open(out) as f:
                result = json.load(f)
            print("  NTS server cost…", file=sys.stderr)
            result["nts"] = nts(directory)
            with open(out, "w") as f:
                json.dump(result, f, indent=2)
            return
        if only == "accuracy":
            # The client's accuracy sections alone, measured anew into an existing OUT.json (its
            # throughput figures are kept).
            with open(out) as f:
                result = json.load(f)
            print("  accuracy through the relay (symmetric base, random asymmetry)…", file=sys.stderr)
            result["accuracy"] = accuracy(directory, PATH, SEEDS)
            print("  accuracy through the relay (fixed 20 ms asymmetry)…", file=sys.stderr)
            result["asymmetric"] = accuracy(directory, ASYMMETRIC, SEEDS[:3])
            with open(out, "w") as f:
                json.dump(result, f, indent=2)
            return
        print("  throughput…", file=sys.stderr)
        result = {"throughput": throughput(directory), "rates": RATES}
        print("  SNTP server at line rate…", file=sys.stderr)
        result["lineRate"] = line_rate(directory)
        print("  NTS server cost…", file=sys.stderr)
        result["nts"] = nts(directory)
        print("  accuracy through the relay (symmetric base, random asymmetry)…", file=sys.stderr)
        result["accuracy"] = accuracy(directory, PATH, SEEDS)
        print("  accuracy through the relay (fixed 20 ms asymmetry)…", file=sys.stderr)
        result["asymmetric"] = accuracy(directory, ASYMMETRIC, SEEDS[:3])
        result["oneShot"] = one_shot(directory)
        with open(out, "w") as f:
            json.dump(result, f, indent=2)
    finally:
        cleanup()


def summarize(errors):
    values = [abs(e) for e in errors if e is not None]
    return (statistics.median(values), max(values), len(values)) if values else (float("nan"), float("nan"), 0)


def nts_section(n):
    """Markdown for section 2b."""
    lines = ["## 2b. NTS server cost", "",
             "`ntp-load --nts-ke` makes one key exchange, then offers NTS requests sealed with its key (one cookie, "
             "placeholders none: each request costs the server the cookie's decryption, the authenticator's check and "
             "a sealed reply with a new cookie) at each rate for 2 s; then plain SNTP at the same rates to the same "
             "server. Each server alone on core 1, the generator on core 0: `timesync serve --ntp … --nts-ke …` (one "
             "socket) and chronyd 4.3 (`ntsserverkey`, `ntsprocesses 0`).", "",
             "| offered /s | timesync NTS /s | timesync SNTP /s | chronyd NTS /s | chronyd SNTP /s |",
             "| ---: | ---: | ---: | ---: | ---: |"]
    o, c = n["timesync"], n["chronyd"]
    for i, rate in enumerate(n["rates"]):
        lines.append(f"| {rate} | {o['nts'][i]['answeredRate']:.0f} | {o['plain'][i]['answeredRate']:.0f} | "
                     f"{c['nts'][i]['answeredRate']:.0f} | {c['plain'][i]['answeredRate']:.0f} |")
    best = lambda steps: max(s["answeredRate"] for s in steps)
    lines += ["", f"Highest answered NTS rate on one core: timesync **{best(o['nts']):.0f}/s**, chronyd **{best(c['nts']):.0f}/s** "
              f"(**{best(o['nts']) / best(c['nts']):.2f}×**); NTS against plain SNTP: timesync {best(o['nts']) / best(o['plain']):.2f}×, "
              f"chronyd {best(c['nts']) / best(c['plain']):.2f}× of its own SNTP rate.", ""]
    per = lambda cost: cost["microsecondsPerReply"] or float("nan")
    lines += [f"CPU time per reply at {n['costRate']}/s offered: NTS timesync **{per(o['costNTS']):.2f} µs**, chronyd "
              f"**{per(c['costNTS']):.2f} µs** ({per(o['costNTS']) / per(c['costNTS']):.2f}×); plain SNTP in the same run "
              f"timesync {per(o['costPlain']):.2f} µs, chronyd {per(c['costPlain']):.2f} µs. NTS adds "
              f"{per(o['costNTS']) - per(o['costPlain']):.2f} µs a reply to ours, {per(c['costNTS']) - per(c['costPlain']):.2f} µs to chronyd's.", ""]
    med = lambda xs: statistics.median(xs) if xs else float("nan")
    lines += [f"Key exchange, as `timesync query nts://` reports it (TCP connect, TLS 1.3 handshake, records; "
              f"{len(o['keyExchangeMilliseconds'])} and {len(c['keyExchangeMilliseconds'])} runs, loopback): median "
              f"**{med(o['keyExchangeMilliseconds']):.1f} ms** against our server, **{med(c['keyExchangeMilliseconds']):.1f} ms** "
              f"against chronyd's.", "",
              "Reproduce: `scripts/bench_ntp.py docs/bench-data/ntp.json --only nts` after the release builds.", ""]
    return lines


def ntp_sections(path):
    """Markdown for sections 2 and 4a from the JSON this script writes."""
    with open(path) as f:
        data = json.load(f)
    t = data["throughput"]

    def table(ours, chrony):
        rows = ["| offered /s | timesync answered /s | p50 / p99 µs | chronyd answered /s | p50 / p99 µs |",
                "| ---: | ---: | ---: | ---: | ---: |"]
        for a, b in zip(ours, chrony):
            rows.append(f"| {a['offeredRate']} | {a['answeredRate']:.0f} | {a['p50LatencyMicroseconds'] or float('nan'):.0f} / "
                        f"{a['p99LatencyMicroseconds'] or float('nan'):.0f} | {b['answeredRate']:.0f} | "
                        f"{b['p50LatencyMicroseconds'] or float('nan'):.0f} / {b['p99LatencyMicroseconds'] or float('nan'):.0f} |")
        best_ours = max(ours, key=lambda r: r["answeredRate"])
        best_chrony = max(chrony, key=lambda r: r["answeredRate"])
        ratio = best_ours["answeredRate"] / best_chrony["answeredRate"] if best_chrony["answeredRate"] else float("nan")
        return rows, best_ours, best_chrony, ratio

    lines = ["## 2. SNTP server throughput", "",
             "`ntp-load` (Benchmarks/Tools) offers each rate for 2 s, in `sendmmsg` batches from 16 source ports, and "
             "reads the replies with `recvmmsg` on a second thread; `timesync serve --ntp … --rate-limit off` against "
             "`chronyd` (no `ratelimit` directive), loopback, same generator and settings.", "",
             "### Each server on one core", "",
             "The server under test on core 1, the generator on core 0 (ours then serves one socket: it counts the "
             "cores it may use).", ""]
    rows, best_ours, best_chrony, ratio = table(t["pinned"]["timesync"], t["pinned"]["chronyd"])
    lines += rows
    lines += ["", f"Highest answered rate: timesync **{best_ours['answeredRate']:.0f}/s** (p99 {best_ours['p99LatencyMicroseconds']:.0f} µs) "
              f"vs chronyd **{best_chrony['answeredRate']:.0f}/s** (p99 {best_chrony['p99LatencyMicroseconds']:.0f} µs): "
              f"**{ratio:.2f}×** (goal ≥ 1.5× at no worse p99).", ""]
    cost = t["cost"]
    o, c = cost["timesync"], cost["chronyd"]
    if o["microsecondsPerReply"] and c["microsecondsPerReply"]:
        lines += [f"CPU time per reply at {o['rate']}/s offered (below saturation; the server's user + system time from "
                  f"`/proc/PID/stat` over a 4 s run): timesync **{o['microsecondsPerReply']:.2f} µs**, chronyd "
                  f"**{c['microsecondsPerReply']:.2f} µs** ({o['microsecondsPerReply'] / c['microsecondsPerReply']:.2f}×). "
                  "Most of either is the kernel's loopback UDP path (receive, send, waking the receiver), which no "
                  "server code avoids.", ""]
    rows, best_ours, best_chrony, ratio = table(t["unpinned"]["timesync"], t["unpinned"]["chronyd"])
    lines += ["### Nothing pinned, ours with a socket per core", "",
              f"The same, with no CPU pinning: ours serves {os.cpu_count()} sockets sharing the port (SO_REUSEPORT, "
              "`--threads`), chronyd answers on one thread, and the generator shares the cores with the server.", ""]
    lines += rows
    lines += ["", f"Highest answered rate: timesync **{best_ours['answeredRate']:.0f}/s** (p99 {best_ours['p99LatencyMicroseconds']:.0f} µs) "
              f"vs chronyd **{best_chrony['answeredRate']:.0f}/s** (p99 {best_chrony['p99LatencyMicroseconds']:.0f} µs): "
              f"**{ratio:.2f}×**.", "",
              "Reproduce: `scripts/bench` (or `scripts/bench_ntp.py out.json` after the release builds).", ""]
    if "lineRate" in data:
        lines += line_rate_section(data["lineRate"])
    if "nts" in data:
        lines += nts_section(data["nts"])
    for key, title in [("accuracy", "random per-packet asymmetry"), ("asymmetric", "a fixed asymmetry no client can see")]:
        acc = data[key]
        p = acc["path"]
        o = summarize([r["timesync"] for r in acc["rows"]])
        c = summarize([r["chronyd"] for r in acc["rows"]])
        lines += [f"## 4a. NTP accuracy through the relay: {title}" if key == "accuracy" else f"### 4a'. {title}", "",
                  f"chronyd under libfaketime `+{acc['shift']}s`; relay: {p['up_ms']} ms up, {p['down_ms']} ms down, exponential "
                  f"jitter mean {p['jitter_ms']} ms, spikes {p['spike_probability']*100:.0f}% of mean {p['spike_ms']} ms, "
                  f"{p['loss']*100:.0f}% loss each way; seeds {', '.join(str(r['seed']) for r in acc['rows'])}; four packets per "
                  "client per seed.", "",
                  "| seed | timesync error | chronyd -Q error |", "| ---: | ---: | ---: |"]
        for r in acc["rows"]:
            fmt = lambda e: "no answer" if e is None else f"{e * 1e3:+.2f} ms"
            lines.append(f"| {r['seed']} | {fmt(r['timesync'])} | {fmt(r['chronyd'])} |")
        if key == "accuracy":
            lines += ["", f"Median |error|: timesync **{o[0]*1e3:.2f} ms**, chronyd **{c[0]*1e3:.2f} ms** "
                      f"(**{o[0]/c[0]:.2f}×**, goal ≤ 0.5×); max: timesync {o[1]*1e3:.2f} ms, chronyd {c[1]*1e3:.2f} ms "
                      f"(goal: no worse).", ""]
        else:
            bias = (p["up_ms"] - p["down_ms"]) / 2
            lines += ["", f"Median |error|: timesync {o[0]*1e3:.2f} ms, chronyd {c[0]*1e3:.2f} ms; max: timesync "
                      f"{o[1]*1e3:.2f} ms, chronyd {c[1]*1e3:.2f} ms. A fixed asymmetry shifts every exchange's "
                      f"midpoint by (up − down) / 2 = {bias:.1f} ms, and nothing in the timestamps shows it: both "
                      "clients land near that bias, as any NTP client must. No goal applies here; what matters is "
                      "that TimeSync's bounds still contain the truth (they are hard bounds: the true offset lies "
                      "within ± half the round trip of every exchange).", ""]
    one = data.get("oneShot")
    if one:
        p = one["path"]
        o = summarize([r["timesync"] for r in one["rows"]])
        c = summarize([r["chronyd"] for r in one["rows"]])
        lines += ["### 4a''. One-shot query, eight packets, a rougher path", "",
                  f"`timesync query --samples {one['packets']}` and `chronyd -Q … maxsamples {one['packets']}` through the "
                  f"relay: {p['up_ms']} ms each way, exponential jitter mean {p['jitter_ms']} ms, spikes "
                  f"{p['spike_probability']*100:.0f}% of mean {p['spike_ms']} ms; seeds "
                  f"{one['rows'][0]['seed']}–{one['rows'][-1]['seed']} ({len(one['rows'])}).", "",
                  f"Median |error|: timesync **{o[0]*1e3:.2f} ms**, chronyd -Q **{c[0]*1e3:.2f} ms**; max: timesync "
                  f"**{o[1]*1e3:.2f} ms**, chronyd -Q {c[1]*1e3:.2f} ms ({o[2]} and {c[2]} answers). The query's answer is "
                  "the middle of the tightest intersection of its agreeing exchanges: half the difference between the "
                  "lowest jitter each way, whose scale is the mean jitter over the packet count (1.25 ms here), so "
                  "a median near 0.45 ms is what eight packets can reach on this path.", "",
                  "Alone: `scripts/bench_ntp.py out.json --only one-shot` after the release builds.", ""]
    return lines


if __name__ == "__main__":
    main()
