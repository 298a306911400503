-- TLS: the SNI, the JA3 of the client and the negotiated version.
function init(args)
    local needs = {}
    needs["tls"] = tostring(true)
    return needs
end

function match(args)
    local sni = TlsGetSNI()
    local ja3 = Ja3GetHash()
    local ja3s = Ja3SGetHash()
    local v = TlsGetVersion()
    if sni == "docs.suricata.io" and ja3 ~= nil and string.len(ja3) == 32 then
        return 1
    end
    if v == "TLS 1.2" and ja3s ~= nil and TlsGetCertSerial() ~= nil then
        return 1
    end
    return 0
end
