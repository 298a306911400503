-- A request whose raw URI escapes a character its normalized URI decodes.
function init(args)
    local needs = {}
    needs["http.uri"] = tostring(true)
    return needs
end

function match(args)
    local uri = tostring(args["http.uri"])
    local raw = HttpGetRequestUriRaw()
    local line = HttpGetRequestLine()
    if raw ~= nil and uri ~= raw and HttpGetRequestUriNormalized() == uri
        and line ~= nil and string.find(line, raw, 1, true) then
        return 1
    end
    return 0
end
