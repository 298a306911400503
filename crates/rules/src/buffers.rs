//! Inspection buffers: the packet payload and every sticky buffer Suricata 7 knows, with
//! their legacy (underscore) names and the Snort-style content modifiers that map to them.

macro_rules! define_buffers {
    ($( $v:ident = $name:literal $(| $alias:literal)* ;)*) => {
        /// Where a match is evaluated.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub enum Buffer {
            /// The packet payload or reassembled stream (`pkt_data`, the default).
            #[default]
            Payload,
            /// An application-layer frame (`frame:tls.pdu`): the frame's bytes.
            Frame(crate::frames::FrameType),
            $(
                #[doc = concat!("`", $name, "`")]
                $v,
            )*
        }

        impl Buffer {
            /// Every buffer, payload first.
            pub const ALL: &'static [Buffer] = &[Buffer::Payload, $(Buffer::$v),*];

            /// Canonical (Suricata 7 dotted) name; `pkt_data` for the payload.
            pub fn name(self) -> &'static str {
                match self {
                    Buffer::Payload => "pkt_data",
                    Buffer::Frame(t) => t.name(),
                    $(Buffer::$v => $name,)*
                }
            }

            /// Other names of the sticky buffer keyword (legacy underscore names).
            pub fn aliases(self) -> &'static [&'static str] {
                match self {
                    Buffer::Payload | Buffer::Frame(_) => &[],
                    $(Buffer::$v => &[$($alias),*],)*
                }
            }

            /// Looks up a sticky buffer keyword (canonical or legacy name).
            pub fn from_sticky(kw: &str) -> Option<Buffer> {
                match kw {
                    "pkt_data" => Some(Buffer::Payload),
                    $($name $(| $alias)* => Some(Buffer::$v),)*
                    _ => None,
                }
            }
        }
    };
}

define_buffers! {
    HttpUri = "http.uri";
    HttpUriRaw = "http.uri.raw";
    HttpMethod = "http.method";
    HttpRequestLine = "http.request_line" | "http_request_line";
    HttpRequestBody = "http.request_body";
    HttpHeader = "http.header";
    HttpHeaderRaw = "http.header.raw";
    HttpCookie = "http.cookie";
    HttpUserAgent = "http.user_agent";
    HttpHost = "http.host";
    HttpHostRaw = "http.host.raw";
    HttpAccept = "http.accept" | "http_accept";
    HttpAcceptEnc = "http.accept_enc" | "http_accept_enc";
    HttpAcceptLang = "http.accept_lang" | "http_accept_lang";
    HttpConnection = "http.connection" | "http_connection";
    HttpContentType = "http.content_type" | "http_content_type";
    HttpContentLen = "http.content_len" | "http_content_len";
    HttpReferer = "http.referer" | "http_referer";
    HttpStart = "http.start" | "http_start";
    HttpHeaderNames = "http.header_names" | "http_header_names";
    HttpProtocol = "http.protocol" | "http_protocol";
    HttpResponseLine = "http.response_line" | "http_response_line";
    HttpStatCode = "http.stat_code";
    HttpStatMsg = "http.stat_msg";
    HttpServer = "http.server";
    HttpLocation = "http.location";
    HttpRequestHeader = "http.request_header";
    HttpResponseHeader = "http.response_header";
    Http2HeaderName = "http2.header_name";
    // Suricata 7: `http.response_body`/`http_server_body` read file_data's buffer (the
    // body), but only to the client: a rule with them never matches a request body.
    HttpResponseBody = "http.response_body";
    FileData = "file.data" | "file_data";
    FileName = "file.name" | "filename";
    FileMagic = "file.magic";
    Base64Data = "base64_data";
    DnsQuery = "dns.query" | "dns_query";
    TlsSni = "tls.sni" | "tls_sni";
    TlsCertSubject = "tls.cert_subject" | "tls_cert_subject";
    TlsCertIssuer = "tls.cert_issuer" | "tls_cert_issuer";
    TlsCertSerial = "tls.cert_serial" | "tls_cert_serial";
    TlsCertFingerprint = "tls.cert_fingerprint" | "tls_cert_fingerprint";
    TlsCerts = "tls.certs";
    TlsCertChainLen = "tls.cert_chain_len";
    TlsRandom = "tls.random";
    TlsRandomTime = "tls.random_time";
    TlsRandomBytes = "tls.random_bytes";
    TlsAlpn = "tls.alpn";
    Ja3Hash = "ja3.hash" | "ja3_hash";
    Ja3String = "ja3.string" | "ja3_string";
    Ja3sHash = "ja3s.hash";
    Ja3sString = "ja3s.string";
    Ja4Hash = "ja4.hash";
    SshProto = "ssh.proto" | "ssh_proto";
    SshSoftware = "ssh.software" | "ssh_software";
    SshHassh = "ssh.hassh";
    SshHasshString = "ssh.hassh.string";
    SshHasshServer = "ssh.hassh.server";
    SshHasshServerString = "ssh.hassh.server.string";
    Krb5Cname = "krb5.cname" | "krb5_cname";
    Krb5Sname = "krb5.sname" | "krb5_sname";
    SmbNamedPipe = "smb.named_pipe";
    SmbShare = "smb.share";
    SmbNtlmsspUser = "smb.ntlmssp_user";
    SmbNtlmsspDomain = "smb.ntlmssp_domain";
    DceStubData = "dcerpc.stub_data" | "dce_stub_data";
    SipMethod = "sip.method";
    SipUri = "sip.uri";
    SipRequestLine = "sip.request_line";
    SipStatCode = "sip.stat_code";
    SipStatMsg = "sip.stat_msg";
    SipResponseLine = "sip.response_line";
    SipProtocol = "sip.protocol";
    QuicSni = "quic.sni";
    QuicUa = "quic.ua";
    QuicVersion = "quic.version";
    QuicCyuHash = "quic.cyu.hash";
    QuicCyuString = "quic.cyu.string";
    SnmpCommunity = "snmp.community";
    SnmpUsm = "snmp.usm";
    MqttConnectClientId = "mqtt.connect.clientid";
    MqttConnectUsername = "mqtt.connect.username";
    MqttConnectPassword = "mqtt.connect.password";
    MqttConnectWillTopic = "mqtt.connect.willtopic";
    MqttConnectWillMessage = "mqtt.connect.willmessage";
    MqttPublishTopic = "mqtt.publish.topic";
    MqttPublishMessage = "mqtt.publish.message";
    MqttSubscribeTopic = "mqtt.subscribe.topic";
    MqttUnsubscribeTopic = "mqtt.unsubscribe.topic";
    RfbName = "rfb.name";
    IkeVendor = "ike.vendor";
    IkeKeyExchange = "ike.key_exchange_payload";
    IkeNonce = "ike.nonce_payload";
    IkeInitSpi = "ike.init_spi";
    IkeRespSpi = "ike.resp_spi";
    Dnp3Data = "dnp3.data" | "dnp3_data";
    FtpCommand = "ftp.command";
    TcpHdr = "tcp.hdr";
    UdpHdr = "udp.hdr";
    Ipv4Hdr = "ipv4.hdr";
    Ipv6Hdr = "ipv6.hdr";
    Icmpv4Hdr = "icmpv4.hdr";
    Icmpv6Hdr = "icmpv6.hdr";
    IpSrc = "ip.src";
    IpDst = "ip.dst";
}

