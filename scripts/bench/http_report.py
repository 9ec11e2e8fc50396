#!/usr/bin/env python3
"""The markdown of benchmarks 3 (HTTP middleware overhead) and 4b (Date-only accuracy against htpdate)
from the JSON http_measure writes. report.py calls http_sections(); run alone it prints them:

    scripts/bench/http_report.py HTTP.json
"""
import statistics
import sys

from benchlib import duration, read_json

REPRODUCE = "scripts/bench/http_measure /tmp/http.json && python3 scripts/bench/http_report.py /tmp/http.json"
GOAL_LOSS = 0.03


def _ratio(value, peer, digits=2):
    if value is None or not peer:
        return "-"
    return f"{value / peer:.{digits}f}×"


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


VARIANTS = [
    ("plain", "without stamping"),
    ("responder", "`TimestampResponder` (around the router; what `timesync serve --http` uses)"),
    ("middleware", "`TimestampMiddleware` (in the router)"),
    ("pass-through", "a middleware that does nothing (Hummingbird's middleware chain alone)"),
]


def middleware_section(report):
    m = report["middleware"]
    runs = m["runs"]
    by_round = {}
    for r in runs:
        by_round.setdefault(r["round"], {})[r["variant"]] = r
    summary = {}
    for variant, _ in VARIANTS:
        mine = [r for r in runs if r["variant"] == variant]
        if not mine:
            continue
        # Paired: each round's figure over the same round's unstamped one, then the median of those.
        paired = [rounds[variant]["requestsPerSecond"] / rounds["plain"]["requestsPerSecond"]
                  for rounds in by_round.values() if variant in rounds and "plain" in rounds]
        summary[variant] = {
            "rps": _median([r["requestsPerSecond"] for r in mine]),
            "ratio": _median(paired),
            "ratios": paired,
            "p50": _median([r["latencyP50"] for r in mine]),
            "p99": _median([r["latencyP99"] for r in mine]),
            "bad": sum(r.get("non2xx") or 0 for r in mine) + sum(1 for r in mine if r.get("socketErrors")),
        }
    plain = summary["plain"]
    lines = [
        "## 3. HTTP middleware overhead",
        "",
        f"`wrk {m['wrk']} --latency` against the same Hummingbird route, {m['route']}, served by "
        "`Benchmarks/Tools/http-bench-server` (release) without stamping, with `TimestampResponder`, with "
        "`TimestampMiddleware`, and with a middleware that does nothing. "
        f"{m['rounds']} rounds; each round runs every variant back to back, starting from a different one each "
        "round, after a 2 s warm-up of each. "
        f"Server pinned with `{m['serverPinning']}`, wrk with `{m['wrkPinning']}` ({m.get('wrkVersion', 'wrk')}). "
        "This machine's speed drifts by several percent from one few-second run to the next, so a variant is "
        "compared with the unstamped server *in the same round*: \"vs without\" is the median over the rounds of "
        "(variant's requests/s ÷ the same round's unstamped requests/s). Latency percentiles are wrk's, medians over the rounds.",
        "",
        "| variant | requests/s (median) | vs without (median of per-round ratios) | per-round ratios (min–max) | latency p50 | latency p99 |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for variant, name in VARIANTS:
        if variant not in summary:
            continue
        s = summary[variant]
        spread = f"{min(s['ratios']):.3f}–{max(s['ratios']):.3f}" if s["ratios"] else "-"
        lines.append(
            f"| {name} | {s['rps']:,.0f} | {s['ratio']:.3f}× | {spread} | {duration(s['p50'])} | {duration(s['p99'])} |")
    lines.append("")
    for variant, label in (("responder", "`TimestampResponder`"), ("middleware", "`TimestampMiddleware`")):
        if variant not in summary:
            continue
        loss = 1 - summary[variant]["ratio"]
        verdict = "met" if loss <= GOAL_LOSS else f"not met, by {100 * (loss - GOAL_LOSS):.1f} points"
        lines.append(
            f"- {label}: **{100 * loss:.1f}% fewer** requests/s than without (goal ≤ {100 * GOAL_LOSS:.0f}%): {verdict}.")
    if "pass-through" in summary:
        lines.append(
            f"- A middleware that does nothing: {100 * (1 - summary['pass-through']['ratio']):.1f}% fewer — Hummingbird's "
            "middleware chain alone, for scale.")
    bad = sum(s["bad"] for s in summary.values())
    if bad:
        lines.append(f"- {bad} runs had socket errors or non-2xx answers.")
    lines += [
        "",
        f"Reproduce: `{REPRODUCE}` (knobs: `ROUNDS`, `WRK_ARGS`).",
        "",
    ]
    return lines


TOOLS = [
    ("htpdate", "`htpdate -q` (defaults)"),
    ("htpdate-bisection", "htpdate's bisection value (its `-dd` `offset:` line)"),
    ("timesync", "`timesync query --date-only` (defaults)"),
    ("timesync-4", "`timesync query --date-only --samples 4` (htpdate's request budget: 4 requests)"),
]


def _inside(runs):
    """How many runs' bounds held the true shift, as "k/n"; "-" for a tool without bounds."""
    bounded = [r for r in runs if r.get("bound") is not None and r["error"] is not None]
    if not bounded:
        return "-"
    return f"{sum(1 for r in bounded if r['error'] <= r['bound'])}/{len(bounded)}"


def accuracy_section(report):
    d = report["dateOnly"]
    runs = d["runs"]
    # The budget run's label names the command it was measured with (the data may predate a change).
    budget_command = next((r.get("command") for r in runs if r["tool"] == "timesync-4" and r.get("command")), None)
    tools = [(tool, f"`{budget_command}` (htpdate's request budget: 4 requests)" if tool == "timesync-4" and budget_command else label)
             for tool, label in TOOLS]
    shifts = sorted({r["shift"] for r in runs}, key=lambda s: (abs(s), s))

    def run(shift, tool):
        return next((r for r in runs if r["shift"] == shift and r["tool"] == tool), None)

    def cell(r):
        if r is None or r["error"] is None:
            return "failed"
        bound = f", ±{duration(r['bound'])}" if r.get("bound") is not None else ""
        return f"{duration(r['error'])} ({r['requests']} req{bound})"

    lines = [
        "## 4b. Date-only accuracy against htpdate",
        "",
        f"{d['server']}, one server per shift; on it, one after the other: {tools[0][1]}, "
        f"{tools[2][1]} and {tools[3][1]}. Error is |measured offset − shift|; requests are the HTTP "
        f"requests each used (htpdate's counted from its `-dd` output; ours from the JSON `requests`). "
        f"{d.get('htpdateVersion', '')}.",
        "",
        "| shift | htpdate error (requests) | TimeSync error (requests, its bound) | vs htpdate "
        "| TimeSync at 4 requests (requests, its bound) | vs htpdate |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for shift in shifts:
        h, ours, budget = run(shift, "htpdate"), run(shift, "timesync"), run(shift, "timesync-4")
        href = h["error"] if h and h["error"] else None
        lines.append(
            f"| {shift:+.3f} s | {cell(h)} | {cell(ours)} | "
            f"{_ratio(ours and ours['error'], href, 3)} | {cell(budget)} | {_ratio(budget and budget['error'], href, 3)} |")
    lines += [
        "",
        "| tool | median error | vs htpdate | max error | vs htpdate | requests (median) | shift inside its bound | failed runs |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    peer = None
    for tool, label in tools:
        mine = [r for r in runs if r["tool"] == tool]
        errors = [r["error"] for r in mine if r["error"] is not None]
        med = statistics.median(errors) if errors else None
        top = max(errors) if errors else None
        if tool == "htpdate":
            peer = (med, top)
        lines.append(
            f"| {label} | {duration(med)} | {_ratio(med, peer[0], 3)} | {duration(top)} | {_ratio(top, peer[1], 3)} | "
            f"{_median([r['requests'] for r in mine]) or '-'} | {_inside(mine)} | {len(mine) - len(errors)} |")
    lines += [
        "",
        "htpdate's default precision (4 bisection steps) puts its bisection on a 1/16 s grid, so its error is "
        "up to ~62 ms by design; shifts on that grid (for example +1.5 s) are its lucky cases. The offset it "
        "prints (and would set) is not always its bisection value (compare the two rows); both are listed, "
        "the printed one is the peer. TimeSync's bound is the ± half-width it reports "
        "(JSON `error`).",
        "",
        f"Reproduce: `{REPRODUCE}` (knob: `SHIFTS`, seconds, e.g. `SHIFTS=\"0.3 -2.345\"`).",
        "",
    ]
    return lines


def http_sections(json_path):
    """Markdown lines for "## 3. HTTP middleware overhead" and "## 4b. Date-only accuracy against htpdate".

    - Parameters: json_path: the file written by `scripts/bench/http_measure`.
    - Returns: the lines, without trailing newlines.
    """
    report = read_json(json_path)
    return middleware_section(report) + accuracy_section(report)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: http_report.py HTTP.json")
    print("\n".join(http_sections(sys.argv[1])))
