-- The sticky buffer the keyword follows.
function init(args)
    local needs = {}
    needs["buffer"] = tostring(true)
    return needs
end

function match(args)
    local b = tostring(args["buffer"])
    if string.find(b, "jpg", 1, true) or string.find(b, "Apache", 1, true) then
        return 1
    end
    return 0
end
