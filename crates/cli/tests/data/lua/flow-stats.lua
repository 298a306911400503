-- Flow counters, alert state and the packet's time string.
function init(args)
    local needs = {}
    needs["packet"] = tostring(true)
    return needs
end

function match(args)
    local tsp, tsb, tcp, tcb = SCFlowStats()
    local t = SCPacketTimeString()
    local s1, s2, u1, u2 = SCFlowTimestamps()
    local sec, usec = SCPacketTimestamp()
    if tsp == nil or t == nil then return 0 end
    if s2 ~= sec or u2 ~= usec or s1 > s2 then return 0 end
    if not string.find(t, "^%d%d/%d%d/%d%d%d%d%-%d%d:%d%d:%d%d%.%d%d%d%d%d%d$") then return 0 end
    if tsp == 2 and tcp >= 1 and tsb > 100 and not SCFlowHasAlerts() then
        return 1
    end
    if tcp == 3 and SCFlowHasAlerts() then
        return 1
    end
    return 0
end
