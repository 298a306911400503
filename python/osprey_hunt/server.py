"""One persistent ``osprey`` per worker process, so the hunt's rules are compiled once
per worker rather than once per unit.

The server is Osprey in Suricata's unix-socket runmode (``osprey --unix-socket=PATH``):
it loads the rules, then runs the ``pcap-file`` jobs sent to it one after another, each
a run of its own (fresh flows and counters, outputs in the job's directory). A unit is
one job with Osprey's two extra ``pcap-file`` arguments, ``pcap-file-list`` (the
link's files in order, frames numbered across them) and ``flow-hash-bucket``; the unit
then asks ``pcap-file-result`` until its job is ``done`` or ``failed``.

A server that dies (killed, crashed) is noticed while a unit waits on it: the unit
raises :class:`OspreyDied` (the engine retries it) and the next unit on that worker
starts a new server. A server does not outlive its worker: it is started from a thread
that lives as long as the worker process and asks the kernel for SIGTERM when that
thread goes (Linux ``PR_SET_PDEATHSIG``), and the rules plugin's teardown shuts it down.
"""

from __future__ import annotations

import ctypes
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from typing import Callable, List, Optional

#: How long a server may take to load its rules and open its socket (seconds).
START_TIMEOUT = 900.0

#: The prefix of a server's directory (socket, log, pid) in the temporary directory.
DIR_PREFIX = "osprey-hunt-"


