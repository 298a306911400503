-- SSH: an OpenSSH client talking SSH 2.0 to the server.
function init(args)
    local needs = {}
    needs["ssh"] = tostring(true)
    return needs
end

function match(args)
    local sw = SshGetClientSoftwareVersion()
    local sv = SshGetServerProtoVersion()
    local cv = SshGetClientProtoVersion()
    if sw ~= nil and string.find(sw, "OpenSSH", 1, true) and sv == "2.0" and cv == "2.0"
        and SshGetServerSoftwareVersion() ~= nil then
        return 1
    end
    return 0
end
