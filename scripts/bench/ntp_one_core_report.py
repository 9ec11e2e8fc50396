#!/usr/bin/env python3
"""Prints the JSON ntp_one_core.py wrote as markdown tables: (a) NTS, (b) SNTP on one core,
(c) allocations per reply, (d) key-exchange CPU per handshake, (e) the perf profile.

Usage: scripts/bench/ntp_one_core_report.py OUT.json
"""
import sys

import benchlib

ORDER = ["before", "after", "chronyd", "null"]


def get(d, *keys):
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def num(x, digits=0):
    if x is None:
        return "-"
    # round() first: a count that nets to a hair below zero prints as 0, not -0.
    return f"{round(x, digits) + 0.0:,.{digits}f}"


def ratio(x, y):
    return f"{x / y:.2f}×" if x is not None and y else "-"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def errors(servers, *path):
    notes = []
    for name, s in servers.items():
        e = get(s, "error") or get(s, *path, "error") if path else get(s, "error")
        if e:
            notes.append(f"- {name}: {e}")
    return notes


def render(data, level="##"):
    """The tables as markdown, their headings at `level`."""
    settings = data["settings"]
    servers = {n: data["servers"][n] for n in ORDER if n in data["servers"]}
    out = []
    load_avgs = ", ".join(f"{n} {s['loadAverageBefore'][0]:.2f}" for n, s in servers.items() if "loadAverageBefore" in s)
    out.append(f"One core per server (server on core {data['cores']['server']}, ntp-load and clients on core "
               f"{data['cores']['load']}), {settings['stepSeconds']}-second steps"
               f"{' — QUICK RUN, not for citing' if data.get('quick') else ''}. Load average (1 min) before each: {load_avgs}.\n")

    # (a) NTS
    chrony_cost = get(servers, "chronyd", "nts", "cost", "microsecondsPerReply")
    chrony_peak = get(servers, "chronyd", "nts", "peak")
    rows = []
    for name, s in servers.items():
        if name == "null":
            continue
        c = get(s, "nts", "cost", "microsecondsPerReply")
        p = get(s, "nts", "peak")
        rows.append([name, num(p), num(c, 2), ratio(c, chrony_cost), ratio(p, chrony_peak)])
    out.append(f"## (a) NTS server, one core\n\nOffered rates {', '.join(f'{r // 1000}k' for r in settings['ntsRates'])}/s; "
               f"CPU per reply at {settings['ntsCostRate'] // 1000}k/s.\n")
    out.append(table(["server", "peak answered/s", f"CPU µs/reply at {settings['ntsCostRate'] // 1000}k/s",
                      "CPU vs chronyd", "peak vs chronyd"], rows))
    out.append("")
    out.append(table(["server"] + [f"{r // 1000}k" for r in settings["ntsRates"]],
                     [[name] + [num(next((st["answeredRate"] for st in get(s, "nts", "steps") or [] if st["offeredRate"] == r), None))
                                for r in settings["ntsRates"]] for name, s in servers.items() if name != "null"]))
    out += [""] + errors({n: s for n, s in servers.items() if n != "null"}, "nts") + [""]

    # (b) SNTP
    rate = settings["sntpCostRate"]
    null_cost = get(servers, "null", "sntp", "cost", "microsecondsPerReply")
    chrony_cost = get(servers, "chronyd", "sntp", "cost", "microsecondsPerReply")
    rows = []
    for name, s in servers.items():
        c = get(s, "sntp", "cost", "microsecondsPerReply")
        rows.append([name, num(get(s, "sntp", "atCostRate")), num(get(s, "sntp", "peak")), num(c, 2),
                     ratio(c, null_cost), ratio(c, chrony_cost)])
    out.append(f"## (b) SNTP server, one core\n\nOffered rates {', '.join(f'{r // 1000}k' for r in settings['sntpRates'])}/s.\n")
    out.append(table(["server", f"answered/s at {rate // 1000}k offered", "peak answered/s", f"CPU µs/reply at {rate // 1000}k/s",
                      "CPU vs null", "CPU vs chronyd"], rows))
    out.append("")
    out.append(table(["server"] + [f"{r // 1000}k" for r in settings["sntpRates"]],
                     [[name] + [num(next((st["answeredRate"] for st in get(s, "sntp", "steps") or [] if st["offeredRate"] == r), None))
                                for r in settings["sntpRates"]] for name, s in servers.items()]))
    out += [""] + errors(servers, "sntp") + [""]

    # (c) allocations
    rows = []
    for name, s in servers.items():
        a = get(s, "allocations")
        if a is None:
            continue
        rows.append([name, num(get(a, "nts", "perReply"), 2), num(get(a, "sntp", "perReply"), 2),
                     num(get(a, "keyExchange", "perHandshake")), num(get(a, "idlePerSecond"))])
    if rows:
        out.append(f"## (c) Allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign calls)\n\n"
                   f"NTS at {settings['ntsCostRate'] // 1000}k/s (the generator's one key exchange taken out), "
                   f"SNTP at {settings['sntpAllocationRate'] // 1000}k/s, each after a warm-up step.\n")
        out.append(table(["server", "per NTS reply", "per SNTP reply", "per key exchange", "per idle second"], rows))
        out += [""] + errors({n: s for n, s in servers.items() if "allocations" in s}, "allocations") + [""]

    # (d) key exchange
    rows = []
    chrony_ke = get(servers, "chronyd", "keyExchange", "cpuMillisecondsPerHandshake")
    for name, s in servers.items():
        k = get(s, "keyExchange")
        if k is None:
            continue
        times = k.get("clientKeyExchangeMilliseconds") or []
        median = times[len(times) // 2] if times else None
        c = k.get("cpuMillisecondsPerHandshake")
        rows.append([name, f"{k.get('succeeded', '-')}/{k.get('handshakes', '-')}", num(c, 3),
                     num(k.get("tickCPUMillisecondsPerHandshake"), 2), ratio(c, chrony_ke), num(median, 2)])
    if rows:
        out.append("## (d) NTS key exchange\n\nServer CPU per handshake over sequential `timesync query nts://` runs "
                   "(each also one NTS request), from the threads' schedstat (ns) and, coarser, from /proc/PID/stat "
                   "(10 ms ticks); the client-reported key-exchange time, median.\n")
        out.append(table(["server", "succeeded", "server CPU ms/handshake", "(ticks)", "vs chronyd", "client KE ms (median)"], rows))
        out += [""] + errors({n: s for n, s in servers.items() if "keyExchange" in s}, "keyExchange") + [""]

    # (e) perf
    perf = get(servers, "after", "perf")
    if perf:
        out.append("## (e) perf profile of the after server (cpu-clock, 2000 Hz; share by the sample's own frame)\n")
        for kind in ("nts", "sntp"):
            p = perf.get(kind)
            if not p:
                continue
            if "error" in p:
                out.append(f"- {kind}: {p['error']}\n")
                continue
            out.append(f"**{kind.upper()} at {p['rate'] // 1000}k/s**, {p['seconds']} s, {p['samples']} samples: "
                       f"user {p['userPercent']:.1f}%, kernel {p['kernelPercent']:.1f}%\n")
            out.append(table(["self %", "where", "symbol"],
                             [[f"{r['percent']:.2f}", ("kernel" if r["kernel"] else r["dso"]), r["symbol"].replace("|", "\\|")[:120]]
                              for r in p["top"]]))
            out.append("")
    text = "\n".join(out)
    return text.replace("\n## (", f"\n{level} (") if level != "##" else text


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(render(benchlib.read_json(sys.argv[1])))


if __name__ == "__main__":
    main()
