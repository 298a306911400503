"""Running one work unit on a worker: ``osprey`` over a link's files in time order,
keeping the flows of one hash bucket, its alerts written to the unit's own file.

The rule set travels with the job: :class:`RulesPlugin` is registered on the cluster
once per hunt, and every worker process (a restarted one included) writes it to its
local directory. Two ways to run a unit (``Options.mode``):

- ``socket`` (the default): one persistent ``osprey --unix-socket`` per worker process
  (:mod:`.server`), started by the worker's first unit, loads the rules once; each
  unit is a ``pcap-file`` job sent to it. A server that dies fails the unit it was
  running (the engine retries it) and is started again by the next unit.
- ``process``: each unit runs its own ``osprey -r`` process, which compiles the rules
  again; the plugin checks the rules with ``osprey -T`` once per worker process.

Each unit reports the rule-load time it paid (a server's load is paid by the unit that
started it) so the hunt can say what loading cost.

A unit's alerts go to ``<work>/units/<unit>.json`` through a temporary file and an
atomic rename: an attempt that dies leaves no final file, a retried attempt replaces
the file whole, so the merge never reads an alert twice.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .archive import Unit
from .server import Server

try:  # Only the client and the workers need Dask; the helpers below do not.
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:  # pragma: no cover - dask missing: the CLI says so
    WorkerPlugin = object  # type: ignore[misc,assignment]

_LOADED = re.compile(r"(\d+) rules loaded, (\d+) failed, (\d+) unsupported \(([\d.]+) s\)")

#: Rule sets written by :class:`RulesPlugin` in this worker process, by hunt token.
_JOBS: Dict[str, str] = {}

#: The persistent osprey of this worker process, by hunt token (``socket`` mode).
_SERVERS: Dict[str, Server] = {}
_SERVERS_LOCK = threading.Lock()

#: How a unit runs: a job sent to the worker's persistent osprey, or a process of its own.
MODES = ("socket", "process")


@dataclass
class Options:
    """What every unit of a hunt runs with (small: shipped with each task)."""

    token: str
    osprey: str
    work_dir: str
    config: Optional[str] = None
    osprey_args: List[str] = field(default_factory=list)
    inject_failure: Optional[str] = None
    mode: str = "socket"


def rules_loaded(output: str) -> Optional[dict]:
    """The rule counts and load seconds of an ``osprey`` log, if it says them."""
    m = _LOADED.search(output)
    if not m:
        return None
    return {
        "loaded": int(m.group(1)),
        "failed": int(m.group(2)),
        "unsupported": int(m.group(3)),
        "seconds": float(m.group(4)),
    }


class RulesPlugin(WorkerPlugin):
    """Puts the hunt's rule set on each worker once and checks that it loads."""

    def __init__(self, token: str, rules_text: str, osprey: str, config: Optional[str],
                 mode: str = "socket"):
        self.token = token
        self.rules_text = rules_text
        self.osprey = osprey
        self.config = config
        self.mode = mode

    def setup(self, worker=None):
        """Writes the rules under the worker's local directory; in ``process`` mode checks
        them with ``osprey -T`` (in ``socket`` mode the server's own load checks them, at
        the worker's first unit, outside the worker's event loop)."""
        base = getattr(worker, "local_directory", None) or tempfile.gettempdir()
        d = os.path.join(base, "osprey-hunt", self.token)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "hunt.rules")
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(self.rules_text)
        os.replace(tmp, path)
        _JOBS[self.token] = path
        if self.mode == "socket":
            return
        cmd = [self.osprey, "-T", "-S", path] + (["-c", self.config] if self.config else [])
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"osprey -T failed on this worker: {r.stderr[-2000:]}")

    def teardown(self, worker=None):
        """Shuts down this hunt's server on the worker, if one runs."""
        with _SERVERS_LOCK:
            server = _SERVERS.pop(self.token, None)
        if server is not None:
            server.stop()


def _server(opts: Options, rules: str) -> "tuple[Server, bool]":
    """This worker process's server for the hunt, started if there is none or it died;
    whether it was started now. Each start is recorded under ``<work>/servers``."""
    with _SERVERS_LOCK:
        server = _SERVERS.get(opts.token)
        if server is not None and server.alive():
            return server, False
        if server is not None:
            server.stop()
        server = Server(opts.osprey, rules, opts.config, opts.osprey_args)
        _SERVERS[opts.token] = server
        starts = os.path.join(opts.work_dir, "servers")
        os.makedirs(starts, exist_ok=True)
        open(os.path.join(starts, f"{os.getpid()}.{server.proc.pid}.{uuid.uuid4().hex[:8]}"),
             "w").close()
        return server, True


def _eve_files(log_dir: str) -> List[str]:
    names = [n for n in os.listdir(log_dir) if n.endswith(".json") and n != "stats.json"]
    return [os.path.join(log_dir, n) for n in sorted(names)]


