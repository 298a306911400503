//! Worker-local application-layer counters with Suricata's `stats.json` names.

/// One application-layer counter. Names are Suricata's where it has one, `osprey.app.*`
/// otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Counter {
    /// Flows detected as HTTP.
    FlowHttp,
    /// Flows detected as TLS.
    FlowTls,
    /// UDP flows detected as DNS.
    FlowDnsUdp,
    /// TCP flows detected as DNS.
    FlowDnsTcp,
    /// TCP flows whose protocol could not be detected.
    FlowFailedTcp,
    /// UDP flows whose protocol could not be detected.
    FlowFailedUdp,
    /// HTTP transactions.
    TxHttp,
    /// DNS transactions over UDP.
    TxDnsUdp,
    /// DNS transactions over TCP.
    TxDnsTcp,
    /// HTTP request bodies cut at `request-body-limit`.
    HttpRequestBodyLimit,
    /// HTTP response bodies cut at `response-body-limit`.
    HttpResponseBodyLimit,
    /// HTTP lines longer than the field limit (parsing of that direction stops).
    HttpFieldTooLong,
    /// HTTP messages with more headers than `max_headers`.
    HttpHeaderLimit,
    /// HTTP raw header copies cut at `header_raw_limit`.
    HttpHeaderRawLimit,
    /// HTTP bodies whose decompression failed (passed through or truncated).
    HttpDecompressError,
    /// HTTP lzma bodies whose decoding stopped at 8 times the larger of
    /// `lzma-memlimit` and `compression-bomb-limit` (what rules see ends earlier, at the
    /// body limit; a bomb of a smaller ratio than 2048 past that point goes unreported).
    HttpDecompressCut,
    /// Transactions dropped because a flow held more than `max_tx`.
    TxLimit,
    /// Stream gaps seen by an app-layer parser.
    Gap,
    /// DNS messages that did not parse.
    DnsMalformed,
    /// TLS records or handshake messages that did not parse.
    TlsMalformed,
    /// TLS handshake messages larger than `tls_handshake_limit`.
    TlsHandshakeLimit,
    /// HTTP flows whose parser failed (Suricata's `app_layer.error.http.parser`).
    ErrorHttp,
    /// TLS flows whose parser failed.
    ErrorTls,
    /// DNS-over-TCP flows whose parser failed.
    ErrorDnsTcp,
    /// UDP flows detected as SIP.
    FlowSip,
    /// SIP messages.
    TxSip,
    /// SIP datagrams that did not parse.
    ErrorSip,
    /// TCP flows detected as SMB.
    FlowSmb,
    /// TCP flows detected as DCERPC.
    FlowDcerpcTcp,
    /// TCP flows detected as SMTP.
    FlowSmtp,
    /// Flows detected as HTTP/2.
    FlowHttp2,
    /// HTTP/2 transactions: one per stream, one per connection-level frame.
    TxHttp2,
    /// HTTP/2 header blocks too large to decode (parsing of the flow stops).
    Http2FrameLimit,
    /// HTTP/2 header blocks that failed HPACK decoding.
    Http2HeaderError,
    /// SMTP transactions (mails).
    TxSmtp,
    /// SMTP flows whose parser failed.
    ErrorSmtp,
    /// UDP flows detected as DCERPC.
    FlowDcerpcUdp,
    /// DCERPC-over-TCP transactions (calls).
    TxDcerpcTcp,
    /// DCERPC-over-UDP transactions (calls).
    TxDcerpcUdp,
    /// DCERPC-over-TCP flows whose parser failed.
    ErrorDcerpcTcp,
    /// DCERPC-over-UDP datagrams that are not DCERPC.
    ErrorDcerpcUdp,
    /// DCERPC fragments whose stub was cut by the reassembly limit.
    DcerpcStubCut,
    /// SMB transactions.
    TxSmb,
    /// TCP flows detected as MQTT.
    FlowMqtt,
    /// MQTT transactions.
    TxMqtt,
    /// MQTT flows whose parser failed.
    ErrorMqtt,
    /// MQTT packets before the CONNECT, not kept (as Suricata does not log them).
    MqttSkipped,
    /// MQTT packets over the length limit: only their header was kept.
    MqttTruncated,
    /// TCP flows detected as NFS.
    FlowNfsTcp,
    /// UDP flows detected as NFS.
    FlowNfsUdp,
    /// NFS transactions over TCP.
    TxNfsTcp,
    /// NFS transactions over UDP.
    TxNfsUdp,
    /// NFS-over-TCP flows whose parser failed.
    ErrorNfsTcp,
    /// NFS datagrams that are not RPC messages.
    ErrorNfsUdp,
    /// NFS xids or handle names forgotten at their per-flow limits.
    NfsDropped,
    /// UDP flows detected as TFTP.
    FlowTftp,
    /// TFTP transactions (requests).
    TxTftp,
    /// TFTP datagrams that are not TFTP packets.
    ErrorTftp,
    /// TCP flows detected as SSH.
    FlowSsh,
    /// SSH flows whose parser failed.
    ErrorSsh,
    /// SSH KEXINIT packets too large to buffer (no HASSH for that side).
    SshKexinitTooLong,
    /// TCP flows detected as Kerberos 5.
    FlowKrb5Tcp,
    /// UDP flows detected as Kerberos 5.
    FlowKrb5Udp,
    /// Kerberos 5 messages over TCP.
    TxKrb5Tcp,
    /// Kerberos 5 messages over UDP.
    TxKrb5Udp,
    /// Kerberos 5 TCP flows whose parser failed.
    ErrorKrb5Tcp,
    /// Kerberos 5 UDP datagrams that did not parse.
    ErrorKrb5Udp,
    /// Kerberos 5 TCP records too large to buffer (skipped).
    Krb5RecordLimit,
    /// UDP flows detected as SNMP.
    FlowSnmp,
    /// SNMP messages.
    TxSnmp,
    /// SNMP datagrams that did not parse.
    ErrorSnmp,
    /// UDP flows detected as DHCP.
    FlowDhcp,
    /// DHCP messages.
    TxDhcp,
    /// DHCP datagrams that did not parse.
    ErrorDhcp,
    /// Files not tracked because their transaction already held [`crate::Files::MAX`].
    FileLimit,
    /// TCP flows detected as FTP (control channel).
    FlowFtp,
    /// FTP transactions (commands, unsolicited replies).
    TxFtp,
    /// FTP flows whose parser failed (a command line over the line limit).
    ErrorFtp,
    /// TCP flows taken as FTP data connections (announced by a control flow).
    FlowFtpData,
    /// FTP data-connection expectations evicted from the full shared table, and
    /// data-connection bytes dropped while the transfer's command was unknown.
    FtpExpectDropped,
    /// UDP flows detected as QUIC.
    FlowQuic,
    /// QUIC transactions (long-header packets).
    TxQuic,
    /// QUIC datagrams whose parsing failed (a bad header, an Initial that does not open).
    ErrorQuic,
    /// UDP flows detected as IKE.
    FlowIke,
    /// IKE messages.
    TxIke,
    /// IKE datagrams that did not parse.
    ErrorIke,
    /// TCP flows detected as Modbus.
    FlowModbus,
    /// Modbus transactions.
    TxModbus,
    /// Modbus flows whose parser failed.
    ErrorModbus,
    /// Modbus flows that stopped on a frame too long to buffer.
    ModbusBufferLimit,
    /// TCP flows detected as ENIP.
    FlowEnipTcp,
    /// UDP flows detected as ENIP.
    FlowEnipUdp,
    /// ENIP messages over TCP.
    TxEnipTcp,
    /// ENIP messages over UDP.
    TxEnipUdp,
    /// ENIP datagrams that did not hold whole messages.
    ErrorEnipUdp,
    /// UDP flows detected as BitTorrent DHT.
    FlowBittorrentDht,
    /// BitTorrent DHT messages.
    TxBittorrentDht,
    /// BitTorrent DHT datagrams that did not parse or missed a required field.
    ErrorBittorrentDht,
    /// TCP flows detected as RFB.
    FlowRfb,
    /// RFB handshakes completed.
    TxRfb,
    /// RFB flows whose handshake did not parse.
    ErrorRfb,
    /// Files of any protocol that ended truncated (a body or depth limit, the
    /// transaction or the flow ended first), counted once each when their flow ends.
    FilesTruncated,
    /// TCP flows detected as RDP.
    FlowRdp,
    /// RDP messages of the connection sequence (transactions).
    TxRdp,
    /// RDP flows whose connection sequence did not parse.
    ErrorRdp,
    /// TCP flows detected as DNP3.
    FlowDnp3,
    /// DNP3 transactions (application fragments).
    TxDnp3,
    /// DNP3 flows whose parser failed (bad header CRC, length below 5).
    ErrorDnp3,
    /// DNP3 frames or fragments over the buffering limits, dropped.
    Dnp3BufferLimit,
    /// DNP3 bytes skipped between link frames (no `05 64` start).
    Dnp3Skipped,
    /// HTTP flows whose state outgrew `app-layer.protocols.http.memcap` (see
    /// [`crate::memcap`]).
    HttpMemcap,
    /// FTP flows whose state outgrew `app-layer.protocols.ftp.memcap`.
    FtpMemcap,
    /// HTTP flows whose parser stopped because the memcap refused memory.
    ErrorHttpAlloc,
    /// FTP flows whose parser stopped because the memcap refused memory.
    ErrorFtpAlloc,
    /// Application-layer frames dropped: more than a direction may hold waiting for
    /// inspection (`frames::MAX_PENDING`, `frames::ARENA_LIMIT`).
    FramesDropped,
    /// Frames longer than `frames::UNIT_LIMIT`, inspected on their first bytes.
    FramesTruncated,
}

