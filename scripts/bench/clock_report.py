"""The markdown of benchmark 1 (the cost of reading the clock, docs/BENCHMARKS.md) from the output of
`swift package benchmark --format markdown` in Benchmarks/, which scripts/bench/run keeps as
docs/bench-data/clock.md. report.py calls clock_section().
"""


def parse_benchmark_markdown(text):
    """{benchmark: {metric: {percentile: value}}} from `swift package benchmark --format markdown`."""
    result, current, header = {}, None, None
    for line in text.splitlines():
        if line.startswith("### "):
            current = line[4:].strip()
            result[current] = {}
        elif current and line.startswith("| Metric"):
            header = [c.strip() for c in line.strip("|").split("|")]
        elif current and header and line.startswith("|") and not line.startswith("|:"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            metric = cells[0]
            values = {}
            for name, cell in zip(header[1:], cells[1:]):
                try:
                    values[name] = float(cell.replace(",", ""))
                except ValueError:
                    pass
            result[current][metric] = values
    return result


def metric(results, benchmark, prefix, percentile="p50"):
    for name, values in results.get(benchmark, {}).items():
        if name.startswith(prefix):
            return values.get(percentile)
    return None


def clock_section(path):
    with open(path) as f:
        results = parse_benchmark_markdown(f.read())
    raw = metric(results, "raw clock_gettime(CLOCK_BOOTTIME)", "Time (wall clock)")
    rows = []
    for name in ["raw clock_gettime(CLOCK_BOOTTIME)", "ContinuousClock.now", "Date()", "ServerClock.now", "ServerClock.reading()"]:
        t = metric(results, name, "Time (wall clock)")
        m = metric(results, name, "Malloc (total)")
        ratio = f"{t / raw:.2f}x" if t and raw else "-"
        rows.append(f"| `{name}` | {t if t is not None else '-'} | {ratio} | {int(m) if m is not None else '-'} |")
    one = metric(results, "ServerClock.now, 1 thread x 1M reads", "Time (wall clock)")
    two = metric(results, "ServerClock.now, 2 threads x 1M reads", "Time (wall clock)")
    raw_one = metric(results, "raw clock_gettime, 1 thread x 1M reads", "Time (wall clock)")
    raw_two = metric(results, "raw clock_gettime, 2 threads x 1M reads", "Time (wall clock)")
    now = metric(results, "ServerClock.now", "Time (wall clock)")
    mutex_one = metric(results, "now under a mutex, 1 thread x 1M reads", "Time (wall clock)")
    mutex_two = metric(results, "now under a mutex, 2 threads x 1M reads", "Time (wall clock)")
    lines = [
        "## 1. Cost of reading the clock",
        "",
        "`Benchmarks/` (ordo-one/benchmark, release build), p50 of each benchmark, in one run.",
        "",
        "| read | ns per call (p50) | vs raw monotonic read | allocations |",
        "| --- | ---: | ---: | ---: |",
        *rows,
        "",
    ]
    if one and two:
        scaling = 2 * one / two
        raw_scaling = 2 * raw_one / raw_two if raw_one and raw_two else float("nan")
        lines += [
            f"Two threads reading at once: 2 × 1M reads took {two:.0f} ms against {one:.0f} ms for 1 × 1M on one "
            f"thread: **{scaling:.2f}×** the throughput of one thread (goal ≥ 1.8×); the raw clock read alone "
            f"scales {raw_scaling:.2f}× on the same machine in the same run.",
            "",
        ]
    if one and two and mutex_one and mutex_two:
        lines += [
            f"Why `now` reads without a lock: the same model and arithmetic read under a mutex (the core's lock "
            f"type on Linux) took {mutex_one:.0f} ms for 1 × 1M reads and {mutex_two:.0f} ms for 2 × 1M on two "
            f"threads ({2 * mutex_one / mutex_two:.2f}× the throughput of one thread), against {one:.0f} ms and "
            f"{two:.0f} ms for `now`: the lock-free read is **{mutex_two / two:.1f}×** faster with two readers. "
            f"A stress test (`PublishedReadTests`) checks that concurrent readers never see a torn model and that "
            f"`now` equals `reading().serverTime` exactly.",
            "",
        ]
    goal_now = (now / raw) if now and raw else float("nan")
    lines += [
        f"Goals: `now` ≤ 1.2× the raw read — measured **{goal_now:.2f}×**; 0 allocations — measured "
        f"{int(metric(results, 'ServerClock.now', 'Malloc (total)') or 0)}.",
        "",
        "Reproduce: `cd Benchmarks && swift package --disable-sandbox benchmark`.",
        "",
    ]
    return lines
