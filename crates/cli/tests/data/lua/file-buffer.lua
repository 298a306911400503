-- After `file.data`: the file's data as the sticky buffer, while the file functions
-- still answer no file; matches a non-empty buffer.
function init(args)
    local needs = {}
    needs["buffer"] = tostring(true)
    return needs
end

function match(args)
    local id, err = SCFileInfo()
    local b = args["buffer"]
    if id == nil and err ~= nil and b ~= nil and #b > 0 then
        return 1
    end
    return 0
end
