-- The response body as chunks with offsets.
function init(args)
    local needs = {}
    needs["http.response_body"] = tostring(true)
    return needs
end

function match(args)
    local body = tostring(args["http.response_body"])
    local chunks, first, last = HttpGetResponseBody()
    if chunks == nil then return 0 end
    if #body > 100 then
        return 1
    end
    return 0
end