const NAMES: [&str; Counter::COUNT] = [
    "app_layer.flow.http",
    "app_layer.flow.tls",
    "app_layer.flow.dns_udp",
    "app_layer.flow.dns_tcp",
    "app_layer.flow.failed_tcp",
    "app_layer.flow.failed_udp",
    "app_layer.tx.http",
    "app_layer.tx.dns_udp",
    "app_layer.tx.dns_tcp",
    "osprey.app.http.request_body_limit",
    "osprey.app.http.response_body_limit",
    "osprey.app.http.field_too_long",
    "osprey.app.http.header_limit",
    "osprey.app.http.header_raw_limit",
    "osprey.app.http.decompress_error",
    "osprey.app.http.decompress_cut",
    "osprey.app.tx_limit",
    "osprey.app.gap",
    "osprey.app.dns.malformed",
    "osprey.app.tls.malformed",
    "osprey.app.tls.handshake_limit",
    "app_layer.error.http.parser",
    "app_layer.error.tls.parser",
    "app_layer.error.dns_tcp.parser",
    "app_layer.flow.sip",
    "app_layer.tx.sip",
    "app_layer.error.sip.parser",
    "app_layer.flow.smb",
    "app_layer.flow.dcerpc_tcp",
    "app_layer.flow.smtp",
    "app_layer.flow.http2",
    "app_layer.tx.http2",
    "osprey.app.http2.frame_limit",
    "osprey.app.http2.header_error",
    "app_layer.tx.smtp",
    "app_layer.error.smtp.parser",
    "app_layer.flow.dcerpc_udp",
    "app_layer.tx.dcerpc_tcp",
    "app_layer.tx.dcerpc_udp",
    "app_layer.error.dcerpc_tcp.parser",
    "app_layer.error.dcerpc_udp.parser",
    "osprey.app.dcerpc.stub_cut",
    "app_layer.tx.smb",
    "app_layer.flow.mqtt",
    "app_layer.tx.mqtt",
    "app_layer.error.mqtt.parser",
    "osprey.app.mqtt.skipped",
    "osprey.app.mqtt.truncated",
    "app_layer.flow.nfs_tcp",
    "app_layer.flow.nfs_udp",
    "app_layer.tx.nfs_tcp",
    "app_layer.tx.nfs_udp",
    "app_layer.error.nfs_tcp.parser",
    "app_layer.error.nfs_udp.parser",
    "osprey.app.nfs.dropped",
    "app_layer.flow.tftp",
    "app_layer.tx.tftp",
    "app_layer.error.tftp.parser",
    "app_layer.flow.ssh",
    "app_layer.error.ssh.parser",
    "osprey.app.ssh.kexinit_too_long",
    "app_layer.flow.krb5_tcp",
    "app_layer.flow.krb5_udp",
    "app_layer.tx.krb5_tcp",
    "app_layer.tx.krb5_udp",
    "app_layer.error.krb5_tcp.parser",
    "app_layer.error.krb5_udp.parser",
    "osprey.app.krb5.record_limit",
    "app_layer.flow.snmp",
    "app_layer.tx.snmp",
    "app_layer.error.snmp.parser",
    "app_layer.flow.dhcp",
    "app_layer.tx.dhcp",
    "app_layer.error.dhcp.parser",
    "osprey.app.files.limit",
    "app_layer.flow.ftp",
    "app_layer.tx.ftp",
    "app_layer.error.ftp.parser",
    "app_layer.flow.ftp-data",
    "osprey.app.ftp.expect_dropped",
    "app_layer.flow.quic",
    "app_layer.tx.quic",
    "app_layer.error.quic.parser",
    "app_layer.flow.ike",
    "app_layer.tx.ike",
    "app_layer.error.ike.parser",
    "app_layer.flow.modbus",
    "app_layer.tx.modbus",
    "app_layer.error.modbus.parser",
    "osprey.app.modbus.buffer_limit",
    "app_layer.flow.enip_tcp",
    "app_layer.flow.enip_udp",
    "app_layer.tx.enip_tcp",
    "app_layer.tx.enip_udp",
    "app_layer.error.enip_udp.parser",
    "app_layer.flow.bittorrent-dht",
    "app_layer.tx.bittorrent-dht",
    "app_layer.error.bittorrent-dht.parser",
    "app_layer.flow.rfb",
    "app_layer.tx.rfb",
    "app_layer.error.rfb.parser",
    "osprey.app.files.truncated",
    "app_layer.flow.rdp",
    "app_layer.tx.rdp",
    "app_layer.error.rdp.parser",
    "app_layer.flow.dnp3",
    "app_layer.tx.dnp3",
    "app_layer.error.dnp3.parser",
    "osprey.app.dnp3.buffer_limit",
    "osprey.app.dnp3.skipped_bytes",
    "http.memcap",
    "ftp.memcap",
    "app_layer.error.http.alloc",
    "app_layer.error.ftp.alloc",
    "osprey.app.frames.dropped",
    "osprey.app.frames.truncated",
];

