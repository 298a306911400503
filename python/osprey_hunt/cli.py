"""``osprey hunt`` / ``python3 -m osprey_hunt``: plan the units of an archive, run them
on a Dask cluster (an existing scheduler, or ``--local N`` worker processes started
here), merge their alerts into one EVE file.

Progress: the scheduler's dashboard (its address is printed) shows the tasks, and
every finished unit is logged here as it completes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import shlex
import shutil
import sys
import tempfile
import time
import zipfile

from . import archive
from .merge import merge
from .unit import MODES, Options, RulesPlugin, output_path, run_unit

log = logging.getLogger("osprey_hunt")


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(
        prog="osprey hunt",
        description="Run a rule set over a capture archive on a Dask cluster; the alerts "
        "are those of one `osprey -r` over each link's files in order.",
    )
    p.add_argument("archive", help="directory of captures: one subdirectory per link, or "
                   "files LINK-SEQ.pcap at its top (time order by name)")
    p.add_argument("-S", "--rules", required=True, help="rule file (shipped with the job)")
    p.add_argument("-o", "--output", required=True, help="the merged EVE file (alerts)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", help="address of a running Dask scheduler "
                       "(tcp://host:8786)")
    where.add_argument("--scheduler-file", help="a Dask scheduler file")
    where.add_argument("--local", type=int, metavar="N",
                       help="start a local cluster of N worker processes")
    p.add_argument("--osprey", default=os.environ.get("OSPREY_BIN") or shutil.which("osprey"),
                   help="the osprey binary, at this path on every worker "
                   "(default: $OSPREY_BIN, else osprey on PATH)")
    p.add_argument("-c", "--config", help="suricata.yaml for osprey, at this path on every "
                   "worker (default: Osprey's built-in defaults)")
    p.add_argument("--osprey-args", default="", help="more osprey options, one string "
                   "(e.g. \"-k none\")")
    p.add_argument("--buckets", type=int, default=0, help="flow-hash buckets per link "
                   "(default: about two units per worker)")
    p.add_argument("--work-dir", help="unit outputs, on storage every worker and this "
                   "client share (default: OUTPUT.units)")
    p.add_argument("--resume", action="store_true", help="keep the unit outputs of an "
                   "earlier run of the same hunt and run only the missing units")
    p.add_argument("--min-workers", type=int, default=1, help="wait (up to --wait "
                   "seconds) until the cluster has this many workers (default 1)")
    p.add_argument("--wait", type=float, default=120, help="seconds to wait for workers")
    p.add_argument("--retries", type=int, default=2, help="times a failed unit is "
                   "retried by the engine (default 2)")
    p.add_argument("--mode", choices=MODES, default="socket", help="socket (default): "
                   "one persistent osprey per worker process (unix-socket runmode) loads "
                   "the rules once and runs the units sent to it; process: one osprey "
                   "process per unit, each loading the rules")
    p.add_argument("--summary", help="write the hunt's account (JSON) to this file")
    p.add_argument("--inject-failure", metavar="UNIT:MODE", help=argparse.SUPPRESS)
    p.add_argument("-v", "--verbose", action="store_true")
    return p


def _token(rules_text: str, units, osprey_args) -> str:
    h = hashlib.sha256(rules_text.encode())
    for u in units:
        h.update(f"{u.name}\0{'|'.join(u.link.files)}\0".encode())
    h.update(" ".join(osprey_args).encode())
    return h.hexdigest()[:16]


def _package_zip(dest_dir: str) -> str:
    """This package as a zip, for ``Client.upload_file``: the workers import it from
    there, so they need nothing installed but Dask."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(dest_dir, "osprey_hunt.zip")
    with zipfile.ZipFile(path, "w") as z:
        for name in sorted(os.listdir(here)):
            if name.endswith(".py"):
                z.write(os.path.join(here, name), f"osprey_hunt/{name}")
    return path


def _client(args):
    from distributed import Client, LocalCluster

    if args.local:
        cluster = LocalCluster(n_workers=args.local, threads_per_worker=1, processes=True,
                               dashboard_address=":0")
        return Client(cluster), cluster
    if args.scheduler_file:
        return Client(scheduler_file=args.scheduler_file), None
    return Client(args.scheduler), None


def _workers(client) -> int:
    return max(1, len(client.scheduler_info().get("workers", {})))


