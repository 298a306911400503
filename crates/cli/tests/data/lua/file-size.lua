-- Matches a file of at least 100 bytes whose magic names a known type.
function init(args)
    local needs = {}
    needs["payload"] = tostring(true)
    return needs
end

function match(args)
    local fileid, txid, name, size, magic = SCFileInfo()
    if size ~= nil and size >= 100 and magic ~= nil and magic ~= "data" then
        return 1
    end
    return 0
end
