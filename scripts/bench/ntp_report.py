#!/usr/bin/env python3
"""The markdown of the NTP benchmarks (docs/BENCHMARKS.md, sections 2, 2c, 2b and 4a) from the JSON
ntp_measure.py writes. report.py calls ntp_sections(); run alone it prints them:

    scripts/bench/ntp_report.py NTP.json
"""
import os
import statistics
import sys

from benchlib import read_json, summarize


def line_rate_section(r):
    """Markdown for section 2c from the result of ntp_server_measure.line_rate()."""
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
             "time the request waited in the server's queue before it was dated). Made by `scripts/bench/ntp_measure.py OUT.json "
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
    # The rates the lag without kernel timestamps was measured at (a subset of the rising rates).
    by_rate = {x["offeredRate"]: x for x in r["lagWithoutKernel"]}
    for rate in by_rate:
        row = [next(x for x in pinned[k] if x["offeredRate"] == rate) for k in ("batched",)]
        k = row[0]
        w = by_rate.get(rate)
        nn = next(x for x in pinned["swiftNIO"] if x["offeredRate"] == rate)
        cc = next(x for x in pinned["chronyd"] if x["offeredRate"] == rate)
        lines.append(f"| {rate:,} | {us(k.get('p50ReceiveLagMicroseconds'))} / {us(k.get('p99ReceiveLagMicroseconds'))} | "
                     f"{us(w.get('p50ReceiveLagMicroseconds') if w else None)} / {us(w.get('p99ReceiveLagMicroseconds') if w else None)} | "
                     f"{us(nn.get('p50ReceiveLagMicroseconds'))} / {us(nn.get('p99ReceiveLagMicroseconds'))} | "
                     f"{us(cc.get('p50ReceiveLagMicroseconds'))} / {us(cc.get('p99ReceiveLagMicroseconds'))} |")
    lines += ["", "Alone: `scripts/bench/ntp_measure.py out.json --only line-rate` after the release builds (timesync, ntp-load).", ""]
    return lines


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
              "Reproduce: `scripts/bench/ntp_measure.py docs/bench-data/ntp.json --only nts` after the release builds.", ""]
    return lines


def one_core_section(path):
    """Section 2b from the JSON ntp_one_core.py writes: NTS and SNTP on one core, ours beside chronyd
    and a do-nothing server."""
    import ntp_one_core_report
    return ["## 2b. NTP servers on one core: NTS and SNTP side by side", "",
            "Each server alone on core 1, `ntp-load` and every client on core 0, one after the other in one run: "
            "`timesync serve --ntp … --nts-ke … --threads 1` (and, as `before`, an earlier build when one is given), "
            "chronyd 4.3 with NTS (`ntsprocesses 0`: everything in its one process), and `null`, a do-nothing C server "
            "(`recvmmsg`, a 48-byte reply, `sendmmsg`) as the floor every SNTP figure is shown against. NTS requests "
            "carry one cookie and no placeholder: each costs the server the cookie's decryption, the Authenticator's "
            "check, a new cookie and the sealed reply. CPU per reply is the time the server's threads ran (`/proc/PID/task/*/schedstat`, nanoseconds) over one 8-second step, divided by the replies.", "",
            ntp_one_core_report.render(read_json(path), level="###"), "",
            "Reproduce: `TIMESYNC_BEFORE=/path/to/an/earlier/timesync scripts/bench/ntp_one_core.py docs/bench-data/one-core.json` "
            "after the release builds (`scripts/bench/run` does it).", ""]


def ntp_sections(path, one_core=None):
    """Markdown for sections 2, 2c, 2b and 4a from the JSON ntp_measure.py writes; 2b from
    ntp_one_core.py's JSON when there is one."""
    data = read_json(path)
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
              "Reproduce: `scripts/bench/run` (or `scripts/bench/ntp_measure.py out.json` after the release builds).", ""]
    if "lineRate" in data:
        lines += line_rate_section(data["lineRate"])
    if one_core:
        lines += one_core_section(one_core)
    elif "nts" in data:
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
                  "Alone: `scripts/bench/ntp_measure.py out.json --only one-shot` after the release builds.", ""]
    return lines


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: ntp_report.py NTP.json")
    print("\n".join(ntp_sections(sys.argv[1])))