impl Buffer {
    /// Whether each use of the sticky buffer keyword starts a list of its own, which
    /// may match another instance of the multi-buffer than the rule's other lists of
    /// the same buffer (Suricata 7's multiple buffer matching:
    /// `http.request_header; content:"Host: "; http.request_header; content:"Accept: ";`
    /// matches two different headers). Checked against Suricata 7.0.10 for these
    /// buffers (`cli/tests/keywords_request_header.rs`) and for `krb5.cname`/`krb5.sname`
    /// (`sname; content:"krbtgt"; sname; isdataat:6;` matches `krbtgt/DT.TEST`: found by
    /// the differential harness's `krb5` family) and `tls.certs` (`tls.certs;
    /// isdataat:351; tls.certs; content:"0|82 01|[";` matches a chain whose longer
    /// certificate is not the one that starts so: difftest case dt-1956495344-2641); the
    /// other multi-buffers still gather every use of their keyword in one list.
    pub fn list_per_keyword(self) -> bool {
        matches!(
            self,
            Buffer::HttpRequestHeader
                | Buffer::HttpResponseHeader
                | Buffer::Http2HeaderName
                | Buffer::Krb5Cname
                | Buffer::Krb5Sname
                | Buffer::TlsCerts
        )
    }

    /// The buffer a Snort-style content modifier (`content:"x"; http_uri;`) moves the
    /// preceding content to.
    pub fn from_content_modifier(kw: &str) -> Option<Buffer> {
        Some(match kw {
            "http_uri" => Buffer::HttpUri,
            "http_raw_uri" => Buffer::HttpUriRaw,
            "http_method" => Buffer::HttpMethod,
            "http_client_body" => Buffer::HttpRequestBody,
            "http_server_body" => Buffer::HttpResponseBody,
            "http_header" => Buffer::HttpHeader,
            "http_raw_header" => Buffer::HttpHeaderRaw,
            // Snort 2.9's raw cookie: Suricata has one cookie buffer.
            "http_cookie" | "http_raw_cookie" => Buffer::HttpCookie,
            "http_user_agent" => Buffer::HttpUserAgent,
            "http_host" => Buffer::HttpHost,
            "http_raw_host" => Buffer::HttpHostRaw,
            "http_stat_code" => Buffer::HttpStatCode,
            "http_stat_msg" => Buffer::HttpStatMsg,
            _ => return None,
        })
    }

