//! Several sensors, one link: three `osprey --af-packet` processes in one network
//! namespace read the same veth end as one AF_PACKET fanout group (`cluster-id`,
//! `cluster_flow`, `defrag`), each named by `sensor-name`, all publishing their EVE into
//! one Redis list of a real `redis-server` the test starts beside them; `tcpreplay` in a
//! second namespace replays generated traffic (`osprey gen`, with attacks built from the
//! test's rules) into the other end.
//!
//! One veth that every sensor listens on models one link (a tap or span port) shared by
//! the processes of one host: the kernel's fanout hash picks the sensor of each flow.
//! Several hosts behind a packet broker are the same with the broker's symmetric hash
//! in place of the kernel's (one sensor per host), so this is not modelled separately.
//!
//! Asserted: the union of the alerts in Redis (signature id, 5-tuple, count) equals one
//! sensor's (`osprey -r`) on the same traffic, each alert naming a sensor in `host`;
//! every flow is seen whole (both directions, the same packet counts as the single
//! sensor's) by exactly one sensor; each sensor publishes its own counters (`stats`
//! records with its `host`). One sensor is then killed (SIGKILL) and more traffic
//! replayed: the survivors alert on all of it, and what is lost is exactly the killed
//! sensor's share: the flow records of the flows it owned (it would have written them at
//! their end), counted, and none of anyone else's.
//!
//! Needs root, `ip`, `tcpreplay` and `redis-server`: skipped with a printed reason
//! otherwise, unless OSPREY_REQUIRE_NETNS=1 / OSPREY_REQUIRE_REDIS=1 make it mandatory.
#![cfg(target_os = "linux")]

mod common;

use common::{runs, sh};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Sensors in the fanout group.
const SENSORS: usize = 3;
/// The fanout group id every sensor names.
const CLUSTER_ID: u16 = 77;
/// The Redis list all sensors push to.
const KEY: &str = "osprey";

