//! The alert sink: turns detector alerts into EVE JSON records and fast.log lines,
//! written by background threads, and counts them.

use crate::detection::Origin;
use detect::{Alert, Detector};
use output::{AlertRecord, LineWriter};
use rules::classification::Classifications;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::Path;
use wire::Packet;

/// Where alerts go.
pub(crate) struct AlertSink {
    eve: Option<LineWriter>,
    fast: Option<LineWriter>,
    classifications: Option<Classifications>,
    /// Alerts raised (`detect.alert`).
    pub(crate) count: u64,
    /// Lines that could not be queued for writing.
    pub(crate) write_errors: u64,
}

impl AlertSink {
    /// A sink writing `eve.json` and `fast.log` into `log_dir`; `None` writes nothing
    /// (alerts are still counted).
    pub(crate) fn new(
        log_dir: Option<&Path>,
        classifications: Option<Classifications>,
    ) -> io::Result<AlertSink> {
        let (eve, fast) = match log_dir {
            Some(dir) => (
                Some(LineWriter::create(&dir.join("eve.json"))?),
                Some(LineWriter::create(&dir.join("fast.log"))?),
            ),
            None => (None, None),
        };
        Ok(AlertSink {
            eve,
            fast,
            classifications,
            count: 0,
            write_errors: 0,
        })
    }

    /// Records one alert raised on `pkt`.
    pub(crate) fn alert(
        &mut self,
        det: &Detector,
        alert: &Alert,
        pkt: &Packet,
        origin: Origin,
        app_proto: Option<&str>,
    ) {
        self.count += 1;
        if self.eve.is_none() && self.fast.is_none() {
            return;
        }
        let info = det.rule(alert.rule);
        let msg = info.map_or("", |i| i.msg.as_str());
        let category = info
            .and_then(|i| i.classtype.as_deref())
            .and_then(|c| self.classifications.as_ref()?.get(c))
            .map_or("", |c| c.description.as_str());
        let metadata: Vec<(String, String)> = info
            .map(|i| {
                i.metadata
                    .iter()
                    .filter_map(|m| {
                        let m = m.trim();
                        let (k, v) = m.split_once(char::is_whitespace)?;
                        Some((k.to_string(), v.trim().to_string()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let has_ports = matches!(pkt.proto, 6 | 17 | 132);
        let record = AlertRecord {
            ts_secs: pkt.ts.secs() as i64,
            ts_micros: pkt.ts.subsec_nanos() / 1000,
            flow_id: origin
                .flow_key
                .as_ref()
                .map_or(0, crate::detection::flow_id),
            pcap_cnt: origin.pcap_cnt,
            src_ip: ip(&pkt.src, pkt.ip_version),
            src_port: has_ports.then_some(pkt.sport),
            dest_ip: ip(&pkt.dst, pkt.ip_version),
            dest_port: has_ports.then_some(pkt.dport),
            proto: pkt.proto,
            app_proto,
            action: match alert.action {
                rules::Action::Drop
                | rules::Action::Reject
                | rules::Action::RejectSrc
                | rules::Action::RejectDst
                | rules::Action::RejectBoth => "blocked",
                _ => "allowed",
            },
            gid: alert.gid,
            sid: alert.sid,
            rev: alert.rev,
            signature: msg,
            category,
            severity: alert.priority,
            metadata: &metadata,
            extra: &[],
        };
        if let Some(eve) = &self.eve {
            if eve
                .write_line(record.to_eve().to_string().into_bytes())
                .is_err()
            {
                self.write_errors += 1;
            }
        }
        if let Some(fast) = &self.fast {
            if fast.write_line(record.to_fast().into_bytes()).is_err() {
                self.write_errors += 1;
            }
        }
    }

    /// Flushes and closes the files.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        if let Some(w) = self.eve.take() {
            w.finish()?;
        }
        if let Some(w) = self.fast.take() {
            w.finish()?;
        }
        Ok(())
    }
}

fn ip(bytes: &[u8; 16], version: u8) -> IpAddr {
    if version == 4 {
        IpAddr::V4(Ipv4Addr::new(bytes[0], bytes[1], bytes[2], bytes[3]))
    } else {
        IpAddr::V6(Ipv6Addr::from(*bytes))
    }
}
