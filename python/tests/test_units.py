"""Unit tests of the parts of osprey_hunt that need no cluster (run by
crates/cli/tests/hunt.rs: ``python3 -m unittest discover -s python/tests``)."""

import json
import os
import signal
import struct
import subprocess
import tempfile
import unittest

from osprey_hunt import archive, merge, server, split, unit


def write_pcap(path, n):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i in range(n):
            frame = bytes([i % 256]) * (60 + i % 5)
            f.write(struct.pack("<IIII", i, 0, len(frame), len(frame)) + frame)


class ArchiveTest(unittest.TestCase):
    def test_links_from_subdirectories_and_sequence_names(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "b"))
            for name in ["b/x-10.pcap", "b/x-9.pcap", "edge-0002.pcap", "edge-0001.pcap",
                         "core_3.pcapng", "notes.txt"]:
                open(os.path.join(d, name), "w").close()
            links = archive.discover(d)
            got = {l.name: [os.path.basename(f) for f in l.files] for l in links}
            self.assertEqual(got, {"b": ["x-9.pcap", "x-10.pcap"],
                                   "edge": ["edge-0001.pcap", "edge-0002.pcap"],
                                   "core": ["core_3.pcapng"]})
            with self.assertRaises(ValueError):
                archive.discover(os.path.join(d, "b", "x-9.pcap"))

    def test_plan_gives_every_bucket_of_every_link(self):
        links = [archive.Link("a", ()), archive.Link("b", ())]
        units = archive.plan(links, workers=3)
        self.assertEqual(len(units), 6)
        self.assertEqual(sorted((u.link.name, u.bucket) for u in units),
                         [(n, b) for n in "ab" for b in range(3)])
        self.assertEqual(len({u.name for u in units}), 6)
        self.assertEqual(archive.bucket_count(10, 2), 1)
        self.assertEqual(archive.bucket_count(1, 2, fixed=5), 5)


class SplitTest(unittest.TestCase):
    def test_split_is_lossless(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "in.pcap")
            write_pcap(src, 25)
            files = split.split(src, os.path.join(d, "out"), 10, "l")
            self.assertEqual([os.path.basename(f) for f in files],
                             ["l-0001.pcap", "l-0002.pcap", "l-0003.pcap"])
            data = open(src, "rb").read()
            joined = b"".join(open(f, "rb").read()[24:] for f in files)
            self.assertEqual(data[24:], joined)
            self.assertEqual(open(files[2], "rb").read()[:24], data[:24])


class MergeTest(unittest.TestCase):
    def rec(self, sid, ts, cnt):
        return {"event_type": "alert", "timestamp": ts, "pcap_cnt": cnt, "src_ip": "1.1.1.1",
                "src_port": 1, "dest_ip": "2.2.2.2", "dest_port": 2, "proto": "TCP",
                "flow_id": cnt * 7, "alert": {"gid": 1, "signature_id": sid, "rev": 1}}

    def test_merge_reads_each_unit_once_in_time_order(self):
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a.json"), os.path.join(d, "b.json")
            with open(a, "w") as f:
                f.write(json.dumps(self.rec(1, "2024-01-01T00:00:02", 5)) + "\n")
            with open(b, "w") as f:
                f.write(json.dumps(self.rec(2, "2024-01-01T00:00:01", 3)) + "\n")
                f.write(json.dumps(self.rec(3, "2024-01-01T00:00:03", 9)) + "\n")
            out = os.path.join(d, "out.json")
            self.assertEqual(merge.merge([(0, a), (1, b)], out), 3)
            sids = [r["alert"]["signature_id"] for r in merge.read_alerts([out])]
            self.assertEqual(sids, [2, 1, 3])
            # The equality ignores flow_id but not pcap_cnt.
            x, y = self.rec(1, "t", 5), self.rec(1, "t", 5)
            y["flow_id"] = 1
            self.assertEqual(merge.alert_key(x), merge.alert_key(y))
            y["pcap_cnt"] = 6
            self.assertNotEqual(merge.alert_key(x), merge.alert_key(y))


