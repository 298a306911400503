//! Live inline IPS end to end, as Suricata's AF_PACKET `copy-mode: ips`: three network
//! namespaces, client — osprey — server, joined by two veth pairs (client `c0` ↔ `b0`,
//! `b1` ↔ `s0` server) with Osprey bridging `b0` and `b1`. Real TCP connections from the
//! client to the server cross the bridge: a connection whose data matches a `drop` rule
//! never delivers a byte to the server, one matching a `reject` rule is reset at once,
//! and the other connections (before and after) get their replies; a UDP datagram
//! matching a `reject` rule is answered with an ICMP unreachable (the client's socket
//! reports it), a benign one is echoed; over IPv6 a benign connection passes and one
//! matching the drop rule delivers nothing. `replace` rules on the benign TCP and UDP
//! data alert and rewrite nothing (the server gets and echoes the original bytes,
//! `ips.replaced` stays 0), as Suricata 7.0.10's AF_PACKET inline mode, which loads
//! `replace` with a warning and applies it only in NFQ mode. Run once with
//! `--af-packet-ips b0:b1` and once with the suricata.yaml form (`--af-packet -c` with
//! `copy-mode: ips` and `copy-iface`).
//!
//! Needs root, `ip` (iproute2) and `ethtool` (offloads off: checksums must be complete
//! and frames no larger than the MTU to be forwarded). Skipped with a printed reason
//! otherwise, unless OSPREY_REQUIRE_NETNS=1 makes it mandatory.
#![cfg(target_os = "linux")]

mod common;

use common::{runs, sh};

use serde_json::Value;
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

const SERVER: &str = "10.213.0.2";
const CLIENT: &str = "10.213.0.1";
const SERVER6: &str = "fd00:213::2";
const CLIENT6: &str = "fd00:213::1";
const DROP_PORT: u16 = 8000;
const REJECT_PORT: u16 = 8001;
const UDP_PORT: u16 = 8002;

