-- Request headers by name (any case) and as a table.
function init(args)
    local needs = {}
    needs["http.request_headers"] = tostring(true)
    return needs
end

function match(args)
    local ua = HttpGetRequestHeader("user-agent")
    local all = HttpGetRequestHeaders()
    local host = HttpGetRequestHost()
    if ua ~= nil and string.find(ua, "curl/", 1, true) and all["Accept"] == "*/*"
        and host ~= nil and all["Host"] ~= nil then
        return 1
    end
    return 0
end
