#!/usr/bin/env python3
"""Turns the raw output of http_measure's runs into its JSON file (benchmarks 3 and 4b):

    http_results.py WORK OUT.json WRK_ARGS ROUNDS SERVER_PIN WRK_PIN

WORK holds wrk.list (one "VARIANT ROUND FILE" line per wrk run, FILE its `wrk --latency` output) and
date.list (one "SHIFT HTPDATE_OUTPUT OURS_DEFAULT.json OURS_BUDGET.json" line per shift); the other
arguments are recorded as the run's settings. http_report.py turns the JSON into markdown.
"""
import datetime
import json
import os
import re
import subprocess
import sys

from benchlib import write_json


def seconds(text):
    """wrk's '497.00us' / '1.06ms' / '1.2s' in seconds."""
    m = re.fullmatch(r"([0-9.]+)(us|ms|s|m)", text)
    scale = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}[m.group(2)]
    return float(m.group(1)) * scale


def parse_wrk(text):
    rps = float(re.search(r"Requests/sec:\s+([0-9.]+)", text).group(1))
    total = int(re.search(r"(\d+) requests in", text).group(1))
    lat = dict(re.findall(r"^\s+(50|75|90|99)%\s+(\S+)$", text, re.M))
    errors = re.search(r"Socket errors: (.*)", text)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    return {"requestsPerSecond": rps, "requests": total,
            "latencyP50": seconds(lat["50"]), "latencyP99": seconds(lat["99"]),
            "socketErrors": errors.group(1).strip() if errors else None,
            "non2xx": int(non2xx.group(1)) if non2xx else 0}


def wrk_runs(work):
    runs = []
    with open(os.path.join(work, "wrk.list")) as f:
        for line in f:
            variant, round_, path = line.split()
            with open(path) as g:
                runs.append({"variant": variant, "round": int(round_), **parse_wrk(g.read())})
    return runs


def parse_htpdate(text):
    """(answer, bisection, requests): the offset htpdate prints (and would set), the `offset:` its -dd
    output shows for the bisection, and the HEAD requests it made (one -dd line each)."""
    answer = re.findall(r"Offset ([-0-9.]+) seconds", text)
    bisection = re.findall(r"^offset: ([-0-9.]+)", text, re.M)
    # -dd prints one line per HEAD request: "<host> <port>, <Date header> (<rtt> ms) => <diff>".
    requests = len(re.findall(r"GMT \(\d+ ms\) =>", text))
    return (float(answer[-1]) if answer else None), (float(bisection[-1]) if bisection else None), requests


def parse_ours(path):
    try:
        with open(path) as f:
            report = json.load(f)
        return report.get("offset"), report.get("requests"), report.get("error")
    except (OSError, ValueError):
        return None, None, None


def date_runs(work):
    accuracy = []
    with open(os.path.join(work, "date.list")) as f:
        for line in f:
            shift_s, htpdate_path, default_path, budget_path = line.split()
            shift = float(shift_s)
            with open(htpdate_path) as g:
                answer, bisection, requests = parse_htpdate(g.read())
            for tool, offset in [("htpdate", answer), ("htpdate-bisection", bisection)]:
                accuracy.append({"shift": shift, "tool": tool, "command": "htpdate -q -dd",
                                 "offset": offset, "error": abs(offset - shift) if offset is not None else None,
                                 "requests": requests, "bound": None})
            for tool, command, path in [("timesync", "timesync query --date-only", default_path),
                                        ("timesync-4", "timesync query --date-only --samples 4", budget_path)]:
                offset, requests, bound = parse_ours(path)
                accuracy.append({"shift": shift, "tool": tool, "command": command, "offset": offset,
                                 "error": abs(offset - shift) if offset is not None else None,
                                 "requests": requests, "bound": bound})
    return accuracy


def version(command):
    try:
        r = subprocess.run(command, capture_output=True, text=True)
        return (r.stdout + r.stderr).strip().splitlines()[0]
    except (OSError, IndexError):
        return "unknown"


def main():
    if len(sys.argv) != 7:
        sys.exit("usage: http_results.py WORK OUT.json WRK_ARGS ROUNDS SERVER_PIN WRK_PIN")
    work, out_path, wrk_args, rounds, server_pin, wrk_pin = sys.argv[1:7]
    runs = wrk_runs(work)
    accuracy = date_runs(work)
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "loadAverage": open("/proc/loadavg").read().split()[:3],
        "middleware": {"route": "GET /api (small JSON)", "wrk": wrk_args, "rounds": int(rounds),
                       "serverPinning": server_pin, "wrkPinning": wrk_pin, "wrkVersion": version(["wrk", "-v"]),
                       "runs": runs},
        "dateOnly": {"server": "python3 http.server (Date only, HTTP/1.1) under libfaketime",
                     "htpdateVersion": version(["htpdate", "-h"]), "runs": accuracy},
    }
    write_json(out_path, result, indent=1)


if __name__ == "__main__":
    main()
