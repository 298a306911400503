function init(args)
    local needs = {}
    needs["packet"] = tostring(true)
    return needs
end

function match(args)
    local ipver, src, dst, proto, sp, dp = SCFlowTuple()
    local alproto = SCFlowAppLayerProto()
    local sec, usec = SCPacketTimestamp()
    if dp == 80 and alproto == "http" and sec % 2 == 0 then
        return 1
    end
    return 0
end
