-- Matches a file once it is closed (SCFileState's first value), stored or not.
function init(args)
    local needs = {}
    needs["http.request_headers"] = tostring(true)
    return needs
end

function match(args)
    local state, stored = SCFileState()
    if state == "CLOSED" or stored == true then
        return 1
    end
    return 0
end