class OspreyDied(RuntimeError):
    """The worker's osprey ended while a unit waited on it."""


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """In the forked child: SIGTERM when the thread that started it ends."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


_spawn_queue: "queue.Queue" = queue.Queue()
_spawner_lock = threading.Lock()
_spawner: Optional[threading.Thread] = None


def _spawn_loop() -> None:
    while True:
        args, kwargs, box, done = _spawn_queue.get()
        try:
            box.append(subprocess.Popen(args, **kwargs))
        except BaseException as e:  # handed back to the caller
            box.append(e)
        done.set()


def _spawn(args: List[str], **kwargs) -> subprocess.Popen:
    """``Popen`` from one thread that lives as long as this process (task threads may
    come and go, and the parent-death signal follows the thread that forked)."""
    global _spawner
    with _spawner_lock:
        if _spawner is None or not _spawner.is_alive():
            _spawner = threading.Thread(target=_spawn_loop, name="osprey-spawner",
                                        daemon=True)
            _spawner.start()
    box: list = []
    done = threading.Event()
    _spawn_queue.put((args, dict(kwargs, preexec_fn=_die_with_parent), box, done))
    done.wait()
    if isinstance(box[0], BaseException):
        raise box[0]
    return box[0]


def process_cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of a running process (0 where /proc is missing)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def remove_stale(tmp: Optional[str] = None) -> int:
    """Removes the directories that servers whose process is gone left behind (a worker
    killed outright cannot clean up; its server ends with it); returns how many. A
    directory without a pid file is a server starting and is left alone."""
    tmp = tmp or tempfile.gettempdir()
    removed = 0
    for name in os.listdir(tmp):
        d = os.path.join(tmp, name)
        if not name.startswith(DIR_PREFIX) or not os.path.isdir(d):
            continue
        try:
            with open(os.path.join(d, "pid")) as f:
                pid = int(f.read().strip())
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(d, ignore_errors=True)
            removed += 1
        except (OSError, ValueError):  # no pid file yet, someone else's, unreadable
            continue
    return removed


class Client:
    """One connection speaking Suricata's command protocol: the version greeting, then
    one JSON command and one JSON reply at a time."""

    def __init__(self, path: str, timeout: float = 60.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.buf = b""
        try:
            self.sock.settimeout(timeout)
            self.sock.connect(path)
            reply = self._send({"version": "0.2"})
        except BaseException:
            self.sock.close()
            raise
        if reply.get("return") != "OK":
            self.sock.close()
            raise RuntimeError(f"osprey refused the greeting: {reply}")

    def _send(self, msg: dict) -> dict:
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        decoder = json.JSONDecoder()
        while True:
            text = self.buf.decode("utf-8", "replace").lstrip()
            if text:
                try:
                    value, end = decoder.raw_decode(text)
                    self.buf = text[end:].encode()
                    return value
                except json.JSONDecodeError:
                    pass
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("osprey closed the command socket")
            self.buf += chunk

    def command(self, name: str, arguments: Optional[dict] = None) -> dict:
        """Sends one command; its reply (``return``, ``message``)."""
        msg = {"command": name}
        if arguments is not None:
            msg["arguments"] = arguments
        return self._send(msg)

    def close(self) -> None:
        """Closes the connection."""
        self.sock.close()


class Server:
    """A persistent ``osprey --unix-socket`` with one rule set."""

    def __init__(self, osprey: str, rules: str, config: Optional[str], osprey_args: List[str]):
        remove_stale()
        self.dir = tempfile.mkdtemp(prefix=DIR_PREFIX)  # short: socket paths are
        self.socket = os.path.join(self.dir, "osprey.sock")  # limited to 107 bytes
        self.log_path = os.path.join(self.dir, "osprey.log")
        os.makedirs(os.path.join(self.dir, "log"))
        cmd = [osprey, f"--unix-socket={self.socket}", "-S", rules,
               "-l", os.path.join(self.dir, "log"), "--runmode", "single", "--no-progress",
               "--eve-types", "alert"]
        if config:
            cmd += ["-c", config]
        cmd += list(osprey_args)
        self.lock = threading.Lock()
        with open(self.log_path, "w") as log:
            self.proc = _spawn(cmd, stdout=log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL)
        with open(os.path.join(self.dir, "pid"), "w") as f:
            f.write(f"{self.proc.pid}\n")
        self._wait_ready()

    def log_tail(self) -> str:
        """The end of the server's log."""
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def log(self) -> str:
        """The server's log."""
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def alive(self) -> bool:
        """Whether the process still runs."""
        return self.proc.poll() is None

    def cpu_seconds(self) -> float:
        """The CPU seconds the server has used so far."""
        return process_cpu_seconds(self.proc.pid)

    def _wait_ready(self) -> None:
        t = time.monotonic()
        while True:
            if not self.alive():
                raise RuntimeError(f"osprey --unix-socket exited ({self.proc.returncode}) "
                                   f"while starting: {self.log_tail()}")
            try:
                Client(self.socket, timeout=10).close()
                return
            except OSError:
                pass
            if time.monotonic() - t > START_TIMEOUT:
                self.stop()
                raise RuntimeError(f"osprey --unix-socket not ready after {START_TIMEOUT} s")
            time.sleep(0.05)

    def _died(self, during: str) -> OspreyDied:
        self.proc.poll()
        return OspreyDied(f"the worker's osprey (pid {self.proc.pid}) ended "
                          f"({self.proc.returncode}) {during}: {self.log_tail()}")

    def run(self, file_list: str, bucket: int, count: int, out_dir: str,
            submitted: Optional[Callable[[], None]] = None) -> dict:
        """Runs one unit: the files of ``file_list`` in order, flows of bucket ``bucket``
        of ``count``, outputs in ``out_dir``. Returns the job's result (``packets``);
        raises :class:`OspreyDied` if the server ends, ``RuntimeError`` if the job
        fails."""
        args = {"filename": file_list, "output-dir": out_dir, "pcap-file-list": True}
        if count > 1:
            args["flow-hash-bucket"] = f"{bucket}/{count}"
        with self.lock:
            try:
                client = Client(self.socket)
            except OSError as e:
                if not self.alive():
                    raise self._died("before the unit") from e
                raise
            try:
                reply = client.command("pcap-file", args)
                if reply.get("return") != "OK":
                    raise RuntimeError(f"pcap-file refused: {reply.get('message')}")
                if submitted:
                    submitted()
                pause = 0.01
                while True:
                    reply = client.command("pcap-file-result", {"output-dir": out_dir})
                    state = (reply.get("message") or {}).get("state")
                    if state == "done":
                        return reply["message"]
                    if state == "failed":
                        raise RuntimeError(f"osprey failed the unit: {reply['message']['error']}")
                    if state not in ("queued", "running"):
                        raise RuntimeError(f"pcap-file-result: {reply}")
                    time.sleep(pause)
                    pause = min(pause * 2, 0.2)
            except OSError as e:  # ConnectionError included
                try:
                    self.proc.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    raise e from None
                raise self._died("during the unit") from e
            finally:
                client.close()

    def stop(self) -> None:
        """Shuts the server down (``shutdown``, then a kill) and removes its directory."""
        if self.alive():
            try:
                c = Client(self.socket, timeout=10)
                c.command("shutdown")
                c.close()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)
