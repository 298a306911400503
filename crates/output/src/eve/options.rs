//! The per-type options of an `eve-log` output (suricata.yaml's `types: - alert: {...}`,
//! `- anomaly: {...}`) and its output-wide switches, with Suricata's defaults.

/// Options of `types: - alert:`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlertOptions {
    /// `payload`: the packet's payload (or the stream's) in base64 as `payload`.
    pub payload: bool,
    /// `payload-buffer-size`: at most this many payload bytes are written (4 KiB).
    pub payload_buffer_size: usize,
    /// `payload-printable`: the payload as `payload_printable` (lossy ASCII).
    pub payload_printable: bool,
    /// `packet`: the packet's bytes in base64 as `packet`.
    pub packet: bool,
    /// `metadata`: the app-layer object of the matched transaction (default yes).
    pub metadata: bool,
    /// `http-body`: the HTTP body in base64 (needs `metadata`).
    pub http_body: bool,
    /// `http-body-printable`: the HTTP body, printable (needs `metadata`).
    pub http_body_printable: bool,
    /// `tagged-packets`: packets tagged by the `tag` keyword are logged.
    pub tagged_packets: bool,
    /// `verdict`: the engine's final verdict on the packet.
    pub verdict: bool,
}

impl Default for AlertOptions {
    fn default() -> Self {
        AlertOptions {
            payload: false,
            payload_buffer_size: 4096,
            payload_printable: false,
            packet: false,
            metadata: true,
            http_body: false,
            http_body_printable: false,
            tagged_packets: false,
            verdict: false,
        }
    }
}

/// Options of `types: - anomaly:` (which anomalies are logged).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnomalyOptions {
    /// `types: decode:` decoder events (default no).
    pub decode: bool,
    /// `types: stream:` stream events (default no).
    pub stream: bool,
    /// `types: applayer:` application-layer events (default yes).
    pub applayer: bool,
    /// `packethdr`: the packet header in base64 for packet anomalies (default no).
    pub packethdr: bool,
}

impl Default for AnomalyOptions {
    fn default() -> Self {
        AnomalyOptions {
            decode: false,
            stream: false,
            applayer: true,
            packethdr: false,
        }
    }
}

/// Options of `types: - drop:` (records of the packets an IPS verdict dropped).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DropOptions {
    /// `flows: all`: every dropped packet is logged; `flows: start` (the default): only
    /// the first dropped packet of each direction of a flow.
    pub all_flows: bool,
    /// `alerts: yes`: a packet dropped by a rule carries that rule's `alert{}` (with
    /// `tx_id`/`tx_guessed`) in its drop record (default no).
    pub alerts: bool,
}

/// What an `eve-log` output writes beyond the list of its types.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EveOptions {
    /// Options of the alert records.
    pub alert: AlertOptions,
    /// Options of the anomaly records.
    pub anomaly: AnomalyOptions,
    /// Options of the drop records.
    pub drop: DropOptions,
    /// `community-id`: a `community_id` on records with a flow.
    pub community_id: bool,
    /// `community-id-seed`.
    pub community_id_seed: u16,
    /// `pcap-file`: the input file's name as `pcap_filename`.
    pub pcap_file: bool,
    /// `ethernet`: the `ether{}` object (MAC addresses) where known.
    pub ethernet: bool,
    /// Options of the `files` type (the `fileinfo` records).
    pub files: FileOptions,
}

/// Options of `types: - files:` (`force-hash: [md5, sha1, sha256]`): digests computed
/// for every file and written in its `fileinfo` record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileOptions {
    /// `force-hash` names `md5`.
    pub md5: bool,
    /// `force-hash` names `sha1`.
    pub sha1: bool,
    /// `force-hash` names `sha256`.
    pub sha256: bool,
    /// `force-magic: yes`: libmagic's description of each file.
    pub magic: bool,
}
