//! The other application protocols (SSH, SIP, QUIC, SNMP, MQTT, Kerberos, IKE, SMB,
//! DCERPC, DNP3, RFB, FTP, Modbus ...): their buffers and the options kept verbatim.
//! A protocol moves to a file of its own when its keywords gain typed values.

use super::{verbatim, Keyword, Stickies};
use crate::ast::AppProto;
use crate::buffers::Buffer;

/// Keywords kept verbatim.
pub(super) const KEYWORDS: &[Keyword] = &[
    verbatim("ssh.protoversion"),
    verbatim("ssh.softwareversion"),
    verbatim("ftpbounce"),
    verbatim("ftpdata_command"),
    verbatim("rpc"),
    verbatim("dce_iface"),
    verbatim("dce_opnum"),
    verbatim("dcerpc.iface"),
    verbatim("dcerpc.opnum"),
    verbatim("dnp3_func"),
    verbatim("dnp3_ind"),
    verbatim("dnp3_obj"),
    verbatim("dnp3.func"),
    verbatim("dnp3.ind"),
    verbatim("dnp3.obj"),
    verbatim("modbus"),
    verbatim("enip_command"),
    verbatim("cip_service"),
    verbatim("krb5_err_code"),
    verbatim("krb5_msg_type"),
    verbatim("krb5.err_code"),
    verbatim("krb5.msg_type"),
    verbatim("snmp.version"),
    verbatim("snmp.pdu_type"),
    verbatim("nfs_procedure"),
    verbatim("nfs.procedure"),
    verbatim("nfs.version"),
    verbatim("ike.exchtype"),
    verbatim("ike.chosen_sa_attribute"),
    verbatim("ike.nonce_payload_length"),
    verbatim("ike.key_exchange_payload_length"),
    verbatim("rfb.secresult"),
    verbatim("rfb.sectype"),
    verbatim("mqtt.type"),
    verbatim("mqtt.flags"),
    verbatim("mqtt.qos"),
    verbatim("mqtt.reason_code"),
    verbatim("mqtt.protocol_version"),
    verbatim("mqtt.connack.session_present"),
    verbatim("mqtt.connect.flags"),
    verbatim("smb.version"),
    verbatim("template2"),
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