const RULES: &str = "\
drop tcp any any -> any 8000 (msg:\"inline test: drop\"; flow:to_server; content:\"EVIL-PAYLOAD\"; sid:9100001; rev:1;)
reject tcp any any -> any 8001 (msg:\"inline test: reject\"; flow:to_server; content:\"REJECT-ME\"; sid:9100002; rev:1;)
reject udp any any -> any 8002 (msg:\"inline test: udp reject\"; content:\"UDP-REJECT\"; sid:9100004; rev:1;)
alert tcp any any -> any 8000 (msg:\"inline test: benign\"; flow:to_server; content:\"hello\"; sid:9100003; rev:1;)
alert tcp any any -> any 8000 (msg:\"inline test: replace\"; flow:to_server; content:\"hello\"; replace:\"HOLA!\"; sid:9100005; rev:1;)
alert udp any any -> any 8002 (msg:\"inline test: udp replace\"; content:\"udp hello\"; replace:\"UDP HOLA!\"; sid:9100006; rev:1;)
";

fn skip(reason: &str) {
    common::skip_netns("inline IPS test", reason);
}

/// Client, bridge and server namespaces and the two veth pairs; removed on drop.
struct Topology {
    client: String,
    bridge: String,
    server: String,
}

impl Topology {
    fn new() -> Result<Topology, String> {
        let id = std::process::id();
        let t = Topology {
            client: format!("osprey-ic-{id}"),
            bridge: format!("osprey-ib-{id}"),
            server: format!("osprey-is-{id}"),
        };
        for ns in [&t.client, &t.bridge, &t.server] {
            sh(&["ip", "netns", "add", ns])?;
        }
        sh(&[
            "ip", "link", "add", "c0", "netns", &t.client, "type", "veth", "peer", "name", "b0",
            "netns", &t.bridge,
        ])?;
        sh(&[
            "ip", "link", "add", "s0", "netns", &t.server, "type", "veth", "peer", "name", "b1",
            "netns", &t.bridge,
        ])?;
        sh(&[
            "ip",
            "-n",
            &t.client,
            "addr",
            "add",
            &format!("{CLIENT}/24"),
            "dev",
            "c0",
        ])?;
        sh(&[
            "ip",
            "-n",
            &t.server,
            "addr",
            "add",
            &format!("{SERVER}/24"),
            "dev",
            "s0",
        ])?;
        for (ns, dev, addr) in [(&t.client, "c0", CLIENT6), (&t.server, "s0", SERVER6)] {
            let addr = format!("{addr}/64");
            sh(&[
                "ip", "-n", ns, "-6", "addr", "add", &addr, "dev", dev, "nodad",
            ])?;
        }
        for (ns, dev) in [
            (&t.client, "c0"),
            (&t.bridge, "b0"),
            (&t.bridge, "b1"),
            (&t.server, "s0"),
        ] {
            sh(&["ip", "-n", ns, "link", "set", dev, "up"])?;
            // Complete checksums and frames no larger than the MTU, as an inline
            // bridge needs (Suricata's IPS mode asks the same).
            sh(&[
                "ip", "netns", "exec", ns, "ethtool", "-K", dev, "tx", "off", "rx", "off", "gro",
                "off", "gso", "off", "tso", "off",
            ])?;
        }
        Ok(t)
    }
}

impl Drop for Topology {
    fn drop(&mut self) {
        for ns in [&self.client, &self.bridge, &self.server] {
            let _ = sh(&["ip", "netns", "del", ns]);
        }
    }
}

/// Moves the calling thread into network namespace `ns` (`ip netns` names).
fn enter(ns: &str) -> Result<(), String> {
    let f = std::fs::File::open(format!("/run/netns/{ns}")).map_err(|e| format!("{ns}: {e}"))?;
    // SAFETY: setns(2) on a valid, open namespace file descriptor; it changes only the
    // calling thread's network namespace.
    if unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(format!("setns {ns}: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}

/// Bytes the server received, per connection: (port, data).
type Received = Arc<Mutex<Vec<(u16, Vec<u8>)>>>;

/// An echo server in the server namespace on both TCP ports (IPv4; the drop port on IPv6
/// too) and the UDP port: every chunk it reads is recorded and answered with `pong:` +
/// the chunk. Runs until `stop` (join the handle
/// to have the ports free again).
fn serve(
    ns: String,
    stop: Arc<AtomicBool>,
    received: Received,
) -> (mpsc::Receiver<String>, thread::JoinHandle<()>) {
    let (ready, rx) = mpsc::channel();
    let h = thread::spawn(move || {
        let sockets = enter(&ns).and_then(|()| {
            let listeners = [
                (SERVER, DROP_PORT),
                (SERVER, REJECT_PORT),
                (SERVER6, DROP_PORT),
            ]
            .iter()
            .map(|(a, p)| {
                let l = TcpListener::bind((*a, *p)).map_err(|e| e.to_string())?;
                l.set_nonblocking(true).map_err(|e| e.to_string())?;
                Ok(l)
            })
            .collect::<Result<Vec<_>, String>>()?;
            let udp = UdpSocket::bind((SERVER, UDP_PORT)).map_err(|e| e.to_string())?;
            udp.set_nonblocking(true).map_err(|e| e.to_string())?;
            Ok((listeners, udp))
        });
        let (listeners, udp) = match sockets {
            Ok(l) => {
                let _ = ready.send(String::new());
                l
            }
            Err(e) => {
                let _ = ready.send(e);
                return;
            }
        };
        let mut buf = [0u8; 2048];
        while !stop.load(Ordering::SeqCst) {
            let mut idle = true;
            if let Ok((n, from)) = udp.recv_from(&mut buf) {
                idle = false;
                received.lock().unwrap().push((UDP_PORT, buf[..n].to_vec()));
                let mut reply = b"pong:".to_vec();
                reply.extend_from_slice(&buf[..n]);
                let _ = udp.send_to(&reply, from);
            }
            for l in &listeners {
                if let Ok((conn, _)) = l.accept() {
                    idle = false;
                    let port = l.local_addr().map_or(0, |a| a.port());
                    let (stop, received) = (stop.clone(), received.clone());
                    thread::spawn(move || handle(conn, port, &stop, &received));
                }
            }
            if idle {
                thread::sleep(Duration::from_millis(10));
            }
        }
    });
    (rx, h)
}

fn handle(
    mut conn: TcpStream,
    port: u16,
    stop: &AtomicBool,
    received: &Mutex<Vec<(u16, Vec<u8>)>>,
) {
    let _ = conn.set_nonblocking(false);
    let _ = conn.set_read_timeout(Some(Duration::from_millis(100)));
    let slot = {
        let mut r = received.lock().unwrap();
        r.push((port, Vec::new()));
        r.len() - 1
    };
    let mut buf = [0u8; 4096];
    while !stop.load(Ordering::SeqCst) {
        match conn.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                received.lock().unwrap()[slot]
                    .1
                    .extend_from_slice(&buf[..n]);
                let mut reply = b"pong:".to_vec();
                reply.extend_from_slice(&buf[..n]);
                if conn.write_all(&reply).is_err() {
                    break;
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => break,
        }
    }
}

/// What one client connection saw.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    /// The server's answer.
    Reply(Vec<u8>),
    /// No answer within the wait.
    Silence,
    /// The connection was reset.
    Reset,
    /// An ICMP unreachable answered (UDP).
    Unreachable,
    /// Anything else (connect failure...).
    Error(String),
}

/// Sends `data` in a UDP datagram from the client namespace to the server's UDP port
/// and waits up to `wait` for the answer.
fn udp_exchange(ns: &str, data: &'static [u8], wait: Duration) -> Outcome {
    let ns = ns.to_string();
    thread::spawn(move || {
        if let Err(e) = enter(&ns) {
            return Outcome::Error(e);
        }
        let sock = match UdpSocket::bind((CLIENT, 0)).and_then(|s| {
            s.connect((SERVER, UDP_PORT))?;
            s.set_read_timeout(Some(wait))?;
            Ok(s)
        }) {
            Ok(s) => s,
            Err(e) => return Outcome::Error(format!("udp socket: {e}")),
        };
        if let Err(e) = sock.send(data) {
            return Outcome::Error(format!("send: {e}"));
        }
        let mut buf = [0u8; 2048];
        match sock.recv(&mut buf) {
            Ok(n) => Outcome::Reply(buf[..n].to_vec()),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                Outcome::Silence
            }
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::HostUnreachable | ErrorKind::ConnectionRefused
                ) =>
            {
                Outcome::Unreachable
            }
            Err(e) => Outcome::Error(e.to_string()),
        }
    })
    .join()
    .unwrap_or_else(|_| Outcome::Error("client thread panicked".into()))
}

/// Connects from the client namespace to `server`:`port`, sends `data`, waits up to
/// `wait` for the answer.
fn exchange(ns: &str, server: &str, port: u16, data: &'static [u8], wait: Duration) -> Outcome {
    let ns = ns.to_string();
    let server = server.to_string();
    thread::spawn(move || {
        if let Err(e) = enter(&ns) {
            return Outcome::Error(e);
        }
        let ip: std::net::IpAddr = server.parse().unwrap();
        let addr = SocketAddr::new(ip, port);
        let mut c = match TcpStream::connect_timeout(&addr, Duration::from_secs(3)) {
            Ok(c) => c,
            Err(e) => return Outcome::Error(format!("connect: {e}")),
        };
        if let Err(e) = c.write_all(data) {
            return Outcome::Error(format!("send: {e}"));
        }
        let _ = c.set_read_timeout(Some(wait));
        let mut buf = [0u8; 4096];
        match c.read(&mut buf) {
            Ok(n) if n > 0 => Outcome::Reply(buf[..n].to_vec()),
            Ok(_) => Outcome::Error("closed".into()),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => Outcome::Reset,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                Outcome::Silence
            }
            Err(e) => Outcome::Error(e.to_string()),
        }
    })
    .join()
    .unwrap_or_else(|_| Outcome::Error("client thread panicked".into()))
}

fn pong(data: &[u8]) -> Outcome {
    let mut v = b"pong:".to_vec();
    v.extend_from_slice(data);
    Outcome::Reply(v)
}

/// Starts osprey in the bridge namespace and waits until its sockets are open.
fn start(topo: &Topology, args: &[&str], out: &Path) -> Result<Child, String> {
    // `-l` names an existing directory (as in Suricata).
    std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
    let mut child = Command::new("ip")
        .args(["netns", "exec", &topo.bridge, env!("CARGO_BIN_EXE_osprey")])
        .args(args)
        .args([
            "--threads",
            "2",
            "-k",
            "none",
            "--no-progress",
            "--gpu",
            "off",
        ])
        .arg("-l")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let (tx, rx) = mpsc::channel();
    let stderr = child.stderr.take().expect("stderr piped");
    thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let t = Instant::now();
    let mut log = Vec::new();
    loop {
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(line) if line.contains("capturing on") => break,
            Ok(line) => log.push(line),
            Err(_) => {
                let _ = child.kill();
                return Err(format!("osprey did not start: {log:?}"));
            }
        }
        if t.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            return Err("osprey did not start in 30 s".into());
        }
    }
    // The sockets are opened right after that line.
    thread::sleep(Duration::from_millis(700));
    Ok(child)
}

/// SIGINT, then the stats.json it wrote.
fn stop(mut child: Child, out: &Path) -> Result<Value, String> {
    sh(&["kill", "-INT", &child.id().to_string()])?;
    let t = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().map_err(|e| e.to_string())? {
            break st;
        }
        if t.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            return Err("osprey did not stop on SIGINT".into());
        }
        thread::sleep(Duration::from_millis(20));
    };
    if !status.success() {
        return Err(format!("osprey exit status {status:?}"));
    }
    Ok(common::stats(out))
}

