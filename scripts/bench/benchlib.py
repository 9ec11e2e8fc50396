"""What the benchmark scripts (and scripts/soak/watch) share: the repository's paths, free loopback
ports, CPU pinning, starting the processes a script needs and stopping exactly those (by PID, as
process groups), chronyd on loopback, JSON files, and the formats the reports print.

A script in this folder imports it with `import benchlib` (Python puts a script's own folder on its
path); a script elsewhere puts scripts/bench on sys.path first. It imports nothing of this folder.
"""
import json
import math
import os
import signal
import socket
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# TIMESYNC_BUILD=debug measures a debug build (for a quick look; the report uses release builds).
BUILD = os.environ.get("TIMESYNC_BUILD", "release")
TIMESYNC = os.path.join(ROOT, f".build/{BUILD}/timesync")
FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"

# -- ports and cores --------------------------------------------------------------------------------


def free_port(kind=socket.SOCK_DGRAM):
    """A port on 127.0.0.1 that was free when asked: UDP, or TCP with kind=socket.SOCK_STREAM."""
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pinned(cmd, cpu):
    """`cmd` under `taskset -c CPU` when a core is named and the machine has more than one; else `cmd`."""
    if cpu is not None and os.cpu_count() and os.cpu_count() > 1:
        return ["taskset", "-c", str(cpu)] + list(cmd)
    return list(cmd)


# -- processes --------------------------------------------------------------------------------------

started = []


def start(cmd, env=None, cpu=None, **popen):
    """Starts `cmd` (pinned to `cpu` when given) in a session of its own, so that stop() reaches what
    it forks too, and remembers it for stop_all(). Its output goes to a pipe unless `popen` (any
    subprocess.Popen argument) says otherwise."""
    options = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT, **popen}
    p = subprocess.Popen(pinned(cmd, cpu), env=env, start_new_session=True, **options)
    started.append(p)
    return p


def stop(p, timeout=3):
    """Stops a process start() started, and its group: SIGTERM, then SIGKILL after `timeout` seconds."""
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGTERM)
            p.wait(timeout=timeout)
        except Exception:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def stop_all(*_, timeout=3):
    """Stops every process start() started and is still running. Also a signal handler."""
    for p in started:
        try:
            stop(p, timeout)
        except Exception:
            pass


# -- chronyd ----------------------------------------------------------------------------------------


def start_chronyd(conf, env=None, cpu=None, settle=1.0, **popen):
    """chronyd in the foreground with the configuration file `conf`, leaving the system clock alone
    (-x); `settle` seconds to open its sockets."""
    # As root, stay root (the pidfile is in a private temporary folder); otherwise skip the root check.
    privileges = ["-u", "root"] if os.geteuid() == 0 else ["-U"]
    p = start(["chronyd", "-x", "-d"] + privileges + ["-f", conf], env=env, cpu=cpu, **popen)
    time.sleep(settle)
    return p


def chronyd(port, directory, shift=None, cpu=None, extra="", settle=1.0, **popen):
    """A chronyd serving NTP on 127.0.0.1:`port` at stratum 3 from this machine's clock (shifted by
    `shift` seconds through libfaketime when given), with no command port; its configuration and
    pidfile in `directory`; `extra` appended to the configuration."""
    conf = os.path.join(directory, f"chrony-{port}.conf")
    with open(conf, "w") as f:
        f.write(f"port {port}\nbindaddress 127.0.0.1\nallow 127.0.0.1\nlocal stratum 3\ncmdport 0\nbindcmdaddress /\n"
                f"pidfile {directory}/chronyd-{port}.pid\n{extra}")
    env = dict(os.environ)
    if shift is not None:
        env.update({"LD_PRELOAD": FAKETIME_LIB, "FAKETIME": f"{shift:+}s", "FAKETIME_DONT_FAKE_MONOTONIC": "1"})
    return start_chronyd(conf, env=env, cpu=cpu, settle=settle, **popen)


def chronyd_pid(directory, port):
    """The PID the chronyd serving `port` wrote to its pidfile in `directory`."""
    with open(os.path.join(directory, f"chronyd-{port}.pid")) as f:
        return int(f.read().strip())


# -- results ----------------------------------------------------------------------------------------


def read_json(path):
    with open(path) as f:
        return json.load(f)


def write_json(path, data, indent=2):
    with open(path, "w") as f:
        json.dump(data, f, indent=indent)


def summarize(errors):
    """(median |error|, largest |error|, how many answered) over errors, None for no answer."""
    values = [abs(e) for e in errors if e is not None]
    return (statistics.median(values), max(values), len(values)) if values else (float("nan"), float("nan"), 0)


def duration(seconds):
    """Seconds in a readable unit (µs, ms or s); "-" for none; a string as it is."""
    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return "-"
    if isinstance(seconds, str):
        return seconds
    a = abs(seconds)
    if a < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if a < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.3f} s"
