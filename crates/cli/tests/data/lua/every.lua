-- No needs: runs on every packet.
function init(args)
    return {}
end

function match(args)
    local v, src, dst, proto, sp, dp = SCPacketTuple()
    if sp == 80 and args["packet"] == nil then
        return 1
    end
    return 0
end
