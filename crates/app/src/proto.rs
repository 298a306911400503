//! The contract every application protocol implements, after Suricata's Rust
//! app-layer: a per-flow state ([`Protocol`]) that parses each direction, takes holes and
//! the end of the flow, and exposes transactions ([`Transaction`]) with an id, progress
//! per direction, the inspection buffers the detector reads (by [`BufferId`]) and the
//! EVE object the logger writes.
//!
//! The detector and the EVE logger only use these traits: they never name a protocol.

use serde_json::Value;

use crate::{AppCtx, AppProto, BufferId, Direction, Files};

/// What one parse call concluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseResult {
    /// The bytes were consumed (partial messages are kept by the state itself).
    Ok,
    /// The bytes were taken, but the message in progress is incomplete: at least `need`
    /// more bytes of this direction are needed before it can be parsed (a parser that
    /// knows its message lengths, such as DNS over TCP, says so; the state holds the
    /// partial message).
    Incomplete {
        /// Bytes still missing.
        need: usize,
    },
    /// The parser failed (Suricata's `APP_LAYER_ERROR`).
    Error,
}

/// The per-flow state of an application protocol.
pub trait Protocol {
    /// In-order stream bytes of one TCP direction, split anywhere.
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult;

    /// One UDP payload travelling `dir`. Stream-only protocols ignore it.
    fn datagram(&mut self, _ctx: &mut AppCtx, _dir: Direction, _payload: &[u8]) -> ParseResult {
        ParseResult::Ok
    }

    /// A hole of `len` bytes in one TCP direction.
    fn gap(&mut self, _ctx: &mut AppCtx, _dir: Direction, _len: u64) {}

    /// The flow ended.
    fn close(&mut self, _ctx: &mut AppCtx) {}

    /// The TCP session closed with the FIN handshake: both streams ended on this
    /// packet ([`Protocol::close`] follows when the flow ends). Most protocols end
    /// their messages here, as Suricata's parsers see the streams' end on that
    /// packet; DNP3 keeps unfinished fragments open until the flow ends.
    fn session_closed(&mut self, ctx: &mut AppCtx) {
        self.close(ctx)
    }

    /// Whether the stream parser failed for good (nothing more is parsed).
    fn errored(&self) -> bool {
        false
    }

    /// Whether a message of `dir` completed since the last call: raw stream
    /// inspection of that direction is due.
    fn take_completed(&mut self, _dir: Direction) -> bool {
        false
    }

