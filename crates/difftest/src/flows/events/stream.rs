//! The `events` family's TCP sessions built to raise stream events (handshake anomalies,
//! data out of the window, overlaps with different data, RSTs and FINs with bad
//! numbers, data after the close).

use super::*;

/// Stream event names of Suricata 7.0.10 (without the `stream.` prefix) a rule may name:
/// those Osprey's tracker raises (a rule naming one it never raises is refused as
/// unsupported, on purpose: `wire::StreamEvent::not_raised` says why for each).
pub(super) fn stream_names() -> Vec<&'static str> {
    wire::StreamEvent::ALL
        .iter()
        .filter(|e| e.not_raised().is_none())
        .map(|e| e.name())
        .collect()
}

pub(super) fn stream(g: &mut Gen<'_>, f: &mut Flow) -> Made {
    let (ci, si) = (11_000u32, 22_000u32);
    let d = b"stream-data-0123";
    let n = d.len() as u32;
    let which = g.size(0, 13);
    let raises: &'static [&'static str] = match which {
        0 => {
            // SYN/ACK first, from the server.
            f.tcp(false, si, ci + 1, SYN | ACK, &[], &[]);
            f.tcp(true, ci + 1, si + 1, ACK, &[], &[]);
            f.tcp(true, ci + 1, si + 1, PSH | ACK, &[], d);
            &["3whs_synack_in_wrong_direction"]
        }
        1 => {
            f.tcp(true, ci, 0, SYN, &[], &[]);
            f.tcp(true, ci + 500, 0, SYN, &[], &[]);
            f.tcp(false, si, ci + 501, SYN | ACK, &[], &[]);
            f.tcp(true, ci + 501, si + 1, ACK, &[], &[]);
            &["3whs_syn_resend_diff_seq_on_syn_recv"]
        }
        2 => {
            f.tcp(true, ci, 0, SYN, &[], &[]);
            f.tcp(false, si, ci + 1, SYN | ACK, &[], &[]);
            f.tcp(true, ci + 1, si + 99, ACK, &[], &[]);
            f.tcp(true, ci + 1, si + 1, ACK, &[], &[]);
            &["3whs_wrong_seq_wrong_ack"]
        }
        3 => {
            f.tcp(true, ci, 0, SYN, &[], &[]);
            f.tcp(false, si, ci + 1, SYN | ACK, &[], &[]);
            f.tcp(false, si, ci + 7, SYN | ACK, &[], &[]);
            f.tcp(true, ci + 1, si + 1, ACK, &[], &[]);
            &["3whs_synack_resend_with_different_ack"]
        }
        4 => {
            f.handshake(ci, si);
            f.tcp(true, ci + 1 + 3_000_000, si + 1, PSH | ACK, &[], d);
            &["est_packet_out_of_window"]
        }
        5 => {
            f.handshake(ci, si);
            f.tcp(true, ci + 1, si + 1, PSH | ACK, &[], d);
            let mut other = d.to_vec();
            other[3] = b'X';
            f.tcp(true, ci + 1, si + 1, PSH | ACK, &[], &other);
            f.tcp(false, si + 1, ci + 1 + n, ACK, &[], &[]);
            &["reassembly_overlap_different_data"]
        }
        6 => {
            f.handshake(ci, si);
            f.tcp(true, ci + 1, si + 1, PSH | ACK, &[], d);
            f.tcp(false, si + 1, ci + 1 + n, ACK, &[], &[]);
            f.tcp(true, ci + 1, si + 1, PSH | ACK, &[], d);
            &["pkt_spurious_retransmission"]
        }
        7 => {
            f.handshake(ci, si);
            f.tcp(true, ci + 1 + 200_000, si + 1, RST, &[], &[]);
            f.tcp(true, ci + 1, si + 1, PSH | ACK, &[], d);
            &["rst_invalid"]
        }
        8 => {
            f.handshake(ci, si);
            f.tcp(true, ci + 1, si + 1 + 90_000, FIN | ACK, &[], &[]);
            &["fin_invalid_ack"]
        }
        9 => {
            f.handshake(ci, si);
            f.tcp(true, ci + 1, 0, PSH | ACK, &[], d);
            &["pkt_broken_ack"]
        }
        10 => {
            f.handshake(ci, si);
            f.close(ci + 1, si + 1);
            f.tcp(true, ci + 2, si + 2, PSH | ACK, &[], d);
            &["pkt_invalid_ack", "closewait_pkt_before_last_ack"]
        }
        11 => {
            f.handshake(ci, si);
            f.tcp(true, ci + 1, si + 1, PSH | ACK, &[], d);
            f.tcp(true, ci + 1 + n, si + 1, SYN, &[], &[]);
            &["est_syn_resend", "est_syn_resend_diff_seq"]
        }
        12 => {
            f.tcp(true, ci, 0, SYN, &[], &[]);
            f.tcp(true, ci + 1, 0, PSH | ACK, &[], d);
            &["3whs_ack_in_wrong_dir", "pkt_invalid_ack"]
        }
        _ => {
            f.handshake(ci, si);
            f.tcp(false, si + 1, ci + 1, PSH | ACK, &[], d);
            f.tcp(true, ci + 1, si + 1 + n, ACK, &[], &[]);
            f.tcp(false, si + 1 + n, ci + 1, RST | ACK, &[], &[]);
            f.tcp(true, ci + 1, si + 1 + n, PSH | ACK, &[], d);
            &["rst_but_no_session", "pkt_invalid_ack"]
        }
    };
    Made {
        name: "stream",
        raises,
        near: &[],
        stream: true,
        ..made("", &[], &[])
    }
}
