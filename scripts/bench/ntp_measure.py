#!/usr/bin/env python3
"""NTP benchmarks, side by side with chronyd on loopback (docs/BENCHMARKS.md, sections 2, 2b, 2c and
4a), written as one JSON file; ntp_report.py turns it into those sections.

  2, 2b, 2c  the SNTP and NTS servers: throughput, cost per reply, line rate (ntp_server_measure.py)
  4a         the client's accuracy through a seeded, impaired relay (ntp_accuracy_measure.py)

Usage: scripts/bench/ntp_measure.py OUT.json              every section (expects release builds of
                                                          timesync, ntp-load and udp-relay)
       scripts/bench/ntp_measure.py OUT.json --only X     one part alone:
         one-shot   the one-shot accuracy section (about 2 min), into a new OUT.json
         line-rate  section 2c, into OUT.json (created when missing)
         nts        section 2b, into an existing OUT.json
         accuracy   the accuracy through the relay, into an existing OUT.json (its throughput kept)
Environment: TIMESYNC_BUILD=debug measures a debug build; TIMESYNC_BEFORE=PATH also measures an
earlier timesync build in the one-shot section, seed for seed.
"""
import argparse
import os
import signal
import sys
import tempfile

import benchlib
from ntp_accuracy_measure import ASYMMETRIC, PATH, SEEDS, accuracy, one_shot
from ntp_server_measure import RATES, line_rate, nts, throughput


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", metavar="OUT.json")
    parser.add_argument("--only", choices=["one-shot", "line-rate", "nts", "accuracy"])
    args = parser.parse_args()
    out, only = args.out, args.only
    signal.signal(signal.SIGTERM, benchlib.stop_all)
    directory = tempfile.mkdtemp(prefix="timesync-bench-")
    os.chmod(directory, 0o777)
    try:
        if only == "one-shot":
            benchlib.write_json(out, {"oneShot": one_shot(directory)})
            return
        if only == "line-rate":
            result = benchlib.read_json(out) if os.path.exists(out) else {}
            print("  SNTP server at line rate…", file=sys.stderr)
            result["lineRate"] = line_rate(directory)
            benchlib.write_json(out, result)
            return
        if only == "nts":
            result = benchlib.read_json(out)
            print("  NTS server cost…", file=sys.stderr)
            result["nts"] = nts(directory)
            benchlib.write_json(out, result)
            return
        if only == "accuracy":
            result = benchlib.read_json(out)
            print("  accuracy through the relay (symmetric base, random asymmetry)…", file=sys.stderr)
            result["accuracy"] = accuracy(directory, PATH, SEEDS)
            print("  accuracy through the relay (fixed 20 ms asymmetry)…", file=sys.stderr)
            result["asymmetric"] = accuracy(directory, ASYMMETRIC, SEEDS[:3])
            benchlib.write_json(out, result)
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
        benchlib.write_json(out, result)
    finally:
        benchlib.stop_all()


if __name__ == "__main__":
    main()
