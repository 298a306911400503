//! Parser throughput on synthetic traffic: HTTP keep-alive streams (plain, chunked,
//! gzip), DNS datagrams and TLS ClientHellos, fed in 1,460-byte segments.
//!
//! `cargo bench -p app --bench parse`

use std::io::Write;

use app::{AppCtx, AppFlow, Direction, Transport};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn http_streams() -> (Vec<u8>, Vec<u8>) {
    let mut req = Vec::new();
    let mut res = Vec::new();
    let page = b"<html><body>hello world, this is a page of text</body></html>\n".repeat(40);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&page).unwrap();
    let gz = gz.finish().unwrap();
    for i in 0..100 {
        req.extend_from_slice(
            format!(
                "GET /path/to/resource/{i}/index.html?q=%41%42&x=y HTTP/1.1\r\nHost: www.example.com\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/120.0\r\nAccept: text/html,application/xhtml+xml\r\nAccept-Language: en-US,en;q=0.5\r\nAccept-Encoding: gzip, deflate\r\nCookie: session=abcdef0123456789\r\nConnection: keep-alive\r\n\r\n"
            )
            .as_bytes(),
        );
        match i % 3 {
            0 => {
                res.extend_from_slice(
                    format!("HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n", page.len()).as_bytes(),
                );
                res.extend_from_slice(&page);
            }
            1 => {
                res.extend_from_slice(
                    b"HTTP/1.1 200 OK\r\nServer: nginx\r\nTransfer-Encoding: chunked\r\n\r\n",
                );
                for c in page.chunks(500) {
                    res.extend_from_slice(format!("{:x}\r\n", c.len()).as_bytes());
                    res.extend_from_slice(c);
                    res.extend_from_slice(b"\r\n");
                }
                res.extend_from_slice(b"0\r\n\r\n");
            }
            _ => {
                res.extend_from_slice(
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
                        gz.len()
                    )
                    .as_bytes(),
                );
                res.extend_from_slice(&gz);
            }
        }
    }
    (req, res)
}

fn bench(c: &mut Criterion) {
    let (req, res) = http_streams();
    let mut g = c.benchmark_group("app");
    g.throughput(Throughput::Bytes((req.len() + res.len()) as u64));
    g.bench_function("http_keepalive_100tx", |b| {
        b.iter(|| {
            let mut ctx = AppCtx::default();
            let mut f = AppFlow::new(Transport::Tcp, 40000, 80);
            let (mut r, mut s) = (req.chunks(1460), res.chunks(1460));
            loop {
                let a = r.next();
                let b2 = s.next();
                if let Some(a) = a {
                    f.parse(&mut ctx, Direction::ToServer, a);
                }
                if let Some(b2) = b2 {
                    f.parse(&mut ctx, Direction::ToClient, b2);
                }
                if a.is_none() && b2.is_none() {
                    break;
                }
            }
            f.close(&mut ctx);
            f.http().map(|h| h.tx_count())
        })
    });
    let mut q = vec![0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0];
    for l in ["www", "example", "com"] {
        q.push(l.len() as u8);
        q.extend_from_slice(l.as_bytes());
    }
    q.extend_from_slice(&[0, 0, 1, 0, 1]);
    g.throughput(Throughput::Elements(1));
    g.bench_function("dns_udp_query", |b| {
        let mut ctx = AppCtx::default();
        b.iter(|| {
            let mut f = AppFlow::new(Transport::Udp, 40000, 53);
            f.datagram(&mut ctx, Direction::ToServer, &q);
            f.dns().map(|d| d.tx_count())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
