-- Responses: NXDOMAIN with an authority, or an answer chain through a CNAME.
function init(args)
    local needs = {}
    needs["dns.response"] = tostring(true)
    return needs
end

function match(args)
    local rcode = DnsGetRcode()
    local auth = DnsGetAuthorities()
    local ans = DnsGetAnswers()
    if rcode == "NXDOMAIN" and auth ~= nil and auth[0] ~= nil and auth[0]["type"] == "SOA" then
        return 1
    end
    if rcode == nil and ans ~= nil and ans[0] ~= nil and ans[0]["type"] == "CNAME"
        and ans[1] ~= nil and ans[1]["ttl"] > 0 and ans[1]["addr"] ~= nil then
        return 1
    end
    return 0
end
