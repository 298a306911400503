"""A capture archive and its work units.

An archive is a directory. Each subdirectory is one link, its capture files in time
order by name (numbers compared as numbers: ``x-9`` before ``x-10``). Files at the top
level are grouped into links by their name without the trailing sequence number
(``edge-0001.pcap``, ``edge-0002.pcap`` are link ``edge``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import List, Sequence, Tuple

CAPTURE_SUFFIXES = (".pcap", ".pcapng", ".cap", ".dmp")
_SEQ = re.compile(r"^(?P<link>.*?)[-_.]?(?P<seq>\d+)$")


def natural_key(name: str) -> Tuple:
    """Sort key comparing digit runs as numbers."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


def _is_capture(name: str) -> bool:
    return name.lower().endswith(CAPTURE_SUFFIXES) and not name.startswith(".")


def _stem(name: str) -> str:
    for suffix in CAPTURE_SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


@dataclass(frozen=True)
class Link:
    """One link of the archive: its name and its files in time order."""

    name: str
    files: Tuple[str, ...]

    def size(self) -> int:
        """Bytes of the link's files."""
        return sum(os.path.getsize(f) for f in self.files)


@dataclass(frozen=True)
class Unit:
    """A work unit: the flows of bucket ``bucket`` of ``count`` on one link."""

    link: Link
    bucket: int
    count: int

    @property
    def name(self) -> str:
        """A name unique in the hunt, usable as a file name."""
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", self.link.name)
        return f"{safe}.{self.bucket:04d}-of-{self.count:04d}"


def discover(root: str) -> List[Link]:
    """The links of the archive at ``root`` (sorted by name); an archive without any
    capture file is an error."""
    if not os.path.isdir(root):
        raise ValueError(f"{root}: not a directory")
    groups = {}
    for entry in sorted(os.scandir(root), key=lambda e: natural_key(e.name)):
        if entry.is_dir():
            files = [
                os.path.join(entry.path, f)
                for f in sorted(os.listdir(entry.path), key=natural_key)
                if _is_capture(f) and os.path.isfile(os.path.join(entry.path, f))
            ]
            if files:
                groups.setdefault(entry.name, []).extend(files)
        elif entry.is_file() and _is_capture(entry.name):
            m = _SEQ.match(_stem(entry.name))
            link = (m.group("link") if m and m.group("link") else _stem(entry.name)) or "link"
            groups.setdefault(link, []).append(entry.path)
    if not groups:
        raise ValueError(f"{root}: no capture files ({', '.join(CAPTURE_SUFFIXES)})")
    links = []
    for name in sorted(groups, key=natural_key):
        files = sorted(groups[name], key=lambda p: natural_key(os.path.basename(p)))
        links.append(Link(name, tuple(os.path.abspath(f) for f in files)))
    return links


def bucket_count(links: int, workers: int, fixed: int = 0) -> int:
    """How many flow-hash buckets each link is split into: ``fixed`` when given, else
    enough for about two units per worker (one when the archive has that many links
    already). Every unit of a link reads all of the link's files and keeps its share of
    the flows, so buckets multiply the bytes read: no more than parallelism needs."""
    if fixed > 0:
        return fixed
    return max(1, -(-2 * max(workers, 1) // max(links, 1)))


def plan(links: Sequence[Link], workers: int, fixed: int = 0) -> List[Unit]:
    """The work units of ``links``, largest links first (they take longest)."""
    n = bucket_count(len(links), workers, fixed)
    units = []
    for link in sorted(links, key=lambda l: -l.size()):
        units.extend(Unit(link, b, n) for b in range(n))
    return units
