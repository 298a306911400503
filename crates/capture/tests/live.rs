//! Live AF_PACKET capture, end to end: a veth pair in a fresh network namespace, frames
//! sent on one end with a raw socket, read on the other through the TPACKET_V3 ring.
//!
//! Needs root (CAP_NET_ADMIN, CAP_NET_RAW) and `ip` (iproute2). Skipped with a printed
//! reason otherwise, unless OSPREY_REQUIRE_NETNS=1 makes it mandatory.
#![cfg(target_os = "linux")]

use std::collections::HashMap;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use capture::{Batch, CaptureStats, LinkType, LiveOptions, Source};

const TEST_ETHERTYPE: [u8; 2] = [0x88, 0xb5];

fn skip(reason: &str) {
    if std::env::var("OSPREY_REQUIRE_NETNS").as_deref() == Ok("1") {
        panic!("live capture test cannot run: {reason} (OSPREY_REQUIRE_NETNS=1)");
    }
    eprintln!("skipped: {reason}");
}

fn ip(args: &str) {
    let st = Command::new("ip")
        .args(args.split(' '))
        .status()
        .expect("run ip");
    assert!(st.success(), "ip {args} failed");
}

/// Runs `body` on a thread inside a fresh network namespace holding a veth pair
/// `va` <-> `vb`, both up. Returns `false` (after printing why) if that is impossible.
fn in_netns(body: impl FnOnce() + Send + 'static) -> bool {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        skip("not root");
        return false;
    }
    if Command::new("ip").arg("-V").output().is_err() {
        skip("`ip` (iproute2) not installed");
        return false;
    }
    let t = std::thread::spawn(move || {
        // A network namespace belongs to the thread: this one gets its own, and it
        // disappears when the thread and its sockets are gone.
        // SAFETY: plain unshare(2) call affecting only this thread.
        if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
            return Err(format!(
                "unshare(CLONE_NEWNET): {}",
                std::io::Error::last_os_error()
            ));
        }
        ip("link add va type veth peer name vb");
        ip("link set va up");
        ip("link set vb up");
        body();
        Ok(())
    });
    match t.join().expect("live test thread panicked") {
        Ok(()) => true,
        Err(reason) => {
            skip(&reason);
            false
        }
    }
}

/// A raw sender on an interface.
struct Sender {
    fd: i32,
    addr: libc::sockaddr_ll,
}

impl Sender {
    fn new(iface: &str) -> Sender {
        let name = std::ffi::CString::new(iface).unwrap();
        // SAFETY: valid NUL-terminated name; plain socket call.
        let (ifindex, fd) = unsafe {
            (
                libc::if_nametoindex(name.as_ptr()),
                libc::socket(libc::AF_PACKET, libc::SOCK_RAW, 0),
            )
        };
        assert!(ifindex > 0 && fd >= 0);
        // SAFETY: all-zero is a valid sockaddr_ll.
        let mut addr: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        addr.sll_family = libc::AF_PACKET as u16;
        addr.sll_ifindex = ifindex as i32;
        addr.sll_halen = 6;
        Sender { fd, addr }
    }

    fn send(&self, frame: &[u8]) {
        // SAFETY: `frame` and `addr` are valid for the lengths given.
        let n = unsafe {
            libc::sendto(
                self.fd,
                frame.as_ptr().cast(),
                frame.len(),
                0,
                (&self.addr as *const libc::sockaddr_ll).cast(),
                std::mem::size_of::<libc::sockaddr_ll>() as u32,
            )
        };
        assert_eq!(
            n,
            frame.len() as isize,
            "{}",
            std::io::Error::last_os_error()
        );
    }
}

impl Drop for Sender {
    fn drop(&mut self) {
        // SAFETY: we own the descriptor.
        unsafe { libc::close(self.fd) };
    }
}

/// Ends a capture whose frames never all arrive (the test then fails on the count).
const WATCHDOG: Duration = Duration::from_secs(10);

const MACS: [u8; 12] = [2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2];

