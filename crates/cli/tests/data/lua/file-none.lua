-- What the file functions give a detection script: no file, as two values (nil and
-- the reason) from each; matches when both say so.
function init(args)
    local needs = {}
    needs["http.response_body"] = tostring(true)
    return needs
end

function match(args)
    local n1, n2 = select('#', SCFileInfo()), select('#', SCFileState())
    local id, err = SCFileInfo()
    local state, err2 = SCFileState()
    if n1 == 2 and n2 == 2 and id == nil and state == nil
        and err == "internal error: no file" and err2 == err then
        return 1
    end
    return 0
end