fn counter(stats: &Value, path: &str) -> u64 {
    path.split('.')
        .fold(stats, |v, k| &v[k])
        .as_u64()
        .unwrap_or(0)
}

/// EVE alerts: (signature id, action).
fn alerts(out: &Path) -> Vec<(u64, String)> {
    let text = std::fs::read_to_string(out.join("eve.json")).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|o| o["event_type"] == "alert")
        .map(|o| {
            (
                o["alert"]["signature_id"].as_u64().unwrap_or(0),
                o["alert"]["action"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// One osprey run: benign, dropped, rejected (when `reject`) and benign connections.
fn scenario(topo: &Topology, args: &[&str], out: &Path, reject: bool) -> Result<(), String> {
    let received: Received = Arc::default();
    let stop_server = Arc::new(AtomicBool::new(false));
    let (ready, server) = serve(topo.server.clone(), stop_server.clone(), received.clone());
    match ready.recv_timeout(Duration::from_secs(5)) {
        Ok(e) if e.is_empty() => {}
        Ok(e) => return Err(format!("server: {e}")),
        Err(_) => return Err("server did not start".into()),
    }
    let child = match start(topo, args, out) {
        Ok(c) => c,
        Err(e) => {
            stop_server.store(true, Ordering::SeqCst);
            let _ = server.join();
            return Err(e);
        }
    };
    let wait = Duration::from_secs(2);
    let mut failures = Vec::new();
    let mut check = |what: &str, got: Outcome, want: Outcome| {
        if got != want {
            failures.push(format!("{what}: expected {want:?}, got {got:?}"));
        }
    };
    check(
        "benign connection before",
        exchange(&topo.client, SERVER, DROP_PORT, b"hello one", wait),
        pong(b"hello one"),
    );
    check(
        "connection matching the drop rule",
        exchange(&topo.client, SERVER, DROP_PORT, b"GET /EVIL-PAYLOAD", wait),
        Outcome::Silence,
    );
    if reject {
        check(
            "connection matching the reject rule",
            exchange(&topo.client, SERVER, REJECT_PORT, b"REJECT-ME", wait),
            Outcome::Reset,
        );
        check(
            "UDP datagram matching the reject rule",
            udp_exchange(&topo.client, b"UDP-REJECT", wait),
            Outcome::Unreachable,
        );
        check(
            "benign UDP datagram",
            udp_exchange(&topo.client, b"udp hello", wait),
            pong(b"udp hello"),
        );
        check(
            "benign IPv6 connection",
            exchange(&topo.client, SERVER6, DROP_PORT, b"hello six", wait),
            pong(b"hello six"),
        );
        check(
            "IPv6 connection matching the drop rule",
            exchange(&topo.client, SERVER6, DROP_PORT, b"v6 EVIL-PAYLOAD", wait),
            Outcome::Silence,
        );
    }
    check(
        "benign connection after",
        exchange(&topo.client, SERVER, DROP_PORT, b"hello two", wait),
        pong(b"hello two"),
    );
    let stats = stop(child, out);
    stop_server.store(true, Ordering::SeqCst);
    let _ = server.join();
    let stats = stats?;
    // The dropped data never reached the server, the benign data did.
    let got = received.lock().unwrap().clone();
    let seen = |needle: &[u8]| {
        got.iter()
            .any(|(_, d)| d.windows(needle.len()).any(|w| w == needle))
    };
    if seen(b"EVIL-PAYLOAD") || seen(b"REJECT-ME") || seen(b"UDP-REJECT") {
        failures.push(format!("the server received blocked data: {got:?}"));
    }
    if !seen(b"hello one") || !seen(b"hello two") {
        failures.push(format!("the server missed benign data: {got:?}"));
    }
    let alerts = alerts(out);
    for (sid, action) in [
        (9100001, "blocked"),
        (9100003, "allowed"),
        (9100005, "allowed"),
    ] {
        if !alerts.iter().any(|(s, a)| *s == sid && a == action) {
            failures.push(format!("no alert {sid} {action}: {alerts:?}"));
        }
    }
    if reject && !alerts.iter().any(|(s, _)| *s == 9100006) {
        failures.push(format!("no alert 9100006 (udp replace): {alerts:?}"));
    }
    match stats["ips"]["replaced"].as_u64() {
        Some(0) => {}
        other => failures.push(format!("ips.replaced: expected 0, got {other:?}")),
    }
    let blocked = counter(&stats, "ips.blocked");
    let forwarded = counter(&stats, "osprey.inline.forwarded");
    let rejects = counter(&stats, "osprey.inline.rejects_sent");
    if blocked == 0 || forwarded == 0 || (reject && rejects == 0) {
        failures.push(format!(
            "counters: ips.blocked={blocked} osprey.inline.forwarded={forwarded} \
             osprey.inline.rejects_sent={rejects}"
        ));
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}

#[test]
fn inline_ips_blocks_dropped_flows_and_forwards_the_rest() {
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
    if !runs("ethtool", "--version") {
        return skip("ethtool not installed");
    }
    let topo = match Topology::new() {
        Ok(t) => t,
        Err(e) => return skip(&format!("cannot set up the namespaces: {e}")),
    };
    let dir = common::tempdir("inline-netns");
    let rules = dir.join("inline.rules");
    std::fs::write(&rules, RULES).unwrap();
    let rules = rules.to_str().unwrap().to_string();
    let mut failures = Vec::new();

    let out = dir.join("option");
    std::fs::create_dir_all(&out).unwrap();
    let args = ["--af-packet-ips", "b0:b1", "-S", &rules];
    if let Err(e) = scenario(&topo, &args, &out, true) {
        failures.push(format!("--af-packet-ips: {e}"));
    }

    let out = dir.join("yaml");
    std::fs::create_dir_all(&out).unwrap();
    let yaml: PathBuf = dir.join("suricata.yaml");
    std::fs::write(
        &yaml,
        "%YAML 1.1\n---\naf-packet:\n  - interface: b0\n    cluster-id: 99\n    copy-mode: ips\n    copy-iface: b1\n  - interface: b1\n    cluster-id: 98\n    copy-mode: ips\n    copy-iface: b0\n",
    )
    .unwrap();
    let args = ["--af-packet", "-c", yaml.to_str().unwrap(), "-S", &rules];
    if let Err(e) = scenario(&topo, &args, &out, false) {
        failures.push(format!("--af-packet -c (yaml): {e}"));
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