fn test_frame(seq: u32, vlan: bool) -> Vec<u8> {
    let mut f = MACS.to_vec();
    if vlan {
        f.extend_from_slice(&[0x81, 0x00, 0x20, 0x64]);
    }
    f.extend_from_slice(&TEST_ETHERTYPE);
    f.extend_from_slice(&seq.to_be_bytes());
    f.resize(f.len() + 50, seq as u8);
    f
}

fn is_test_frame(data: &[u8]) -> bool {
    data.len() > 16
        && data[..12] == MACS
        && (data[12..14] == TEST_ETHERTYPE || data[16..18] == TEST_ETHERTYPE)
}

/// Reads `src` until `want` test frames arrived or `stop` is raised, keeping the test frames.
fn collect(
    src: &mut dyn Source,
    want: usize,
) -> (Vec<(Vec<u8>, u64, capture::Timestamp)>, CaptureStats) {
    let mut batch = Batch::new();
    let mut got = Vec::new();
    let mut last_index = 0;
    while src.next_batch(&mut batch, 128).unwrap() > 0 {
        for f in batch.iter() {
            assert!(f.index > last_index);
            last_index = f.index;
            assert_eq!(f.link, LinkType::ETHERNET);
            assert!(f.wire_len as usize >= f.data.len());
            if is_test_frame(f.data) {
                got.push((f.data.to_vec(), f.index, f.ts));
            }
        }
        if got.len() >= want {
            break;
        }
    }
    (got, src.stats())
}

fn stop_after(stop: &Arc<AtomicBool>, d: Duration) {
    let stop = Arc::clone(stop);
    std::thread::spawn(move || {
        std::thread::sleep(d);
        stop.store(true, Ordering::Relaxed);
    });
}

#[test]
fn veth_frames_arrive_intact_with_kernel_counters() {
    in_netns(|| {
        let opts = LiveOptions {
            block_size: 1 << 16,
            block_count: 8,
            ..LiveOptions::default()
        };
        let stop = Arc::clone(&opts.stop);
        let mut src = capture::open_live("va", opts).expect("open va");
        let sender = Sender::new("vb");
        let sent: Vec<Vec<u8>> = (0..200).map(|i| test_frame(i, i % 10 == 3)).collect();
        let before = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        for f in &sent {
            sender.send(f);
        }
        // The block timeout (10 ms) hands partial blocks over; the watchdog only ends a
        // capture that lost frames.
        stop_after(&stop, WATCHDOG);
        let (got, stats) = collect(&mut *src, sent.len());
        let frames: Vec<_> = got.iter().map(|g| g.0.clone()).collect();
        // Tagged frames come back with their 802.1Q tag re-inserted.
        assert_eq!(frames, sent);
        assert!(got.iter().all(|g| g.2.secs >= before.as_secs() as i64 - 1));
        assert!(got.windows(2).all(|w| w[0].2 <= w[1].2));
        assert!(stats.packets >= 200);
        assert!(stats.kernel_packets >= 200, "{stats:?}");
        assert_eq!(stats.kernel_drops, 0);
        // A second stats call keeps the totals (the kernel resets its own on each read).
        assert!(src.stats().kernel_packets >= stats.kernel_packets);
    });
}

fn udp_frame(flow: u16, seq: u8) -> Vec<u8> {
    let mut f = MACS.to_vec();
    f.extend_from_slice(&[0x08, 0x00]);
    let total: u16 = 20 + 8 + 4;
    let mut ip = vec![
        0x45, 0, 0, 0, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
    ];
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    let sum = ip
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], c[1]])))
        .sum::<u32>();
    let sum = (sum & 0xffff) + (sum >> 16);
    ip[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
    f.extend_from_slice(&ip);
    f.extend_from_slice(&(1000 + flow).to_be_bytes());
    f.extend_from_slice(&53u16.to_be_bytes());
    f.extend_from_slice(&12u16.to_be_bytes());
    f.extend_from_slice(&[0, 0, 0xee, 0xee, flow as u8, seq]);
    f
}

