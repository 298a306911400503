"""Retro-hunt: run an Osprey rule set over a capture archive on Dask distributed.

The archive is split into work units (link, flow-hash bucket b of B); each unit runs
one ``osprey`` over the link's files in time order keeping only the flows of its bucket
(``--pcap-file-list --flow-hash-bucket b/B``), so flows that continue from one file
into the next stay whole. Each unit writes its alerts to its own file atomically; the
merge reads every unit's file once, so a unit the engine retried is never counted
twice. See ``docs/hunt.md``.
"""

__version__ = "0.1.0"