def _alerts(log_dir: str) -> List[str]:
    lines = []
    for path in _eve_files(log_dir):
        with open(path) as f:
            for line in f:
                if line.strip() and json.loads(line).get("event_type") == "alert":
                    lines.append(line if line.endswith("\n") else line + "\n")
    return lines


def output_path(work_dir: str, unit: Unit) -> str:
    """The final alert file of ``unit``."""
    return os.path.join(work_dir, "units", unit.name + ".json")


def _injected(opts: Options, unit: Unit, modes: "tuple[str, ...]") -> Optional[str]:
    """The failure among ``modes`` to inject into this attempt (tests: ``--inject-failure
    UNIT:MODE[,UNIT:MODE...]``; modes ``raise`` and ``kill`` (the worker dies while
    writing the unit's output), ``kill-osprey`` (the worker's osprey is killed while it
    runs the unit)), once per hunt: the first attempt creates a marker, later ones find
    it."""
    for spec in (opts.inject_failure or "").split(","):
        name, _, mode = spec.partition(":")
        mode = mode or "raise"
        if name != unit.name or mode not in modes:
            continue
        marker = os.path.join(opts.work_dir, f".injected-{unit.name}-{mode}")
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            continue
        return mode
    return None


def _run_process(unit: Unit, opts: Options, rules: str, file_list: str,
                 scratch: str) -> "tuple[Optional[dict], float]":
    """The unit as an ``osprey -r`` process of its own: its rule load and CPU seconds."""
    cmd = [opts.osprey]
    if opts.config:
        cmd += ["-c", opts.config]
    cmd += ["-S", rules, "-l", scratch, "--runmode", "single", "--no-progress"]
    cmd += ["--eve-types", "alert", "-r", file_list, "--pcap-file-list"]
    cmd += ["--flow-hash-bucket", f"{unit.bucket}/{unit.count}"] + list(opts.osprey_args)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    log = r.stdout + r.stderr
    if r.returncode != 0:
        raise RuntimeError(f"osprey failed ({r.returncode}) on {unit.name}: {log[-2000:]}")
    return rules_loaded(log), cpu


def _run_socket(unit: Unit, opts: Options, rules: str, file_list: str,
                scratch: str) -> "tuple[Optional[dict], float]":
    """The unit as a job of the worker's persistent osprey: the rule load it paid (when
    it started the server) and the server's CPU seconds during the job (and its start)."""
    server, started = _server(opts, rules)
    before = 0.0 if started else server.cpu_seconds()

    def submitted():
        if _injected(opts, unit, ("kill-osprey",)):
            os.kill(server.proc.pid, signal.SIGKILL)

    server.run(file_list, unit.bucket, unit.count, scratch, submitted)
    cpu = server.cpu_seconds() - before
    return (rules_loaded(server.log()) if started else None), cpu


def run_unit(unit: Unit, opts: Options) -> dict:
    """Runs ``unit`` (on a worker) and returns its account: alerts, seconds, osprey's
    CPU seconds (the worker runs one task at a time), rule load seconds, bytes of the
    link, attempt id."""
    start = time.monotonic()
    attempt = uuid.uuid4().hex[:12]
    attempts = os.path.join(opts.work_dir, "attempts")
    os.makedirs(attempts, exist_ok=True)
    open(os.path.join(attempts, f"{unit.name}.{attempt}"), "w").close()
    rules = _JOBS.get(opts.token)
    if rules is None:
        raise RuntimeError("the hunt's RulesPlugin did not run on this worker")
    scratch = tempfile.mkdtemp(prefix=f"osprey-unit-{unit.name}-")
    try:
        file_list = os.path.join(scratch, "files.txt")
        with open(file_list, "w") as f:
            f.writelines(os.path.abspath(p) + "\n" for p in unit.link.files)
        if opts.mode == "process":
            loaded, cpu = _run_process(unit, opts, rules, file_list, scratch)
        else:
            loaded, cpu = _run_socket(unit, opts, rules, file_list, scratch)
        alerts = _alerts(scratch)
        final = output_path(opts.work_dir, unit)
        os.makedirs(os.path.dirname(final), exist_ok=True)
        tmp = f"{final}.{attempt}.tmp"
        failure = _injected(opts, unit, ("raise", "kill"))
        with open(tmp, "w") as f:
            if failure:
                # A partial output, as a worker dying while writing leaves it.
                f.writelines(alerts[: len(alerts) // 2 + 1])
                f.flush()
                if failure == "kill":
                    os._exit(1)
                raise RuntimeError(f"injected failure in {unit.name}")
            f.writelines(alerts)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
        with open(os.path.join(scratch, "stats.json")) as f:
            stats = json.load(f)
        capture = stats.get("osprey", {}).get("capture", {})
        return {
            "unit": unit.name,
            "alerts": len(alerts),
            "seconds": time.monotonic() - start,
            "osprey_cpu_seconds": cpu,
            "rules": loaded,
            "bytes": unit.link.size(),
            "packets": stats.get("capture", {}).get("kernel_packets")
            or stats.get("decoder", {}).get("pkts", 0),
            "filtered": capture.get("filtered", 0),
            "attempt": attempt,
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