#[test]
fn fanout_hash_gives_each_flow_to_one_socket() {
    in_netns(|| {
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(AtomicUsize::new(0));
        let opts = LiveOptions {
            fanout_group: Some(0x0517),
            block_size: 1 << 16,
            block_count: 4,
            stop: Arc::clone(&stop),
            ..LiveOptions::default()
        };
        let workers: Vec<_> = (0..2)
            .map(|_| capture::open_live("va", opts.clone()).expect("open va in fanout group"))
            .map(|mut src| {
                let seen = Arc::clone(&seen);
                std::thread::spawn(move || {
                    let mut batch = Batch::new();
                    let mut flows = Vec::new();
                    while src.next_batch(&mut batch, 128).unwrap() > 0 {
                        for f in batch.iter() {
                            let d = f.data;
                            if d.len() == 46 && d[..12] == MACS && d[42..44] == [0xee, 0xee] {
                                flows.push(d[44]);
                                seen.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    }
                    flows
                })
            })
            .collect();
        let sender = Sender::new("vb");
        for seq in 0..10 {
            for flow in 0..16 {
                sender.send(&udp_frame(flow, seq));
            }
        }
        let t = Instant::now();
        while seen.load(Ordering::Relaxed) < 160 && t.elapsed() < WATCHDOG {
            std::thread::sleep(Duration::from_millis(5));
        }
        stop.store(true, Ordering::Relaxed);
        let per_worker: Vec<Vec<u8>> = workers.into_iter().map(|w| w.join().unwrap()).collect();
        let total: usize = per_worker.iter().map(Vec::len).sum();
        assert_eq!(total, 160, "every frame reaches exactly one worker");
        let mut owner: HashMap<u8, usize> = HashMap::new();
        for (w, flows) in per_worker.iter().enumerate() {
            for &flow in flows {
                assert_eq!(*owner.entry(flow).or_insert(w), w, "flow {flow} split");
            }
        }
        assert_eq!(owner.len(), 16);
        eprintln!(
            "frames per worker: {:?}",
            per_worker.iter().map(Vec::len).collect::<Vec<_>>()
        );
    });
}

#[test]
fn stop_ends_an_idle_capture_promptly() {
    in_netns(|| {
        let opts = LiveOptions::default();
        let stop = Arc::clone(&opts.stop);
        let mut src = capture::open_live("va", opts).unwrap();
        stop_after(&stop, Duration::from_millis(200));
        let t = Instant::now();
        let mut batch = Batch::new();
        while src.next_batch(&mut batch, 128).unwrap() > 0 {}
        assert!(t.elapsed() < Duration::from_secs(5));
    });
}

#[test]
fn a_wake_counter_returns_an_idle_capture_early_without_ending_it() {
    in_netns(|| {
        let wake = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let opts = LiveOptions {
            wake: Some(Arc::clone(&wake)),
            ..LiveOptions::default()
        };
        let stop = Arc::clone(&opts.stop);
        let mut src = capture::open_live("va", opts).unwrap();
        let bump = Arc::clone(&wake);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(150));
            bump.fetch_add(1, Ordering::Relaxed);
        });
        let t = Instant::now();
        let mut batch = Batch::new();
        // (Frames the link carries meanwhile, IPv6 neighbour discovery, come first.)
        while src.next_batch(&mut batch, 128).unwrap() > 0 {}
        assert!(!src.ended(), "woken, not ended");
        assert!(t.elapsed() >= Duration::from_millis(150) && t.elapsed() < Duration::from_secs(5));
        // Not woken again: it waits until stopped, then ends.
        stop_after(&stop, Duration::from_millis(200));
        while src.next_batch(&mut batch, 128).unwrap() > 0 {}
        assert!(src.ended());
    });
}

