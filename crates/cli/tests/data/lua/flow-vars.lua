-- Counts the flow's packets in a flow integer and keeps the last count in a flow
-- variable; matches on the third packet of each flow.
function init(args)
    local needs = {}
    needs["flowvar"] = {"seen"}
    needs["flowint"] = {"lua_pkts"}
    needs["packet"] = tostring(true)
    return needs
end

function match(args)
    local n = ScFlowintGet(0)
    if n == nil then
        ScFlowintSet(0, 1)
    else
        ScFlowintIncr(0)
    end
    local now = ScFlowintGet(0)
    local last = ScFlowvarGet(0)
    ScFlowvarSet(0, "n" .. tostring(now), 1 + string.len(tostring(now)))
    if now == 3 and last == "n2" then
        return 1
    end
    return 0
end