    /// Calls `f` with the name of each application-layer event raised on the flow
    /// (`http.request_field_too_long`, ...; the names are the protocol's
    /// [`crate::registry::ProtocolDef::events`]).
    fn events(&self, _f: &mut dyn FnMut(&'static str)) {}

    /// Calls `f` with each live transaction, oldest first.
    fn each_tx(&self, _f: &mut dyn FnMut(&dyn Transaction)) {}

    /// Calls `f` with each live transaction whose id is `from` or more, oldest first
    /// (the detector skips the transactions it finished with; a state that keeps many
    /// passes over them without a call each).
    fn each_tx_from(&self, from: u64, f: &mut dyn FnMut(&dyn Transaction)) {
        self.each_tx(&mut |t| {
            if t.id() >= from {
                f(t)
            }
        })
    }

    /// Calls `f` with each live transaction, oldest first, until `f` returns false.
    fn each_tx_while(&self, f: &mut dyn FnMut(&dyn Transaction) -> bool) {
        let mut go = true;
        self.each_tx(&mut |t| {
            if go {
                go = f(t)
            }
        })
    }

    /// The transaction an alert with transaction id `id` was raised on.
    fn find_tx(&self, _id: u64) -> Option<&dyn Transaction> {
        None
    }

    /// The protocol the flow changes to from here on (SMTP after an accepted
    /// `STARTTLS`: TLS; [`AppProto::Unknown`] to detect the protocol again, as an HTTP
    /// `CONNECT` tunnel asks), once the state asks for the change; `None` otherwise.
    fn switch_to(&self) -> Option<AppProto> {
        None
    }

    /// The server port protocol detection uses after a change to
    /// [`AppProto::Unknown`] (detection again: the port an HTTP `CONNECT` asked for);
    /// `None` keeps the flow's own.
    fn switch_port(&self) -> Option<u16> {
        None
    }

    /// The bytes of `dir` that came after the switch point (see
    /// [`Protocol::switch_to`]) in the chunks parsed since: they belong to the new
    /// protocol. A state that cannot say where it stopped returns nothing.
    fn take_after_switch(&mut self, _dir: Direction) -> Vec<u8> {
        Vec::new()
    }

    /// Frees the transactions with an id below `id`: detection and the loggers are
    /// done with them (Suricata's transaction cleanup). A state that keeps its
    /// transactions in a bounded table of its own may ignore it.
    fn free_txs_before(&mut self, _id: u64) {}
}

/// One transaction of a protocol: what the detector inspects and the logger writes.
pub trait Transaction {
    /// Transaction id, increasing within a flow.
    fn id(&self) -> u64;

    /// The protocol whose buffers the transaction carries (HTTP/2 streams are HTTP
    /// transactions).
    fn proto(&self) -> AppProto;

    /// Whether the side travelling `dir` is complete.
    fn complete(&self, dir: Direction) -> bool;

    /// Whether the side travelling `dir` has begun (for HTTP, a byte of the response's
    /// status line was parsed). Suricata 7.0.10 inspects a transaction's `app-layer-event` rules in
    /// a direction only once that side has begun. By default, whether it is
    /// [complete](Transaction::complete): a protocol whose event timing was not
    /// compared with Suricata's waits for the side to complete.
    fn started(&self, dir: Direction) -> bool {
        self.complete(dir)
    }

    /// Whether the transaction can no longer change (detection is done with it).
    fn is_final(&self) -> bool {
        self.complete(Direction::ToServer) && self.complete(Direction::ToClient)
    }

    /// Fingerprints (everything but the bodies, the bodies) that change whenever a
    /// buffer of the transaction may have changed (see [`mix_fingerprint`]).
    fn fingerprint(&self) -> (u64, u64);

    /// Calls `f` with each instance of buffer `b` the transaction has now, as seen in
    /// direction `dir` (a multi-buffer calls it once per instance; a buffer not
    /// inspectable yet not at all). `b` is one of the protocol's buffers.
    fn buffers(&self, b: BufferId, dir: Direction, f: &mut dyn FnMut(&[u8]));

    /// Whether Suricata 7.0.10's multi-pattern matcher never finds a pattern in buffer
    /// `b` of this transaction although its inspection reads it (HTTP/2 response
    /// headers): a rule whose fast pattern lies in `b` then never matches the
    /// transaction, as in Suricata. `false` by default.
    fn prefilter_blind(&self, _b: BufferId) -> bool {
        false
    }

    /// For a protocol whose requests and responses are separate transactions (DNS):
    /// the key a response shares with its request (the DNS message id) and whether
    /// this transaction is the response. A `config: logging disable` match on the
    /// request also keeps the response unlogged (Suricata's unidirectional
    /// transactions).
    fn log_pair(&self) -> Option<(u64, bool)> {
        None
    }

    /// Whether the transaction is ready to be logged (`at_end`: the flow ended).
    fn log_ready(&self, at_end: bool) -> bool {
        at_end || self.is_final()
    }

    /// Writes its EVE records through `out`: `(top-level tx_id, object)` each, the
    /// object going under the protocol's event type; `extended` asks for the extended
    /// fields.
    fn log(&self, extended: bool, out: &mut dyn FnMut(Option<u64>, Value));

    /// Objects its EVE records carry at the top level beside the protocol's own
    /// (SMTP's `email`), as `(key, object)`; `extended` as in [`Transaction::log`].
    fn log_siblings(&self, _extended: bool) -> Vec<(&'static str, Value)> {
        Vec::new()
    }

    /// The object an alert raised on the transaction carries.
    fn alert_object(&self) -> Value;

    /// Whether its records are written server → client: Suricata writes the records
    /// of some protocols (SIP) in the direction of the packet that made them, and
    /// such a transaction travelled to the client.
    fn log_reversed(&self) -> bool {
        false
    }

    /// Evaluates a protocol keyword ([`rules::AppOpt`]: `dcerpc.opnum`, `nfs_procedure`,
    /// ...; its `negated` flag included) against the transaction as seen in `dir`. A
    /// protocol answers for the keywords whose `protos` name it; the rule parser turns a
    /// keyword into an `AppOpt` only once its protocols evaluate it here.
    fn check(&self, _opt: &rules::AppOpt, _dir: Direction) -> bool {
        false
    }

    /// The files the transaction carries (HTTP bodies, attachments, SMB/NFS/TFTP
    /// transfers, FTP data), in opening order; `None` when it carries none.
    fn files(&self) -> Option<&Files> {
        None
    }

    /// The byte order of a DCERPC call's stub data (`true`: little endian, from the
    /// data representation of its last PDU's header), which `byte_*` with `dce` read
    /// in; `None` for transactions that are not DCERPC calls.
    fn dce_little_endian(&self) -> Option<bool> {
        None
    }

    /// For a protocol that keeps its application-layer events per transaction (DNS,
    /// DNP3), as Suricata does (`app-layer-event` then holds on that transaction only):
    /// calls `f` with each event of this transaction that rules inspecting `dir`
    /// see, and returns `true`. `false` (the default): the flow's events
    /// ([`Protocol::events`]) apply to every transaction.
    fn tx_events(&self, _dir: Direction, _f: &mut dyn FnMut(&'static str)) -> bool {
        false
    }
}

/// Mixes `v` into the fingerprint `h` (a multiply-rotate hash over a few lengths and
/// states; two different states colliding in 64 bits is not a practical concern).
pub fn mix_fingerprint(h: u64, v: u64) -> u64 {
    (h ^ v)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(29)
        .wrapping_add(0x632B_E59B_D9B4_E019)
}