impl Counter {
    /// Number of counters.
    pub const COUNT: usize = 116;

    /// The counter's `stats.json` name.
    pub fn name(self) -> &'static str {
        NAMES[self as usize]
    }
}

/// A worker's application-layer counters.
#[derive(Clone, Debug)]
pub struct Counters {
    values: [u64; Counter::COUNT],
}

impl Default for Counters {
    fn default() -> Self {
        Counters {
            values: [0; Counter::COUNT],
        }
    }
}

impl Counters {
    /// Adds one to `c`.
    #[inline]
    pub fn incr(&mut self, c: Counter) {
        self.values[c as usize] += 1;
    }

    /// The value of `c`.
    pub fn get(&self, c: Counter) -> u64 {
        self.values[c as usize]
    }

    /// Adds every counter of `other` into `self` (merging workers).
    pub fn merge(&mut self, other: &Counters) {
        for (a, b) in self.values.iter_mut().zip(other.values.iter()) {
            *a += *b;
        }
    }

    /// Every counter as `(name, value)`, in a fixed order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        NAMES.iter().copied().zip(self.values.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_ordered() {
        let c = Counters::default();
        let names: Vec<_> = c.iter().map(|(n, _)| n).collect();
        assert_eq!(names.len(), Counter::COUNT);
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        assert_eq!(
            Counter::TlsHandshakeLimit.name(),
            "osprey.app.tls.handshake_limit"
        );
        assert_eq!(Counter::TxDnsUdp.name(), "app_layer.tx.dns_udp");
    }

    #[test]
    fn incr_and_merge() {
        let mut a = Counters::default();
        a.incr(Counter::TxHttp);
        a.incr(Counter::TxHttp);
        let mut b = Counters::default();
        b.incr(Counter::TxHttp);
        b.merge(&a);
        assert_eq!(b.get(Counter::TxHttp), 3);
        assert_eq!(
            b.iter().find(|(n, _)| *n == "app_layer.tx.http").unwrap().1,
            3
        );
    }
}
