//! `with_state!`: runs a body with a flow's protocol state bound by its concrete type,
//! one arm per [`super::AppState`] variant (the per-packet calls stay direct). The state
//! types are named where the macro expands (`flow.rs`, `flow/switch.rs`).

/// Runs `$body` with `$p` bound to the flow's protocol state by its concrete type
/// (static dispatch: the per-packet calls stay direct), or `$none` without one.
macro_rules! with_state {
    (ref $state:expr, $p:ident => $body:expr, None => $none:expr) => {
        match $state {
            AppState::None => $none,
            AppState::Http($p) => {
                let $p: &HttpState = $p;
                $body
            }
            AppState::Http2($p) => {
                let $p: &Http2State = $p;
                $body
            }
            AppState::Dns($p) => {
                let $p: &DnsState = $p;
                $body
            }
            AppState::Tls($p) => {
                let $p: &TlsState = $p;
                $body
            }
            AppState::Sip($p) => {
                let $p: &SipState = $p;
                $body
            }
            AppState::Smb($p) => {
                let $p: &SmbState = $p;
                $body
            }
            AppState::Dcerpc($p) => {
                let $p: &DcerpcState = $p;
                $body
            }
            AppState::Smtp($p) => {
                let $p: &SmtpState = $p;
                $body
            }
            AppState::Mqtt($p) => {
                let $p: &MqttState = $p;
                $body
            }
            AppState::Nfs($p) => {
                let $p: &NfsState = $p;
                $body
            }
            AppState::Tftp($p) => {
                let $p: &TftpState = $p;
                $body
            }
            AppState::Ssh($p) => {
                let $p: &SshState = $p;
                $body
            }
            AppState::Krb5($p) => {
                let $p: &Krb5State = $p;
                $body
            }
            AppState::Snmp($p) => {
                let $p: &SnmpState = $p;
                $body
            }
            AppState::Dhcp($p) => {
                let $p: &DhcpState = $p;
                $body
            }
            AppState::Ftp($p) => {
                let $p: &FtpState = $p;
                $body
            }
            AppState::FtpData($p) => {
                let $p: &FtpDataState = $p;
                $body
            }
            AppState::Quic($p) => {
                let $p: &QuicState = $p;
                $body
            }
            AppState::Ike($p) => {
                let $p: &IkeState = $p;
                $body
            }
            AppState::Modbus($p) => {
                let $p: &ModbusState = $p;
                $body
            }
            AppState::Enip($p) => {
                let $p: &EnipState = $p;
                $body
            }
            AppState::BittorrentDht($p) => {
                let $p: &DhtState = $p;
                $body
            }
            AppState::Rfb($p) => {
                let $p: &RfbState = $p;
                $body
            }
            AppState::Rdp($p) => {
                let $p: &RdpState = $p;
                $body
            }
            AppState::Dnp3($p) => {
                let $p: &Dnp3State = $p;
                $body
            }
        }
    };
    (mut $state:expr, $p:ident => $body:expr, None => $none:expr) => {
        match $state {
            AppState::None => $none,
            AppState::Http($p) => {
                let $p: &mut HttpState = $p;
                $body
            }
            AppState::Http2($p) => {
                let $p: &mut Http2State = $p;
                $body
            }
            AppState::Dns($p) => {
                let $p: &mut DnsState = $p;
                $body
            }
            AppState::Tls($p) => {
                let $p: &mut TlsState = $p;
                $body
            }
            AppState::Sip($p) => {
                let $p: &mut SipState = $p;
                $body
            }
            AppState::Smb($p) => {
                let $p: &mut SmbState = $p;
                $body
            }
            AppState::Dcerpc($p) => {
                let $p: &mut DcerpcState = $p;
                $body
            }
            AppState::Smtp($p) => {
                let $p: &mut SmtpState = $p;
                $body
            }
            AppState::Mqtt($p) => {
                let $p: &mut MqttState = $p;
                $body
            }
            AppState::Nfs($p) => {
                let $p: &mut NfsState = $p;
                $body
            }
            AppState::Tftp($p) => {
                let $p: &mut TftpState = $p;
                $body
            }
            AppState::Ssh($p) => {
                let $p: &mut SshState = $p;
                $body
            }
            AppState::Krb5($p) => {
                let $p: &mut Krb5State = $p;
                $body
            }
            AppState::Snmp($p) => {
                let $p: &mut SnmpState = $p;
                $body
            }
            AppState::Dhcp($p) => {
                let $p: &mut DhcpState = $p;
                $body
            }
            AppState::Ftp($p) => {
                let $p: &mut FtpState = $p;
                $body
            }
            AppState::FtpData($p) => {
                let $p: &mut FtpDataState = $p;
                $body
            }
            AppState::Quic($p) => {
                let $p: &mut QuicState = $p;
                $body
            }
            AppState::Ike($p) => {
                let $p: &mut IkeState = $p;
                $body
            }
            AppState::Modbus($p) => {
                let $p: &mut ModbusState = $p;
                $body
            }
            AppState::Enip($p) => {
                let $p: &mut EnipState = $p;
                $body
            }
            AppState::BittorrentDht($p) => {
                let $p: &mut DhtState = $p;
                $body
            }
            AppState::Rfb($p) => {
                let $p: &mut RfbState = $p;
                $body
            }
            AppState::Rdp($p) => {
                let $p: &mut RdpState = $p;
                $body
            }
            AppState::Dnp3($p) => {
                let $p: &mut Dnp3State = $p;
                $body
            }
        }
    };
}
