function init(args)
    local needs = {}
    needs["payload"] = tostring(true)
    return needs
end

function match(args)
    local p = tostring(args["payload"])
    if #p >= 4 and string.sub(p, 1, 4) == "GET " then
        return 1
    end
    return 0
end