class UnitTest(unittest.TestCase):
    def test_rule_load_line(self):
        got = unit.rules_loaded("x\n 12 rules loaded, 1 failed, 2 unsupported (0.25 s)\n")
        self.assertEqual(got, {"loaded": 12, "failed": 1, "unsupported": 2, "seconds": 0.25})
        self.assertIsNone(unit.rules_loaded("nothing"))

    def test_injected_failure_fires_once(self):
        with tempfile.TemporaryDirectory() as d:
            u = archive.Unit(archive.Link("l", ()), 1, 2)
            opts = unit.Options(token="t", osprey="x", work_dir=d,
                                inject_failure=f"{u.name}:kill,{u.name}:kill-osprey")
            write = ("raise", "kill")
            self.assertEqual(unit._injected(opts, u, write), "kill")
            self.assertIsNone(unit._injected(opts, u, write))
            self.assertEqual(unit._injected(opts, u, ("kill-osprey",)), "kill-osprey")
            self.assertIsNone(unit._injected(opts, u, ("kill-osprey",)))
            other = archive.Unit(archive.Link("l", ()), 0, 2)
            self.assertIsNone(unit._injected(opts, other, write))


@unittest.skipUnless(os.environ.get("OSPREY_BIN"),
                     "OSPREY_BIN not set (crates/cli/tests/hunt.rs sets it)")
class ServerTest(unittest.TestCase):
    """The worker's persistent osprey (the real binary): units are jobs of one process;
    killed while it runs a unit, the unit fails and the next unit starts a new one."""

    def test_a_dead_server_fails_its_unit_and_is_started_again(self):
        with tempfile.TemporaryDirectory() as d:
            pcap = os.path.join(d, "a.pcap")
            write_pcap(pcap, 40)
            lst = os.path.join(d, "files.txt")
            with open(lst, "w") as f:
                f.write(pcap + "\n")
            rules = os.path.join(d, "r.rules")
            with open(rules, "w") as f:
                f.write('alert ip any any -> any any (msg:"x"; sid:1;)\n')
            opts = unit.Options(token=f"t{os.getpid()}", osprey=os.environ["OSPREY_BIN"],
                                work_dir=d, osprey_args=["-k", "none"])
            outs = [os.path.join(d, f"out{k}") for k in range(3)]
            for o in outs:
                os.makedirs(o)
            # What a killed worker's server left: removed when a server starts.
            gone = subprocess.Popen(["true"])
            gone.wait()
            stale = tempfile.mkdtemp(prefix=server.DIR_PREFIX)
            with open(os.path.join(stale, "pid"), "w") as f:
                f.write(f"{gone.pid}\n")
            first, started = unit._server(opts, rules)
            self.assertFalse(os.path.exists(stale))
            try:
                self.assertTrue(started)
                self.assertEqual(first.run(lst, 0, 1, outs[0])["packets"], 40)
                self.assertTrue(os.path.exists(os.path.join(outs[0], "stats.json")))
                same, started = unit._server(opts, rules)
                self.assertIs(same, first)
                self.assertFalse(started)
                with self.assertRaises(server.OspreyDied):
                    first.run(lst, 0, 1, outs[1],
                              lambda: os.kill(first.proc.pid, signal.SIGKILL))
                second, started = unit._server(opts, rules)
                self.assertTrue(started)
                self.assertNotEqual(second.proc.pid, first.proc.pid)
                self.assertEqual(second.run(lst, 0, 1, outs[2])["state"], "done")
                self.assertEqual(len(os.listdir(os.path.join(d, "servers"))), 2)
            finally:
                with unit._SERVERS_LOCK:
                    s = unit._SERVERS.pop(opts.token, None)
                if s is not None:
                    s.stop()
                first.stop()


if __name__ == "__main__":
    unittest.main()