    /// The Snort-style modifier name for a buffer, if it has one.
    pub fn content_modifier(self) -> Option<&'static str> {
        Some(match self {
            Buffer::HttpUri => "http_uri",
            Buffer::HttpUriRaw => "http_raw_uri",
            Buffer::HttpMethod => "http_method",
            Buffer::HttpRequestBody => "http_client_body",
            Buffer::HttpResponseBody => "http_server_body",
            Buffer::HttpHeader => "http_header",
            Buffer::HttpHeaderRaw => "http_raw_header",
            Buffer::HttpCookie => "http_cookie",
            Buffer::HttpUserAgent => "http_user_agent",
            Buffer::HttpHost => "http_host",
            Buffer::HttpHostRaw => "http_raw_host",
            Buffer::HttpStatCode => "http_stat_code",
            Buffer::HttpStatMsg => "http_stat_msg",
            _ => return None,
        })
    }

    /// The buffer a pcre flag letter (Suricata's `U`, `I`, `H` ...) selects.
    pub fn from_pcre_flag(c: char) -> Option<Buffer> {
        Some(match c {
            'U' => Buffer::HttpUri,
            'I' => Buffer::HttpUriRaw,
            'P' => Buffer::HttpRequestBody,
            'Q' => Buffer::HttpResponseBody,
            'H' => Buffer::HttpHeader,
            'D' => Buffer::HttpHeaderRaw,
            'M' => Buffer::HttpMethod,
            'C' => Buffer::HttpCookie,
            'S' => Buffer::HttpStatCode,
            'Y' => Buffer::HttpStatMsg,
            'V' => Buffer::HttpUserAgent,
            'W' => Buffer::HttpHost,
            'Z' => Buffer::HttpHostRaw,
            _ => return None,
        })
    }

    /// Legacy names that Suricata 7 registers as sticky buffers besides the dotted ones:
    /// `http_uri` and friends are content modifiers, not sticky buffers, in Suricata 7,
    /// except these which are both.
    pub fn is_payload(self) -> bool {
        self == Buffer::Payload
    }
}

/// Buffer transforms (applied to a sticky buffer before matching).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Transform {
    /// `dotprefix`
    DotPrefix,
    /// `strip_whitespace`
    StripWhitespace,
    /// `compress_whitespace`
    CompressWhitespace,
    /// `to_lowercase`
    ToLowercase,
    /// `to_uppercase`
    ToUppercase,
    /// `to_md5`
    ToMd5,
    /// `to_sha1`
    ToSha1,
    /// `to_sha256`
    ToSha256,
    /// `url_decode`
    UrlDecode,
    /// `header_lowercase`
    HeaderLowercase,
    /// `strip_pseudo_headers`
    StripPseudoHeaders,
    /// `xor:"key"` (hex key bytes)
    Xor(Vec<u8>),
    /// `pcrexform:"regex"`
    PcreXform(String),
}

impl Transform {
    /// Keyword name.
    pub fn name(&self) -> &'static str {
        match self {
            Transform::DotPrefix => "dotprefix",
            Transform::StripWhitespace => "strip_whitespace",
            Transform::CompressWhitespace => "compress_whitespace",
            Transform::ToLowercase => "to_lowercase",
            Transform::ToUppercase => "to_uppercase",
            Transform::ToMd5 => "to_md5",
            Transform::ToSha1 => "to_sha1",
            Transform::ToSha256 => "to_sha256",
            Transform::UrlDecode => "url_decode",
            Transform::HeaderLowercase => "header_lowercase",
            Transform::StripPseudoHeaders => "strip_pseudo_headers",
            Transform::Xor(_) => "xor",
            Transform::PcreXform(_) => "pcrexform",
        }
    }

    /// Transforms that take no value, by keyword.
    pub fn simple(kw: &str) -> Option<Transform> {
        Some(match kw {
            "dotprefix" => Transform::DotPrefix,
            "strip_whitespace" => Transform::StripWhitespace,
            "compress_whitespace" => Transform::CompressWhitespace,
            "to_lowercase" => Transform::ToLowercase,
            "to_uppercase" => Transform::ToUppercase,
            "to_md5" => Transform::ToMd5,
            "to_sha1" => Transform::ToSha1,
            "to_sha256" => Transform::ToSha256,
            "url_decode" => Transform::UrlDecode,
            "header_lowercase" => Transform::HeaderLowercase,
            "strip_pseudo_headers" => Transform::StripPseudoHeaders,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &b in Buffer::ALL {
            assert_eq!(Buffer::from_sticky(b.name()), Some(b), "{b:?}");
            if let Some(m) = b.content_modifier() {
                assert_eq!(Buffer::from_content_modifier(m), Some(b));
            }
        }
        assert_eq!(
            Buffer::from_sticky("http.response_body"),
            Some(Buffer::HttpResponseBody)
        );
        assert_eq!(
            Buffer::from_content_modifier("http_server_body"),
            Some(Buffer::HttpResponseBody)
        );
        {}
        assert_eq!(Buffer::from_sticky("file_data"), Some(Buffer::FileData));
        assert_eq!(Buffer::from_sticky("dns_query"), Some(Buffer::DnsQuery));
        assert_eq!(Buffer::from_sticky("http_uri"), None);
        assert_eq!(
            Buffer::from_content_modifier("http_client_body"),
            Some(Buffer::HttpRequestBody)
        );
        assert_eq!(Buffer::from_pcre_flag('U'), Some(Buffer::HttpUri));
        assert!(Buffer::Payload.is_payload());
    }
}
