//! The description and documentation page of each sticky buffer keyword (the
//! buffers are declared in [`crate::buffers`]; their keyword definitions are made from
//! them in [`super::sticky_def`]).

use crate::buffers::Buffer;

/// The one-line description and the documentation page (relative to
/// [`super::DOCS_BASE`]) of sticky buffer `b`; empty when it has none (a test checks
/// that every buffer has both).
pub(super) fn about(b: Buffer) -> (&'static str, &'static str) {
    match b.name() {
        "pkt_data" => (
            "sticky buffer: the packet payload or reassembled stream (the default)",
            "rules/payload-keywords.html",
        ),
        "http.uri" => (
            "sticky buffer: the normalised HTTP request URI",
            "rules/http-keywords.html#http-uri-and-http-uri-raw",
        ),
        "http.uri.raw" => (
            "sticky buffer: the HTTP request URI as sent",
            "rules/http-keywords.html#http-uri-and-http-raw-uri",
        ),
        "http.method" => (
            "sticky buffer: the HTTP request method",
            "rules/http-keywords.html#http-method",
        ),
        "http.request_line" => (
            "sticky buffer: the whole HTTP request line",
            "rules/http-keywords.html#http-request-line",
        ),
        "http.request_body" => (
            "sticky buffer: the HTTP request body",
            "rules/http-keywords.html#http-client-body",
        ),
        "http.response_body" => (
            "sticky buffer: the HTTP response body (file_data to the client)",
            "rules/http-keywords.html#http-server-body",
        ),
        "http.header" => (
            "sticky buffer: the normalised HTTP headers",
            "rules/http-keywords.html#http-header-and-http-raw-header",
        ),
        "http.header.raw" => (
            "sticky buffer: the HTTP headers as sent",
            "rules/http-keywords.html#http-header-and-http-raw-header",
        ),
        "http.cookie" => (
            "sticky buffer: the HTTP Cookie header",
            "rules/http-keywords.html#http-cookie",
        ),
        "http.user_agent" => (
            "sticky buffer: the HTTP User-Agent header",
            "rules/http-keywords.html#http-user-agent",
        ),
        "http.host" => (
            "sticky buffer: the normalised HTTP Host",
            "rules/http-keywords.html#http-host-and-http-raw-host",
        ),
        "http.host.raw" => (
            "sticky buffer: the HTTP Host as sent",
            "rules/http-keywords.html#http-host-and-http-raw-host",
        ),
        "http.accept" => (
            "sticky buffer: the HTTP Accept header",
            "rules/http-keywords.html#http-accept",
        ),
        "http.accept_enc" => (
            "sticky buffer: the HTTP Accept-Encoding header",
            "rules/http-keywords.html#http-accept-enc",
        ),
        "http.accept_lang" => (
            "sticky buffer: the HTTP Accept-Language header",
            "rules/http-keywords.html#http-accept-lang",
        ),
        "http.connection" => (
            "sticky buffer: the HTTP Connection header",
            "rules/http-keywords.html#http-connection",
        ),
        "http.content_type" => (
            "sticky buffer: the HTTP Content-Type header",
            "rules/http-keywords.html#http-content-type",
        ),
        "http.content_len" => (
            "sticky buffer: the HTTP Content-Length header",
            "rules/http-keywords.html#http-content-len",
        ),
        "http.referer" => (
            "sticky buffer: the HTTP Referer header",
            "rules/http-keywords.html#http-referer",
        ),
        "http.start" => (
            "sticky buffer: the HTTP start line and headers",
            "rules/http-keywords.html#http-start",
        ),
        "http.header_names" => (
            "sticky buffer: the names of the HTTP headers",
            "rules/http-keywords.html#http-header-names",
        ),
        "http.protocol" => (
            "sticky buffer: the HTTP protocol version string",
            "rules/http-keywords.html#http-protocol",
        ),
        "http.response_line" => (
            "sticky buffer: the whole HTTP response line",
            "rules/http-keywords.html#http-response-line",
        ),
        "http.stat_code" => (
            "sticky buffer: the HTTP response status code",
            "rules/http-keywords.html#http-stat-code",
        ),
        "http.stat_msg" => (
            "sticky buffer: the HTTP response status text",
            "rules/http-keywords.html#http-stat-msg",
        ),
        "http.server" => (
            "sticky buffer: the HTTP Server header",
            "rules/http-keywords.html#http-server",
        ),
        "http.location" => (
            "sticky buffer: the HTTP Location header",
            "rules/http-keywords.html#http-location",
        ),
        "http.request_header" => (
            "sticky buffer: one HTTP request header (name: value)",
            "rules/http-keywords.html#request_header",
        ),
        "http.response_header" => (
            "sticky buffer: one HTTP response header (name: value)",
            "rules/http2-keywords.html#response_header",
        ),
        "http2.header_name" => (
            "sticky buffer: the name of an HTTP/2 header",
            "rules/http2-keywords.html#header_name",
        ),
        "file.data" => (
            "sticky buffer: file contents (HTTP bodies, SMTP attachments ...)",
            "rules/file-keywords.html#file-data",
        ),
        "file.name" => (
            "sticky buffer: the name of a file",
            "rules/file-keywords.html#filename",
        ),
        "file.magic" => (
            "sticky buffer: the libmagic type of a file",
            "rules/file-keywords.html#filemagic",
        ),
        "base64_data" => (
            "sticky buffer: the data base64_decode decoded",
            "rules/base64-keywords.html#base64-data",
        ),
        "dns.query" => (
            "sticky buffer: the name queried in a DNS request",
            "rules/dns-keywords.html#dns-query",
        ),
        "tls.sni" => (
            "sticky buffer: the TLS server name indication",
            "rules/tls-keywords.html#tls-sni",
        ),
        "tls.cert_subject" => (
            "sticky buffer: the TLS certificate subject",
            "rules/tls-keywords.html#tls-cert-subject",
        ),
        "tls.cert_issuer" => (
            "sticky buffer: the TLS certificate issuer",
            "rules/tls-keywords.html#tls-cert-issuer",
        ),
        "tls.cert_serial" => (
            "sticky buffer: the TLS certificate serial number",
            "rules/tls-keywords.html#tls-cert-serial",
        ),
        "tls.cert_fingerprint" => (
            "sticky buffer: the TLS certificate SHA-1 fingerprint",
            "rules/tls-keywords.html#tls-cert-fingerprint",
        ),
        "tls.certs" => (
            "sticky buffer: each TLS certificate of the chain",
            "rules/tls-keywords.html#tls-certs",
        ),
        "tls.cert_chain_len" => (
            "sticky buffer: the number of TLS certificates in the chain",
            "rules/tls-keywords.html#tls-cert-chain-len",
        ),
        "tls.random" => (
            "sticky buffer: the TLS hello random (32 bytes)",
            "rules/tls-keywords.html#tls-random",
        ),
        "tls.random_time" => (
            "sticky buffer: the first 4 bytes of the TLS hello random",
            "rules/tls-keywords.html#tls-random-time",
        ),
        "tls.random_bytes" => (
            "sticky buffer: the last 28 bytes of the TLS hello random",
            "rules/tls-keywords.html#tls-random-bytes",
        ),
        "tls.alpn" => (
            "sticky buffer: a TLS application protocol (ALPN) name",
            "rules/tls-keywords.html",
        ),
        "ja3.hash" => (
            "sticky buffer: the JA3 hash of the TLS client hello",
            "rules/ja3-keywords.html#ja3-hash",
        ),
        "ja3.string" => (
            "sticky buffer: the JA3 string of the TLS client hello",
            "rules/ja3-keywords.html#ja3-string",
        ),
        "ja3s.hash" => (
            "sticky buffer: the JA3S hash of the TLS server hello",
            "rules/ja3-keywords.html#ja3s-hash",
        ),
        "ja3s.string" => (
            "sticky buffer: the JA3S string of the TLS server hello",
            "rules/ja3-keywords.html#ja3s-string",
        ),
        "ja4.hash" => (
            "sticky buffer: the JA4 hash of the TLS client hello",
            "rules/ja4-keywords.html#ja4-hash",
        ),
        "ssh.proto" => (
            "sticky buffer: the SSH protocol version string",
            "rules/ssh-keywords.html#ssh-proto",
        ),
        "ssh.software" => (
            "sticky buffer: the SSH software version string",
            "rules/ssh-keywords.html#ssh-software",
        ),
        "ssh.hassh" => (
            "sticky buffer: the HASSH hash of the SSH client",
            "rules/ssh-keywords.html#hassh",
        ),
        "ssh.hassh.string" => (
            "sticky buffer: the HASSH string of the SSH client",
            "rules/ssh-keywords.html#hassh.string",
        ),
        "ssh.hassh.server" => (
            "sticky buffer: the HASSH hash of the SSH server",
            "rules/ssh-keywords.html#ssh.hassh.server",
        ),
        "ssh.hassh.server.string" => (
            "sticky buffer: the HASSH string of the SSH server",
            "rules/ssh-keywords.html#ssh.hassh.server.string",
        ),
        "krb5.cname" => (
            "sticky buffer: a Kerberos 5 client name",
            "rules/kerberos-keywords.html#krb5-cname",
        ),
        "krb5.sname" => (
            "sticky buffer: a Kerberos 5 service name",
            "rules/kerberos-keywords.html#krb5-sname",
        ),
        "smb.named_pipe" => (
            "sticky buffer: the SMB named pipe",
            "rules/smb-keywords.html#smb-named-pipe",
        ),
        "smb.share" => (
            "sticky buffer: the SMB share",
            "rules/smb-keywords.html#smb-share",
        ),
        "smb.ntlmssp_user" => (
            "sticky buffer: the user name of NTLMSSP authentication over SMB",
            "rules/smb-keywords.html#smb-ntlmssp-user",
        ),
        "smb.ntlmssp_domain" => (
            "sticky buffer: the domain of NTLMSSP authentication over SMB",
            "rules/smb-keywords.html#smb-ntlmssp-domain",
        ),
        "dcerpc.stub_data" => (
            "sticky buffer: the DCERPC stub data",
            "rules/dcerpc-keywords.html#dcerpc-stub-data",
        ),
        "sip.method" => (
            "sticky buffer: the SIP request method",
            "rules/sip-keywords.html#sip-method",
        ),
        "sip.uri" => (
            "sticky buffer: the SIP request URI",
            "rules/sip-keywords.html#sip-uri",
        ),
        "sip.request_line" => (
            "sticky buffer: the whole SIP request line",
            "rules/sip-keywords.html#sip-request-line",
        ),
        "sip.stat_code" => (
            "sticky buffer: the SIP response status code",
            "rules/sip-keywords.html#sip-stat-code",
        ),
        "sip.stat_msg" => (
            "sticky buffer: the SIP response status text",
            "rules/sip-keywords.html#sip-stat-msg",
        ),
        "sip.response_line" => (
            "sticky buffer: the whole SIP response line",
            "rules/sip-keywords.html#sip-response-line",
        ),
        "sip.protocol" => (
            "sticky buffer: the SIP protocol version string",
            "rules/sip-keywords.html#sip-protocol",
        ),
        "quic.sni" => (
            "sticky buffer: the QUIC server name indication",
            "rules/quic-keywords.html#quic-sni",
        ),
        "quic.ua" => (
            "sticky buffer: the QUIC user agent",
            "rules/quic-keywords.html#quic-ua",
        ),
        "quic.version" => (
            "sticky buffer: the QUIC version",
            "rules/quic-keywords.html#quic-version",
        ),
        "quic.cyu.hash" => (
            "sticky buffer: the CYU hash of the QUIC client",
            "rules/quic-cyu.html#quic-cyu-hash",
        ),
        "quic.cyu.string" => (
            "sticky buffer: the CYU string of the QUIC client",
            "rules/quic-cyu.html#quic-cyu-string",
        ),
        "snmp.community" => (
            "sticky buffer: the SNMP community string",
            "rules/snmp-keywords.html#snmp-community",
        ),
        "snmp.usm" => (
            "sticky buffer: the SNMP USM user name",
            "rules/snmp-keywords.html#snmp-usm",
        ),
        "mqtt.connect.clientid" => (
            "sticky buffer: the client id of an MQTT CONNECT",
            "rules/mqtt-keywords.html#mqtt-connect-clientid",
        ),
        "mqtt.connect.username" => (
            "sticky buffer: the user name of an MQTT CONNECT",
            "rules/mqtt-keywords.html#mqtt-connect-username",
        ),
        "mqtt.connect.password" => (
            "sticky buffer: the password of an MQTT CONNECT",
            "rules/mqtt-keywords.html#mqtt-connect-password",
        ),
        "mqtt.connect.willtopic" => (
            "sticky buffer: the will topic of an MQTT CONNECT",
            "rules/mqtt-keywords.html#mqtt-connect-willtopic",
        ),
        "mqtt.connect.willmessage" => (
            "sticky buffer: the will message of an MQTT CONNECT",
            "rules/mqtt-keywords.html#mqtt-connect-willmessage",
        ),
        "mqtt.publish.topic" => (
            "sticky buffer: the topic of an MQTT PUBLISH",
            "rules/mqtt-keywords.html#mqtt-publish-topic",
        ),
        "mqtt.publish.message" => (
            "sticky buffer: the message of an MQTT PUBLISH",
            "rules/mqtt-keywords.html#mqtt-publish-message",
        ),
        "mqtt.subscribe.topic" => (
            "sticky buffer: a topic of an MQTT SUBSCRIBE",
            "rules/mqtt-keywords.html#mqtt-subscribe-topic",
        ),
        "mqtt.unsubscribe.topic" => (
            "sticky buffer: a topic of an MQTT UNSUBSCRIBE",
            "rules/mqtt-keywords.html#mqtt-unsubscribe-topic",
        ),
        "rfb.name" => (
            "sticky buffer: the RFB (VNC) desktop name",
            "rules/rfb-keywords.html#rfb-name",
        ),
        "ike.vendor" => (
            "sticky buffer: an IKE vendor id",
            "rules/ike-keywords.html#ike-vendor",
        ),
        "ike.key_exchange_payload" => (
            "sticky buffer: the IKE key exchange payload",
            "rules/ike-keywords.html#ike-key_exchange_payload",
        ),
        "ike.nonce_payload" => (
            "sticky buffer: the IKE nonce payload",
            "rules/ike-keywords.html#ike-nonce_payload",
        ),
        "ike.init_spi" => (
            "sticky buffer: the IKE initiator SPI",
            "rules/ike-keywords.html#ike-init_spi",
        ),
        "ike.resp_spi" => (
            "sticky buffer: the IKE responder SPI",
            "rules/ike-keywords.html#ike-resp_spi",
        ),
        "dnp3.data" => (
            "sticky buffer: the DNP3 application data",
            "rules/dnp3-keywords.html#dnp3-data",
        ),
        "ftp.command" => ("sticky buffer: the FTP command", "rules/ftp-keywords.html"),
        "tcp.hdr" => (
            "sticky buffer: the TCP header",
            "rules/header-keywords.html#tcphdr",
        ),
        "udp.hdr" => (
            "sticky buffer: the UDP header",
            "rules/header-keywords.html#udphdr",
        ),
        "ipv4.hdr" => (
            "sticky buffer: the IPv4 header",
            "rules/header-keywords.html#ipv4hdr",
        ),
        "ipv6.hdr" => (
            "sticky buffer: the IPv6 header",
            "rules/header-keywords.html#ipv6hdr",
        ),
        "icmpv4.hdr" => (
            "sticky buffer: the ICMPv4 header",
            "rules/header-keywords.html#icmpv4-hdr",
        ),
        "icmpv6.hdr" => (
            "sticky buffer: the ICMPv6 header",
            "rules/header-keywords.html#icmpv6hdr",
        ),
        "ip.src" => (
            "sticky buffer: the source address (4 or 16 bytes)",
            "rules/ipaddr.html#ip-src",
        ),
        "ip.dst" => (
            "sticky buffer: the destination address (4 or 16 bytes)",
            "rules/ipaddr.html#ip-dst",
        ),
        _ => ("", ""),
    }
}