def run(args) -> dict:
    """The hunt: returns its account."""
    if not args.osprey or not os.access(args.osprey, os.X_OK):
        raise SystemExit("osprey hunt: no osprey binary (give --osprey or set OSPREY_BIN)")
    with open(args.rules) as f:
        rules_text = f.read()
    links = archive.discover(args.archive)
    work_dir = os.path.abspath(args.work_dir or args.output + ".units")
    osprey_args = shlex.split(args.osprey_args)
    t0 = time.monotonic()
    client, cluster = _client(args)
    plugin = None
    try:
        from distributed import as_completed

        client.wait_for_workers(max(args.min_workers, 1), timeout=args.wait)
        workers = _workers(client)
        units = archive.plan(links, workers, args.buckets)
        token = _token(rules_text, units, osprey_args)
        if not args.resume and os.path.isdir(work_dir):
            shutil.rmtree(work_dir)
        os.makedirs(os.path.join(work_dir, "units"), exist_ok=True)
        log.info("%d links, %d units (%d buckets per link) on %d workers; dashboard %s",
                 len(links), len(units), units[0].count if units else 0, workers,
                 client.dashboard_link)
        with tempfile.TemporaryDirectory() as tmp:
            client.upload_file(_package_zip(tmp))
        plugin = f"osprey-hunt-{token}"
        client.register_plugin(
            RulesPlugin(token, rules_text, args.osprey, args.config, args.mode), name=plugin
        )
        opts = Options(token=token, osprey=args.osprey, work_dir=work_dir, config=args.config,
                       osprey_args=osprey_args, inject_failure=args.inject_failure,
                       mode=args.mode)
        todo = [u for u in units if not (args.resume and os.path.exists(output_path(work_dir, u)))]
        futures = [
            client.submit(run_unit, u, opts, key=f"osprey-unit-{token}-{u.name}",
                          retries=args.retries, pure=False)
            for u in todo
        ]
        done = []
        for k, fut in enumerate(as_completed(futures), 1):
            r = fut.result()
            done.append(r)
            log.info("[%d/%d] %s: %d alerts, %.2f s (rules %.2f s)", k, len(futures),
                     r["unit"], r["alerts"], r["seconds"], (r["rules"] or {}).get("seconds", 0))
        order = {l.name: i for i, l in enumerate(links)}
        alerts = merge([(order[u.link.name], output_path(work_dir, u)) for u in units],
                       args.output)
        # What killed attempts left behind: never read, removed.
        units_dir = os.path.join(work_dir, "units")
        for name in os.listdir(units_dir):
            if name.endswith(".tmp"):
                os.remove(os.path.join(units_dir, name))
    finally:
        # The hunt's servers (socket mode) are shut down with its plugin, whatever
        # became of the hunt.
        if plugin is not None:
            try:
                client.unregister_worker_plugin(plugin)
            except Exception as e:  # the servers end with their workers anyway
                log.warning("could not unregister the rules plugin: %s", e)
        client.close()
        if cluster is not None:
            cluster.close()
    def entries(name):
        d = os.path.join(work_dir, name)
        return os.listdir(d) if os.path.isdir(d) else []

    attempts = entries("attempts")
    account = {
        "links": len(links),
        "units": len(units),
        "units_run": len(done),
        "attempts": len(attempts),
        "mode": args.mode,
        "osprey_starts": len(entries("servers" if args.mode == "socket" else "attempts")),
        "workers": workers,
        "alerts": alerts,
        "archive_bytes": sum(l.size() for l in links),
        "bytes_read": sum(u.link.size() for u in todo),
        "wall_seconds": time.monotonic() - t0,
        "unit_seconds": sum(r["seconds"] for r in done),
        "osprey_cpu_seconds": sum(r["osprey_cpu_seconds"] for r in done),
        "rule_load_seconds": sum((r["rules"] or {}).get("seconds", 0) for r in done),
        "output": os.path.abspath(args.output),
    }
    return account


def main(argv=None) -> int:
    """Entry point."""
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s osprey-hunt: %(message)s", stream=sys.stderr)
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("osprey hunt: Dask is not installed (pip install dask distributed)",
              file=sys.stderr)
        return 2
    account = run(args)
    text = json.dumps(account, indent=1)
    if args.summary:
        with open(args.summary, "w") as f:
            f.write(text + "\n")
    print(text)
    return 0
