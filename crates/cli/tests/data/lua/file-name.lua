-- Matches a file by the suffix of its name (SCFileInfo's third value).
function init(args)
    local needs = {}
    needs["http.response_body"] = tostring(true)
    return needs
end

function match(args)
    local fileid, txid, name, size, magic, md5, sha1, sha256 = SCFileInfo()
    if name ~= nil and string.find(name, "%.[a-z]+$") then
        return 1
    end
    return 0
end