#[test]
fn kernel_bpf_filter_keeps_only_matching_frames() {
    in_netns(|| {
        // tcpdump -ddd 'ether proto 0x88b5'
        let prog =
            capture::parse_bpf_program("4\n40 0 0 12\n21 0 1 34997\n6 0 0 262144\n6 0 0 0\n")
                .unwrap();
        let opts = LiveOptions {
            filter: Some(prog),
            block_size: 1 << 16,
            block_count: 4,
            ..LiveOptions::default()
        };
        let stop = Arc::clone(&opts.stop);
        let mut src = capture::open_live("va", opts).expect("open va with a filter");
        let sender = Sender::new("vb");
        for i in 0..20u8 {
            sender.send(&udp_frame(u16::from(i), i));
            sender.send(&test_frame(u32::from(i), false));
        }
        stop_after(&stop, WATCHDOG);
        let (got, _) = collect(&mut *src, 20);
        assert_eq!(got.len(), 20);
        // Nothing else passed the filter (not the UDP frames, not IPv6 neighbour chatter).
        let stats = src.stats();
        assert_eq!(stats.packets, 20, "{stats:?}");
        // A program the kernel rejects is a one-line error.
        let bad = LiveOptions {
            filter: Some(capture::parse_bpf_program("1\n65535 0 0 0").unwrap()),
            ..LiveOptions::default()
        };
        let err = capture::open_live("va", bad)
            .err()
            .expect("must fail")
            .to_string();
        assert!(err.starts_with("live capture on va: BPF filter: "), "{err}");
    });
}

/// An inline bridge between `vb` and `vc` (two veth pairs: va ↔ vb, vc ↔ vd): frames sent
/// on `va` come out of `vd` and frames sent on `vd` come out of `va`, byte for byte (802.1Q
/// tags the kernel strips into the TPACKET_V2 header included), each read on its ingress
/// side with `Frame::interface` 0 or 1; nothing the bridge sends is read back.
#[test]
fn bridge_forwards_frames_intact_both_ways() {
    in_netns(|| {
        ip("link add vc type veth peer name vd");
        ip("link set vc up");
        ip("link set vd up");
        let opts = LiveOptions {
            block_size: 1 << 16,
            block_count: 8,
            ..LiveOptions::default()
        };
        let stop = Arc::clone(&opts.stop);
        let mut bridge = capture::Bridge::open("vb", "vc", &opts).expect("open bridge");
        assert_eq!(bridge.interfaces(), ["vb", "vc"]);
        let passive = LiveOptions {
            block_size: 1 << 16,
            block_count: 8,
            ..LiveOptions::default()
        };
        let stop_taps = Arc::clone(&passive.stop);
        let mut at_vd = capture::open_live("vd", passive.clone()).expect("open vd");
        let mut at_va = capture::open_live("va", passive).expect("open va");
        let forward = std::thread::spawn(move || {
            let mut batch = Batch::new();
            let mut sides = [0usize; 2];
            while bridge.next_batch(&mut batch, 128).unwrap() > 0 {
                for f in batch.iter() {
                    if is_test_frame(f.data) {
                        sides[f.interface as usize] += 1;
                        assert!(bridge.forward(&f));
                    }
                }
            }
            (sides, bridge.stats())
        });
        let east: Vec<Vec<u8>> = (0..100).map(|i| test_frame(i, i % 7 == 2)).collect();
        let west: Vec<Vec<u8>> = (100..150).map(|i| test_frame(i, i % 5 == 1)).collect();
        let (to_east, to_west) = (Sender::new("va"), Sender::new("vd"));
        for f in &east {
            to_east.send(f);
        }
        for f in &west {
            to_west.send(f);
        }
        stop_after(&stop_taps, WATCHDOG);
        // The taps also see what their own end sent (outgoing): keep the forwarded ones.
        let all = east.len() + west.len();
        let got_east = collect(&mut *at_vd, all).0.into_iter().map(|g| g.0);
        let got_east: Vec<_> = got_east.filter(|f| !west.contains(f)).collect();
        let got_west = collect(&mut *at_va, all).0.into_iter().map(|g| g.0);
        let got_west: Vec<_> = got_west.filter(|f| !east.contains(f)).collect();
        stop.store(true, Ordering::Relaxed);
        let (sides, stats) = forward.join().unwrap();
        assert!(
            got_east == east,
            "east: {} of {} frames, or altered",
            got_east.len(),
            east.len()
        );
        assert!(
            got_west == west,
            "west: {} of {} frames, or altered",
            got_west.len(),
            west.len()
        );
        assert_eq!(sides, [east.len(), west.len()]);
        assert!(stats.forwarded >= 150, "{stats:?}");
        assert_eq!(stats.forward_errors, 0);
    });
}
