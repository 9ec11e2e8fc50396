"""The markdown of benchmark 5 (strategies in the simulator, docs/BENCHMARKS.md) from the JSON of
`timesync simulate --scenario all --json --series N`, with one SVG chart per scenario in DOCS/charts.
report.py calls simulate_section().
"""
import math
import os

from benchlib import duration, read_json


PALETTE = {"default": "#d62728", "latest": "#1f77b4", "lowest-delay": "#2ca02c", "ema": "#9467bd",
           "kronos": "#ff7f0e", "timesync-js": "#8c564b", "wall-clock-latest": "#7f7f7f"}


def svg_chart(report, path):
    width, height, left, right, top, bottom = 760, 360, 70, 150, 30, 40
    series = {s["name"]: s.get("series") or [] for s in report["strategies"]}
    points = [abs(p["error"]) for pts in series.values() for p in pts if p["error"] != 0]
    if not points:
        return False
    lo = max(min(points), 1e-7)
    hi = max(points)
    lo_exp, hi_exp = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    if hi_exp == lo_exp:
        hi_exp += 1
    tmax = max(p["time"] for pts in series.values() for p in pts)

    def x(t):
        return left + (width - left - right) * t / tmax

    def y(e):
        v = math.log10(max(abs(e), 10 ** lo_exp))
        return top + (height - top - bottom) * (hi_exp - v) / (hi_exp - lo_exp)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="18" font-size="13">{report["scenario"]} (seed {report["seed"]}): |estimate − truth| over the run</text>']
    for e in range(lo_exp, hi_exp + 1):
        yy = y(10 ** e)
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{yy:.1f}" y2="{yy:.1f}" stroke="#ddd"/>')
        label = f"1e{e} s"
        out.append(f'<text x="{left - 6}" y="{yy + 4:.1f}" text-anchor="end">{label}</text>')
    for i in range(0, 5):
        t = tmax * i / 4
        out.append(f'<text x="{x(t):.1f}" y="{height - bottom + 16}" text-anchor="middle">{t / 3600:.1f} h</text>')
    out.append(f'<line x1="{left}" x2="{width - right}" y1="{height - bottom}" y2="{height - bottom}" stroke="black"/>')
    for index, (name, pts) in enumerate(series.items()):
        if not pts:
            continue
        color = PALETTE.get(name, "black")
        d = " ".join(f"{x(p['time']):.1f},{y(p['error']):.1f}" for p in pts)
        width_line = 2.2 if name == "default" else 1.1
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="{width_line}" points="{d}"/>')
        ly = top + 14 * index + 10
        out.append(f'<line x1="{width - right + 10}" x2="{width - right + 28}" y1="{ly - 4}" y2="{ly - 4}" stroke="{color}" stroke-width="2"/>')
        out.append(f'<text x="{width - right + 32}" y="{ly}">{name}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out))
    return True


def simulate_section(path, docs):
    reports = read_json(path)
    charts = os.path.join(docs, "charts")
    os.makedirs(charts, exist_ok=True)
    lines = ["## 5. Strategies in the simulator", "",
             "Every strategy on the same seeded sample stream per scenario (`timesync simulate`), judged against "
             "ground truth. Errors are |estimate − truth| over every reading; coverage is the share of readings whose "
             "bounds hold the truth. `wall-clock-latest` is the common hand-rolled approach (anchored on the wall clock).", ""]
    for report in reports:
        lines += [f"### {report['scenario']}", "",
                  f"{report['samples']} samples, {report['readings']} readings, seed {report['seed']}.", "",
                  "| strategy | median error | p99 error | max error | coverage | p99 vs default |",
                  "| --- | ---: | ---: | ---: | ---: | ---: |"]
        ours = next(s for s in report["strategies"] if s["name"] == "default")
        for s in report["strategies"]:
            ratio = s["p99Error"] / ours["p99Error"] if ours["p99Error"] else float("nan")
            lines.append(f"| {s['name']} | {duration(s['medianError'])} | {duration(s['p99Error'])} | {duration(s['maxError'])} | "
                         f"{s['coverage']:.4f} | {ratio:.1f}× |")
        chart = f"simulate-{report['scenario']}.svg"
        if svg_chart(report, os.path.join(charts, chart)):
            lines += ["", f"![{report['scenario']}](charts/{chart})"]
        lines.append("")
    lines += ["Reproduce: `swift run -c release timesync simulate --scenario all --seed 7`.", ""]
    return lines
