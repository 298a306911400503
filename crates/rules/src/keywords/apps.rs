//! The other application protocols (SSH, SIP, QUIC, SNMP, MQTT, Kerberos, IKE, SMB,
//! DCERPC, DNP3, RFB, FTP, Modbus ...): their buffers and the options kept verbatim.
//! A protocol moves to a file of its own when its keywords gain typed values.

use super::{verbatim, Keyword, Stickies};
use crate::ast::AppProto;
use crate::buffers::Buffer;

/// Keywords kept verbatim.
pub(super) const KEYWORDS: &[Keyword] = &[
    verbatim("rpc").about(
        "match the program, version and procedure of an RPC call",
        "rules/payload-keywords.html#rpc",
    ),
    verbatim("nfs.procedure").about(
        "match the NFS procedure",
        "rules/nfs-keywords.html#procedure",
    ),
    verbatim("smb.version").about("match the SMB protocol version", "rules/smb-keywords.html"),
];

/// Buffers, by protocol.
pub(super) const STICKY: Stickies = &[
    // SSH
    (
        &[
            Buffer::SshProto,
            Buffer::SshSoftware,
            Buffer::SshHassh,
            Buffer::SshHasshString,
            Buffer::SshHasshServer,
            Buffer::SshHasshServerString,
        ],
        &[AppProto::Ssh],
    ),
    // Kerberos
    (&[Buffer::Krb5Cname, Buffer::Krb5Sname], &[AppProto::Krb5]),
    // SMB, DCERPC, DNP3, RFB, FTP: any protocol
    (
        &[
            Buffer::SmbNamedPipe,
            Buffer::SmbShare,
            Buffer::SmbNtlmsspUser,
            Buffer::SmbNtlmsspDomain,
            Buffer::DceStubData,
            Buffer::RfbName,
            Buffer::Dnp3Data,
            Buffer::FtpCommand,
        ],
        &[],
    ),
    // SIP
    (
        &[
            Buffer::SipMethod,
            Buffer::SipUri,
            Buffer::SipRequestLine,
            Buffer::SipStatCode,
            Buffer::SipStatMsg,
            Buffer::SipResponseLine,
            Buffer::SipProtocol,
        ],
        &[AppProto::Sip],
    ),
    // QUIC
    (
        &[
            Buffer::QuicSni,
            Buffer::QuicUa,
            Buffer::QuicVersion,
            Buffer::QuicCyuHash,
            Buffer::QuicCyuString,
        ],
        &[AppProto::Quic],
    ),
    // SNMP
    (&[Buffer::SnmpCommunity, Buffer::SnmpUsm], &[AppProto::Snmp]),
    // MQTT
    (
        &[
            Buffer::MqttConnectClientId,
            Buffer::MqttConnectUsername,
            Buffer::MqttConnectPassword,
            Buffer::MqttConnectWillTopic,
            Buffer::MqttConnectWillMessage,
            Buffer::MqttPublishTopic,
            Buffer::MqttPublishMessage,
            Buffer::MqttSubscribeTopic,
            Buffer::MqttUnsubscribeTopic,
        ],
        &[AppProto::Mqtt],
    ),
    // IKE
    (
        &[
            Buffer::IkeVendor,
            Buffer::IkeKeyExchange,
            Buffer::IkeNonce,
            Buffer::IkeInitSpi,
            Buffer::IkeRespSpi,
        ],
        &[AppProto::Ike],
    ),
];