const RULES: &str = "\
alert http any any -> any any (msg:\"cluster: admin path\"; flow:established,to_server; http.uri; content:\"/admin/cluster\"; sid:9310001; rev:1;)
alert http any any -> any any (msg:\"cluster: agent\"; flow:established,to_server; http.user_agent; content:\"ClusterProbe\"; sid:9310002; rev:1;)
alert tcp any any -> any any (msg:\"cluster: token\"; flow:established,to_server; content:\"X-Cluster-Token\"; sid:9310003; rev:1;)
";

/// (signature id, src ip, src port, dest ip, dest port, proto).
type AlertKey = (u64, String, u64, String, u64, String);
/// A flow, both directions alike: the lower (ip, port) first, then the other, proto.
type FlowKey = ((String, u64), (String, u64), String);

fn skip(reason: &str) {
    common::skip_netns("cluster netns test", reason);
}

/// Skips (or fails under OSPREY_REQUIRE_REDIS=1) without redis-server.
fn skip_redis() {
    assert!(
        std::env::var("OSPREY_REQUIRE_REDIS").as_deref() != Ok("1"),
        "redis-server is not installed and OSPREY_REQUIRE_REDIS=1"
    );
    eprintln!("skipped: redis-server not installed (set OSPREY_REQUIRE_REDIS=1 to require it)");
}

/// The sensors' namespace (with the sensors and redis-server) and the traffic source's,
/// joined by a veth pair; removed on drop.
struct Netns {
    sensors: String,
    source: String,
}

impl Netns {
    /// Namespaces named after `tag` (one per test: they run in parallel).
    fn new(tag: &str) -> Result<Netns, String> {
        let id = std::process::id();
        let ns = Netns {
            sensors: format!("osprey-{tag}s-{id}"),
            source: format!("osprey-{tag}t-{id}"),
        };
        sh(&["ip", "netns", "add", &ns.sensors])?;
        sh(&["ip", "netns", "add", &ns.source])?;
        // No IPv6 on the link: no neighbour discovery frames beside the replayed ones.
        for n in [&ns.sensors, &ns.source] {
            let _ = sh(&[
                "ip",
                "netns",
                "exec",
                n,
                "sysctl",
                "-qw",
                "net.ipv6.conf.default.disable_ipv6=1",
            ]);
        }
        sh(&[
            "ip",
            "link",
            "add",
            "va",
            "netns",
            &ns.sensors,
            "type",
            "veth",
            "peer",
            "name",
            "vb",
            "netns",
            &ns.source,
        ])?;
        sh(&["ip", "-n", &ns.sensors, "link", "set", "va", "up"])?;
        sh(&["ip", "-n", &ns.sensors, "link", "set", "lo", "up"])?;
        sh(&["ip", "-n", &ns.source, "link", "set", "vb", "up"])?;
        Ok(ns)
    }

    /// `ip netns exec NS` and `args` as one command.
    fn exec(ns: &str, args: &[&str]) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", ns]).args(args);
        c
    }

    fn replay(&self, pcap: &Path) -> Result<(), String> {
        sh(&[
            "ip",
            "netns",
            "exec",
            &self.source,
            "tcpreplay",
            "-q",
            "-i",
            "vb",
            "--pps=500",
            pcap.to_str().unwrap(),
        ])
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = sh(&["ip", "netns", "del", &self.sensors]);
        let _ = sh(&["ip", "netns", "del", &self.source]);
    }
}

/// A child process killed (and reaped) on drop.
struct Proc(Child);

impl Proc {
    /// Waits for the process to exit (killing it and failing after `limit`).
    fn wait(&mut self, limit: Duration) -> std::process::ExitStatus {
        let t = Instant::now();
        loop {
            if let Some(st) = self.0.try_wait().unwrap() {
                return st;
            }
            assert!(t.elapsed() < limit, "process {} did not exit", self.0.id());
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `cmd` with stdout and stderr piped; returns once a line of either contains
/// `ready` (failing after 30 s or when the process ends first, with what it said).
fn start_until(mut cmd: Command, ready: &str, what: &str) -> Proc {
    let mut child = Proc(
        cmd.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{what}: {e}")),
    );
    let (tx, rx) = mpsc::channel();
    let out: Box<dyn std::io::Read + Send> = Box::new(child.0.stdout.take().expect("piped"));
    let err: Box<dyn std::io::Read + Send> = Box::new(child.0.stderr.take().expect("piped"));
    for stream in [out, err] {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
    }
    drop(tx);
    let t = Instant::now();
    let mut log = Vec::new();
    while t.elapsed() < Duration::from_secs(30) {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(line) if line.contains(ready) => {
                // Keep draining so the child never blocks on a full pipe.
                std::thread::spawn(move || for _ in rx {});
                return child;
            }
            Ok(line) => log.push(line),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    panic!("{what} did not get ready ({ready:?}): {log:#?}");
}

/// redis-server inside the sensors' namespace (its loopback), on the default port.
fn start_redis(ns: &Netns, dir: &Path) -> Proc {
    let cmd = Netns::exec(
        &ns.sensors,
        &[
            "redis-server",
            "--bind",
            "127.0.0.1",
            "--port",
            "6379",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            dir.to_str().unwrap(),
        ],
    );
    // redis-server logs to stdout.
    let mut cmd = cmd;
    cmd.stderr(Stdio::null());
    let child = Proc(cmd.stdout(Stdio::piped()).spawn().expect("redis-server"));
    let t = Instant::now();
    while redis_cmd(ns, &["PING"]).as_deref() != Ok("PONG") {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "redis-server did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}

/// Runs `redis-cli ARGS` in the sensors' namespace; its output.
fn redis_cmd(ns: &Netns, args: &[&str]) -> Result<String, String> {
    let out = Netns::exec(&ns.sensors, &[&["redis-cli"][..], args].concat())
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Every record of the list, parsed.
fn records(ns: &Netns) -> Vec<Value> {
    redis_cmd(ns, &["LRANGE", KEY, "0", "-1"])
        .expect("LRANGE")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn alerts(recs: &[Value]) -> Vec<&Value> {
    recs.iter().filter(|r| r["event_type"] == "alert").collect()
}

/// Waits until the list holds `n` alerts (at most 30 s); returns the records.
fn wait_alerts(ns: &Netns, n: usize) -> Vec<Value> {
    let t = Instant::now();
    loop {
        let recs = records(ns);
        let got = alerts(&recs).len();
        if got >= n || t.elapsed() > Duration::from_secs(30) {
            return recs;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn s(o: &Value, k: &str) -> String {
    o[k].as_str().unwrap_or("").to_string()
}

fn n(o: &Value, k: &str) -> u64 {
    o[k].as_u64().unwrap_or(u64::MAX)
}

fn alert_key(o: &Value) -> AlertKey {
    (
        o["alert"]["signature_id"].as_u64().unwrap_or(0),
        s(o, "src_ip"),
        n(o, "src_port"),
        s(o, "dest_ip"),
        n(o, "dest_port"),
        s(o, "proto").to_uppercase(),
    )
}

fn flow_key(o: &Value) -> FlowKey {
    let a = (s(o, "src_ip"), n(o, "src_port"));
    let b = (s(o, "dest_ip"), n(o, "dest_port"));
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    (lo, hi, s(o, "proto").to_uppercase())
}

fn count<'a>(it: impl Iterator<Item = &'a Value>) -> BTreeMap<AlertKey, usize> {
    let mut m = BTreeMap::new();
    for o in it {
        *m.entry(alert_key(o)).or_default() += 1;
    }
    m
}

/// One sensor's view of `pcap`: `osprey -r` with the same rules, alerts and flow
/// records in a file.
fn single_sensor(dir: &Path, pcap: &Path, rules: &Path) -> Vec<Value> {
    std::fs::create_dir_all(dir).unwrap();
    let yaml = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
                filename: eve.json\n      types:\n        - alert\n        - flow\n";
    common::osprey_eve(dir, yaml, pcap, rules)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The configuration of sensor `name`: the shared fanout group, its own name, EVE
/// (alerts, flows, stats every second) into the shared Redis list.
fn sensor_yaml(name: &str) -> String {
    format!(
        "%YAML 1.1\n---\nsensor-name: {name}\naf-packet:\n  - interface: va\n    threads: 1\n    \
         cluster-id: {CLUSTER_ID}\n    cluster-type: cluster_flow\n    defrag: yes\n\
         stats:\n  enabled: yes\n  interval: 1\noutputs:\n  - eve-log:\n      enabled: yes\n      \
         filetype: redis\n      redis:\n        server: 127.0.0.1\n        port: 6379\n        \
         mode: rpush\n        key: {KEY}\n      types:\n        - alert\n        - flow\n        \
         - stats\n"
    )
}

fn start_sensor(ns: &Netns, dir: &Path, name: &str, rules: &Path) -> Proc {
    let yaml = dir.join(format!("{name}.yaml"));
    std::fs::write(&yaml, sensor_yaml(name)).unwrap();
    let log = dir.join(name);
    std::fs::create_dir_all(&log).unwrap();
    let cmd = Netns::exec(
        &ns.sensors,
        &[
            env!("CARGO_BIN_EXE_osprey"),
            "-c",
            yaml.to_str().unwrap(),
            "--af-packet=va",
            "-S",
            rules.to_str().unwrap(),
            "-k",
            "none",
            "--no-progress",
            "-l",
            log.to_str().unwrap(),
        ],
    );
    // Printed once its socket has joined the fanout group.
    start_until(
        cmd,
        &format!("bound in fanout group {CLUSTER_ID} (cluster_flow, defrag)"),
        name,
    )
}

/// Generates the capture `name.pcap` (40 conversations, over half with an attack).
fn generate(dir: &Path, name: &str, seed: u64, rules: &Path) -> PathBuf {
    let pcap = dir.join(format!("{name}.pcap"));
    let out = common::osprey(&[
        "gen",
        "-o",
        pcap.to_str().unwrap(),
        "--rules",
        rules.to_str().unwrap(),
        "--flows",
        "8",
        "--max-flows",
        "40",
        "--attack-fraction",
        "0.5",
        "--response-packets",
        "2",
        "--size",
        "600",
        "--seed",
        &seed.to_string(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    pcap
}

fn sigint(p: &Proc) {
    sh(&["kill", "-INT", &p.0.id().to_string()]).unwrap();
}

#[test]
fn sensors_of_one_fanout_group_share_a_link_and_one_redis_list() {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root {
        return skip("not root");
    }
    if !runs("ip", "-V") {
        return skip("`ip` (iproute2) not installed");
    }
    if !runs("tcpreplay", "-V") {
        return skip("tcpreplay not installed");
    }
    if !runs("redis-server", "--version") || !runs("redis-cli", "--version") {
        return skip_redis();
    }
    let dir = common::tempdir("cluster-netns");
    let rules = dir.join("cluster.rules");
    std::fs::write(&rules, RULES).unwrap();
    let p1 = generate(&dir, "p1", 1, &rules);
    let p2 = generate(&dir, "p2", 2, &rules);

    // One sensor's view of each capture.
    let one1 = single_sensor(&dir.join("one1"), &p1, &rules);
    let one2 = single_sensor(&dir.join("one2"), &p2, &rules);
    let want1 = count(alerts(&one1).into_iter());
    let want2 = count(alerts(&one2).into_iter());
    let flows_of = |recs: &[Value]| -> BTreeMap<FlowKey, (u64, u64)> {
        recs.iter()
            .filter(|r| r["event_type"] == "flow")
            .map(|r| {
                let f = &r["flow"];
                (flow_key(r), (n(f, "pkts_toserver"), n(f, "pkts_toclient")))
            })
            .collect()
    };
    let (flows1, flows2) = (flows_of(&one1), flows_of(&one2));
    let n1: usize = want1.values().sum();
    let n2: usize = want2.values().sum();
    assert!(n1 >= 10 && n2 >= 10, "too few alerts: {n1}, {n2}");
    assert!(flows1.len() >= 30, "{} flows", flows1.len());
    assert!(
        flows1.keys().all(|k| !flows2.contains_key(k)),
        "the two captures share a flow"
    );

    let ns = match Netns::new("c") {
        Ok(ns) => ns,
        Err(e) => return skip(&format!("cannot create network namespaces: {e}")),
    };
    let _redis = start_redis(&ns, &dir);
    let names: Vec<String> = (0..SENSORS).map(|i| format!("sensor-{i}")).collect();
    let mut sensors: Vec<Option<Proc>> = names
        .iter()
        .map(|name| Some(start_sensor(&ns, &dir, name, &rules)))
        .collect();

    // Phase 1: all sensors up. Their alerts together are the single sensor's.
    ns.replay(&p1).unwrap();
    let recs = wait_alerts(&ns, n1);
    let got1 = alerts(&recs);
    assert_eq!(count(got1.iter().copied()), want1, "phase 1 alerts");
    let mut by_host: BTreeMap<String, usize> = BTreeMap::new();
    for a in &got1 {
        let host = s(a, "host");
        assert!(names.contains(&host), "alert host {host:?}");
        *by_host.entry(host).or_default() += 1;
    }
    eprintln!("phase 1 alerts per sensor: {by_host:?}");
    assert!(
        by_host.len() >= 2,
        "one sensor took every flow: {by_host:?}"
    );

    // The sensor with the most alerts dies without flushing anything more.
    let (victim, _) = by_host
        .iter()
        .max_by_key(|(h, n)| (**n, *h))
        .map(|(h, n)| (h.clone(), *n))
        .unwrap();
    let vi = names.iter().position(|h| *h == victim).unwrap();
    // Its counters reach Redis every second: wait for one written after its last alert
    // that has counted its packets.
    let pkts = |r: &Value| r["stats"]["decoder"]["pkts"].as_u64().unwrap_or(0);
    let t = Instant::now();
    loop {
        let recs = records(&ns);
        let last_alert = recs
            .iter()
            .rposition(|r| r["event_type"] == "alert" && s(r, "host") == victim);
        let counted = recs.iter().enumerate().any(|(i, r)| {
            r["event_type"] == "stats"
                && s(r, "host") == victim
                && Some(i) > last_alert
                && pkts(r) > 0
        });
        if counted {
            break;
        }
        if t.elapsed() > Duration::from_secs(20) {
            let seen: Vec<(usize, u64)> = recs
                .iter()
                .enumerate()
                .filter(|(_, r)| r["event_type"] == "stats" && s(r, "host") == victim)
                .map(|(i, r)| (i, pkts(r)))
                .collect();
            let last = recs
                .iter()
                .rev()
                .find(|r| r["event_type"] == "stats" && s(r, "host") == victim);
            panic!(
                "no stats from {victim} after its last alert ({last_alert:?}): {seen:?} {last:?}"
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut killed = sensors[vi].take().unwrap();
    killed.0.kill().unwrap();
    killed.0.wait().unwrap();
    // Its alerts, flows and last counters as Redis holds them.
    let victim_alerts: BTreeSet<FlowKey> = got1
        .iter()
        .filter(|a| s(a, "host") == victim)
        .map(|a| flow_key(a))
        .collect();

    // Phase 2: new traffic, shared by the survivors (the group has one socket less).
    ns.replay(&p2).unwrap();
    let recs = wait_alerts(&ns, n1 + n2);
    for p in sensors.iter().flatten() {
        sigint(p);
    }
    for p in sensors.iter_mut().flatten() {
        let st = p.wait(Duration::from_secs(30));
        assert!(st.success(), "sensor exit status {st:?}");
    }
    let recs_final = records(&ns);
    assert!(recs_final.len() >= recs.len());
    let all = alerts(&recs_final);
    let mut want = want1.clone();
    for (k, v) in &want2 {
        *want.entry(k.clone()).or_default() += v;
    }
    assert_eq!(count(all.iter().copied()), want, "all alerts");
    for a in &all[n1..] {
        assert_ne!(
            s(a, "host"),
            victim,
            "alert from the killed sensor after its death"
        );
    }

    // Flows: each seen whole by one sensor; the killed sensor's are the ones lost.
    let mut owner: BTreeMap<FlowKey, String> = BTreeMap::new();
    for r in recs_final.iter().filter(|r| r["event_type"] == "flow") {
        let k = flow_key(r);
        let Some(want) = flows1.get(&k).or_else(|| flows2.get(&k)) else {
            continue; // not of the replayed captures (IPv6 neighbour discovery)
        };
        let f = &r["flow"];
        // Both directions reached this sensor: the same counts as the single sensor's.
        assert_eq!(
            (n(f, "pkts_toserver"), n(f, "pkts_toclient")),
            *want,
            "flow {k:?} on {}",
            s(r, "host")
        );
        let host = s(r, "host");
        assert_ne!(host, victim, "a flow record from the killed sensor");
        if let Some(prev) = owner.insert(k.clone(), host.clone()) {
            panic!("flow {k:?} seen by {prev} and {host}");
        }
    }
    for a in &all {
        let k = flow_key(a);
        match owner.get(&k) {
            Some(h) => assert_eq!(*h, s(a, "host"), "alert and flow on different sensors"),
            None => assert!(
                victim_alerts.contains(&k),
                "flow {k:?} lost, not the victim's"
            ),
        }
    }
    assert!(
        flows2.keys().all(|k| owner.contains_key(k)),
        "a flow after the kill was lost"
    );
    let lost: Vec<&FlowKey> = flows1.keys().filter(|k| !owner.contains_key(k)).collect();
    assert!(
        victim_alerts.iter().all(|k| lost.contains(&k)),
        "the victim's flows were logged by a survivor"
    );
    eprintln!(
        "killed {victim}: its {} flow record(s) of {} lost ({} of them with alerts, all \
         alerts delivered before the kill); survivors logged {} flow(s)",
        lost.len(),
        flows1.len(),
        victim_alerts.len(),
        owner.len()
    );

    // Per-sensor counters: every sensor published stats records under its name; the
    // killed one's last counted the packets of its share only.
    let mut last_stats: BTreeMap<String, &Value> = BTreeMap::new();
    for r in recs_final.iter().filter(|r| r["event_type"] == "stats") {
        last_stats.insert(s(r, "host"), r);
    }
    assert_eq!(
        last_stats.keys().cloned().collect::<Vec<_>>(),
        names,
        "stats records per sensor"
    );
    let p1_pkts: u64 = flows1.values().map(|(a, b)| a + b).sum();
    let victim_pkts = pkts(last_stats[&victim]);
    assert!(
        victim_pkts > 0 && victim_pkts < p1_pkts,
        "{victim} counted {victim_pkts} of {p1_pkts} packets"
    );
}

/// Osprey joins the fanout group of a Suricata 7 sensor reading the same link with the
/// stock configuration (`cluster-id: 99`, `cluster_flow`, `defrag: yes`; Suricata joins
/// a group only with more than one thread): the kernel accepts a socket into a group
/// only with the group's mode and flags, so this shows they are Suricata's. With another
/// `defrag` or `cluster-type` the kernel refuses it, and Osprey says why.
#[test]
fn osprey_joins_the_fanout_group_of_a_suricata_sensor() {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root {
        return skip("not root");
    }
    if !runs("ip", "-V") {
        return skip("`ip` (iproute2) not installed");
    }
    if common::suricata().is_none() {
        return;
    }
    let ns = match Netns::new("j") {
        Ok(ns) => ns,
        Err(e) => return skip(&format!("cannot create network namespaces: {e}")),
    };
    let dir = common::tempdir("cluster-suricata");
    let (suri_log, osprey_log) = (dir.join("suricata"), dir.join("osprey"));
    std::fs::create_dir_all(&suri_log).unwrap();
    std::fs::create_dir_all(&osprey_log).unwrap();
    let stock = "/etc/suricata/suricata.yaml";
    if !Path::new(stock).exists() {
        return skip("no /etc/suricata/suricata.yaml");
    }
    let common_args = [
        "-c",
        stock,
        "--af-packet=va",
        "--set",
        "af-packet.0.interface=va",
        "--set",
        "unix-command.enabled=no",
        "-S",
        "/dev/null",
        "-k",
        "none",
    ];
    let mut suri = Netns::exec(&ns.sensors, &["suricata"]);
    suri.args(common_args)
        .args(["--set", "af-packet.0.threads=2", "-l"])
        .arg(&suri_log);
    let _suricata = start_until(suri, "Engine started", "suricata");
    let osprey = |extra: &[&str]| {
        let mut c = Netns::exec(
            &ns.sensors,
            &["timeout", "20", env!("CARGO_BIN_EXE_osprey")],
        );
        c.args(common_args)
            .args(["--set", "af-packet.0.threads=1", "--no-progress", "-l"])
            .arg(&osprey_log)
            .args(extra);
        c
    };
    let mut joined = start_until(
        osprey(&[]),
        "bound in fanout group 99 (cluster_flow, defrag)",
        "osprey",
    );
    sigint(&joined);
    let status = joined.wait(Duration::from_secs(30));
    assert!(status.success(), "osprey after SIGINT: {status:?}");
    for other in [
        "af-packet.0.defrag=no",
        "af-packet.0.cluster-type=cluster_cpu",
    ] {
        let out = osprey(&["--set", other]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains("PACKET_FANOUT") && err.contains("cluster-type"),
            "{other}: {:?} {err}",
            out.status
        );
    }
}

/// `sensor-name` names the sensor in every EVE record, as the last key `host`, exactly as
/// Suricata writes it (the stock configuration, on generated traffic with alerts).
#[test]
fn sensor_name_is_the_host_of_every_record_as_in_suricata() {
    if common::suricata().is_none() {
        return;
    }
    let stock = Path::new("/etc/suricata/suricata.yaml");
    if !stock.exists() {
        eprintln!("skipped: no /etc/suricata/suricata.yaml");
        return;
    }
    let dir = common::tempdir("cluster-sensor-name");
    let rules = dir.join("cluster.rules");
    std::fs::write(&rules, RULES).unwrap();
    let pcap = generate(&dir, "p", 3, &rules);
    let mut by_tool = Vec::new();
    for tool in ["suricata", env!("CARGO_BIN_EXE_osprey")] {
        let out = dir.join(if tool == "suricata" {
            "suricata"
        } else {
            "osprey"
        });
        std::fs::create_dir_all(&out).unwrap();
        let st = Command::new(tool)
            .arg("-c")
            .arg(stock)
            .args([
                "--set",
                "sensor-name=probe-1",
                "--set",
                "unix-command.enabled=no",
            ])
            .arg("-r")
            .arg(&pcap)
            .arg("-S")
            .arg(&rules)
            .args(["-k", "none", "--runmode", "single", "-l"])
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(st.success(), "{tool}: {st:?}");
        let text = std::fs::read_to_string(out.join("eve.json")).unwrap();
        let mut alerts = 0;
        for line in text.lines() {
            let r: Value = serde_json::from_str(line).unwrap();
            let last = r.as_object().and_then(|m| m.iter().next_back());
            assert_eq!(
                last,
                Some((&"host".to_string(), &Value::from("probe-1"))),
                "{tool}: {line}"
            );
            alerts += usize::from(r["event_type"] == "alert");
        }
        by_tool.push((alerts, text.lines().count()));
    }
    assert!(by_tool[0].0 >= 10, "{by_tool:?}");
    assert_eq!(by_tool[0].0, by_tool[1].0, "alerts (suricata, osprey)");
}
