"""Measures the SNTP and NTS servers side by side with chronyd on loopback (docs/BENCHMARKS.md,
sections 2, 2b and 2c). ntp_measure.py runs these and writes the JSON; ntp_report.py prints it.

2.  Throughput: ntp-load offers rising request rates to `timesync serve --ntp --rate-limit off` and to
    chronyd (no rate limit either), same generator and settings, server and generator pinned to
    different cores; answered requests/s and reply latency p50/p99 per rate; the server's CPU time per
    reply at COST_RATE; then nothing pinned, ours with one socket per core.
2b. NTS server cost: the same generator with --nts-ke (one key exchange, then NTS requests sealed with
    its key) against `timesync serve --ntp --nts-ke` and chronyd's NTS server, each on one core, beside
    plain SNTP to the same servers in the same run: answered requests/s per rate, CPU time per reply at
    NTS_COST_RATE; and the client's key-exchange time (`timesync query nts://`, 20 runs) against both.
2c. Line rate: ours on its batched path and on SwiftNIO's, and chronyd; latency, receive-timestamp
    lag, CPU per reply, two sockets, a flood from one address against the rate limit.
"""
import json
import os
import subprocess
import sys
import time

from benchlib import ROOT, TIMESYNC, chronyd, chronyd_pid, free_port, pinned, start, start_chronyd, stop

NTP_LOAD = os.path.join(ROOT, "Benchmarks/.build/release/ntp-load")
RATES = [20000, 40000, 80000, 160000, 240000, 320000, 480000]
UNPINNED_RATES = [160000, 240000, 320000, 480000]
COST_RATE = 100000
NTS_RATES = [10000, 20000, 40000, 80000, 160000]
NTS_COST_RATE = 20000
KEY_EXCHANGES = 20
LINE_RATES = [50000, 100000, 200000, 300000, 400000, 500000, 600000]
LINE_COST_RATES = [50000, 100000]
FLOOD_RATES = [10000, 50000, 100000]
LAG_RATES = [50000, 100000, 200000]
# chronyd's rate limit set like ours: 1 request/s sustained, a burst of 8, one over-limit request in
# 16 answered (leak 4: 1 in 2^4).
CHRONY_RATELIMIT = "ratelimit interval 0 burst 8 leak 4\n"


def load(port, rates=None, seconds=2, cpu=0, extra=()):
    """ntp-load's JSON steps: each rate offered for `seconds` to 127.0.0.1:`port`."""
    cmd = [NTP_LOAD, "--host", "127.0.0.1", "--port", str(port), "--rates", ",".join(map(str, rates or RATES)),
           "--seconds", str(seconds), "--json"] + list(extra)
    return json.loads(subprocess.run(pinned(cmd, cpu), capture_output=True, text=True, check=True).stdout)


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
    chrony = chronyd(port, directory, cpu=1)
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
    return start_chronyd(conf, cpu=cpu)


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
