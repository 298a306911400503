function init(args)
    local needs = {}
    needs["packet"] = tostring(true)
    return needs
end

function match(args)
    local pkt = args["packet"]
    local ipver, src, dst, proto, sp, dp = SCPacketTuple()
    if ipver == 4 and proto == 6 and sp == 80 and #pkt > 1000 then
        return 1
    end
    return 0
end
