-- An output script's file need: detection scripts cannot ask for files.
function init(args)
    local needs = {}
    needs["type"] = "file"
    return needs
end

function match(args)
    return 1
end
