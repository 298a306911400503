function init(args)
  local needs = {}
  needs["payload"] = tostring(true)
  return needs
end
