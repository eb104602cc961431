-- JSONPath subset for the emulated JSON commands (part 2 of the script; see json-scripts.ts).
-- `$`-rooted paths: $, .name, ['name'], ["name"], [index] (negative from the end), [*], .*, [a,b]
-- unions and ..name recursive descent. A path not starting with `$` is a legacy path (`.`, `.a.b`,
-- `a[0]`): RedisJSON answers those with a single value instead of an array of matches.

local function path_error(path, why)
  fail('ERR invalid JSONPath ' .. quote(path) .. ': ' .. why)
end

local function parse_path(text)
  local legacy = string.sub(text, 1, 1) ~= '$'
  local path = text
  if legacy then
    if text == '.' or text == '' then
      path = '$'
    elseif string.find(text, '^[.%[]') then
      path = '$' .. text
    else
      path = '$.' .. text
    end
  end
  local segments = {}
  local pos = 2
  local len = #path

  local function bracket_items()
    -- at '[': items separated by commas up to the closing ']'
    pos = pos + 1
    local items = {}
    while true do
      pos = string.find(path, '[^ ]', pos) or (len + 1)
      local c = string.sub(path, pos, pos)
      if c == "'" or c == '"' then
        local buf = {}
        pos = pos + 1
        while true do
          local d = string.sub(path, pos, pos)
          if d == '' then path_error(text, 'unterminated string') end
          if d == c then pos = pos + 1; break end
          if d == '\\' then pos = pos + 1; d = string.sub(path, pos, pos) end
          buf[#buf + 1] = d
          pos = pos + 1
        end
        items[#items + 1] = {kind = 'name', name = table.concat(buf)}
      elseif c == '*' then
        pos = pos + 1
        items[#items + 1] = {kind = 'wild'}
      else
        local number = string.match(path, '^-?%d+', pos)
        if not number then
          if c == '?' then path_error(text, 'filter expressions are not supported by the emulated JSON commands') end
          path_error(text, 'unexpected ' .. (c == '' and 'end' or quote(c)))
        end
        pos = pos + #number
        if string.find(path, '^ *:', pos) then
          path_error(text, 'slices are not supported by the emulated JSON commands')
        end
        items[#items + 1] = {kind = 'index', index = tonumber(number)}
      end
      pos = string.find(path, '[^ ]', pos) or (len + 1)
      local sep = string.sub(path, pos, pos)
      pos = pos + 1
      if sep == ']' then break end
      if sep ~= ',' then path_error(text, 'expected , or ]') end
    end
    if #items == 1 then return items[1] end
    return {kind = 'union', items = items}
  end

  local function dotted_name()
    if string.sub(path, pos, pos) == '*' then pos = pos + 1; return {kind = 'wild'} end
    local name = string.match(path, '^[^.%[%]]+', pos)
    if not name then path_error(text, 'expected a name after .') end
    pos = pos + #name
    return {kind = 'name', name = name}
  end

  while pos <= len do
    local c = string.sub(path, pos, pos)
    if string.sub(path, pos, pos + 1) == '..' then
      pos = pos + 2
      local inner
      if string.sub(path, pos, pos) == '[' then inner = bracket_items() else inner = dotted_name() end
      segments[#segments + 1] = {kind = 'recurse', inner = inner}
    elseif c == '.' then
      pos = pos + 1
      segments[#segments + 1] = dotted_name()
    elseif c == '[' then
      segments[#segments + 1] = bracket_items()
    else
      path_error(text, 'unexpected ' .. quote(c))
    end
  end
  return {legacy = legacy, segments = segments, text = text, display = path}
end

-- A match is {value=, parent=, key=}: key is a string in an object, a 1-based index in an array.
local function children(match, out)
  local v = match.value
  if is_table(v, 'o') then
    for _, key in ipairs(v.k) do out[#out + 1] = {value = v.v[key], parent = v, key = key} end
  elseif is_table(v, 'a') then
    for i = 1, v.n do out[#out + 1] = {value = v[i], parent = v, key = i} end
  end
end

local apply_segment

local function descendants(match, out)
  out[#out + 1] = match
  local kids = {}
  children(match, kids)
  for _, kid in ipairs(kids) do descendants(kid, out) end
end

apply_segment = function(segment, match, out)
  local kind = segment.kind
  local v = match.value
  if kind == 'name' then
    if is_table(v, 'o') and v.v[segment.name] ~= nil then
      out[#out + 1] = {value = v.v[segment.name], parent = v, key = segment.name}
    end
  elseif kind == 'index' then
    if is_table(v, 'a') then
      local i = segment.index
      if i < 0 then i = v.n + i end
      if i >= 0 and i < v.n then out[#out + 1] = {value = v[i + 1], parent = v, key = i + 1} end
    end
  elseif kind == 'wild' then
    children(match, out)
  elseif kind == 'union' then
    for _, item in ipairs(segment.items) do apply_segment(item, match, out) end
  elseif kind == 'recurse' then
    local all = {}
    descendants(match, all)
    for _, node in ipairs(all) do apply_segment(segment.inner, node, out) end
  end
end

-- Matches of segments[1..last] (all segments when last is nil) against the document root.
local function evaluate(root, segments, last)
  local matches = {{value = root}}
  for i = 1, (last or #segments) do
    local next_matches = {}
    for _, match in ipairs(matches) do apply_segment(segments[i], match, next_matches) end
    matches = next_matches
  end
  return matches
end

local function match_values(matches)
  local values = {}
  for i, match in ipairs(matches) do values[i] = match.value end
  return values
end
