-- A query for a name under .com, of type A.
function init(args)
    local needs = {}
    needs["dns.rrname"] = tostring(true)
    return needs
end

function match(args)
    local name = tostring(args["dns.rrname"])
    local q = DnsGetQueries()
    if string.sub(name, -4) == ".com" and q ~= nil and q[0] ~= nil
        and q[0]["type"] == "A" and DnsGetDnsRrname() == name then
        return 1
    end
    return 0
end
