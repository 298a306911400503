-- Response line and headers.
function init(args)
    local needs = {}
    needs["http.response_headers"] = tostring(true)
    return needs
end

function match(args)
    local line = HttpGetResponseLine()
    local server = HttpGetResponseHeader("Server")
    local raw = HttpGetRawResponseHeaders()
    if line ~= nil and string.sub(line, 1, 8) == "HTTP/1.1" and server ~= nil
        and string.find(server, "Apache", 1, true) and raw ~= nil
        and string.find(raw, "Server: " .. server, 1, true) then
        return 1
    end
    return 0
end
