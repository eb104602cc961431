-- JSONPath subset for the emulated JSON commands (part 2 of the script; see json-script.ts).
-- `$`-rooted paths: $, .name, ['name'], ["name"], [index] (negative from the end), [*], .*, [a,b]
-- unions and ..name recursive descent. A path that is not `$` and does not start with `$.` or `$[`
-- is a legacy path (`.`, `.a.b`, `a[0]`, `$a`), read as RedisJSON 2.x reads it (`.` is `$`, `.a` is
-- `$.a`, anything else `$.` followed by it): RedisJSON answers those with a single value instead of an
-- array of matches, and names the `$` form in its errors.

local function path_error(path, why)
  fail('ERR invalid JSONPath ' .. quote(path) .. ': ' .. why)
end

-- The path's segments are compiled on first use (compile_path), as RedisJSON compiles a path only
-- when it evaluates it: a command that fails earlier (missing key, bad value) reports that instead.
local function parse_path(text)
  local legacy = not (text == '$' or string.find(text, '^%$[.%[]') ~= nil)
  local path = text
  if legacy then
    if text == '.' then
      path = '$'
    elseif string.sub(text, 1, 1) == '.' then
      path = '$' .. text
    else
      path = '$.' .. text
    end
  end
  return {legacy = legacy, text = text, display = path, root = path == '$'}
end

local function compile_path(path_object)
  if path_object.segments then return path_object.segments end
  local text, path = path_object.text, path_object.display
  if path == '$.' then
    -- RedisJSON's JSONPath parser's own words for the empty legacy path.
    fail('Error occurred on position 2, "$. <<<<----", expected one of the following: <string>, \'*\'.')
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
    elseif string.sub(path, pos, pos + 1) == '.[' then
      -- `$.[0]`, RedisJSON's reading of the legacy `[0]`, is `$[0]`.
      pos = pos + 1
      segments[#segments + 1] = bracket_items()
    elseif c == '.' then
      pos = pos + 1
      segments[#segments + 1] = dotted_name()
    elseif c == '[' then
      segments[#segments + 1] = bracket_items()
    else
      path_error(text, 'unexpected ' .. quote(c))
    end
  end
  path_object.segments = segments
  return segments
end

-- A path RedisJSON calls static: every step a single name or index, so it has at most one match.
local function is_static(segments)
  for _, segment in ipairs(segments) do
    if segment.kind ~= 'name' and segment.kind ~= 'index' then return false end
  end
  return true
end

-- A match is {value=, parent=, key=, path=}: key is a string in an object, a 1-based index in an
-- array; path is the list of keys from the root, which mutating commands follow again at the time
-- they change a match (as RedisJSON does), so a match an earlier change moved or removed is missed.
local function child_path(path, key)
  local out = {}
  for i = 1, #path do out[i] = path[i] end
  out[#out + 1] = key
  return out
end

local function children(match, out)
  local v = match.value
  if is_table(v, 'o') then
    for _, key in ipairs(v.k) do
      out[#out + 1] = {value = v.v[key], parent = v, key = key, path = child_path(match.path, key)}
    end
  elseif is_table(v, 'a') then
    for i = 1, v.n do out[#out + 1] = {value = v[i], parent = v, key = i, path = child_path(match.path, i)} end
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
      out[#out + 1] = {value = v.v[segment.name], parent = v, key = segment.name,
        path = child_path(match.path, segment.name)}
    end
  elseif kind == 'index' then
    if is_table(v, 'a') then
      local i = segment.index
      -- As RedisJSON: a negative index past the start means the first item.
      if i < 0 then i = math.max(v.n + i, 0) end
      if i < v.n then out[#out + 1] = {value = v[i + 1], parent = v, key = i + 1, path = child_path(match.path, i + 1)} end
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

-- Matches of the path's segments[1..last] (all segments when last is nil) against the document root.
local function evaluate(root, path_object, last)
  local segments = compile_path(path_object)
  local matches = {{value = root, path = {}}}
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

-- Follows a match's path again from the current root: found, value, parent, key.
local function resolve(root, path)
  local value, parent, key = root, nil, nil
  for _, step in ipairs(path) do
    if is_table(value, 'o') and type(step) == 'string' and value.v[step] ~= nil then
      parent, key, value = value, step, value.v[step]
    elseif is_table(value, 'a') and type(step) == 'number' and step <= value.n then
      parent, key, value = value, step, value[step]
    else
      return false
    end
  end
  return true, value, parent, key
end

-- RedisJSON's order for updating several matches (prepare_paths_for_deletion): longer paths first,
-- names in byte order, higher indexes first; then a path below another matched path is dropped.
local function path_tokens(path)
  local tokens = {}
  for i, step in ipairs(path) do tokens[i] = type(step) == 'number' and tostring(step - 1) or step end
  return tokens
end

local function byte_compare(a, b)
  if a == b then return 0 end
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y and -1 or 1 end
  end
  return #a < #b and -1 or 1
end

local function as_index(token)
  if string.find(token, '^%+?%d+$') and #token <= 19 then return tonumber(token) end
  return nil
end

local function compare_paths(t1, t2)
  local i = 1
  while true do
    local p1, p2 = t1[i], t2[i]
    if p1 == nil and p2 == nil then return 0 end
    if p2 == nil then return -1 end
    if p1 == nil then return 1 end
    local i1, i2 = as_index(p1), as_index(p2)
    if not i1 and not i2 then
      local c = byte_compare(p1, p2)
      if c ~= 0 then return c end
    elseif i1 and not i2 then
      return 1
    elseif i2 and not i1 then
      return -1
    elseif i1 ~= i2 then
      return i1 > i2 and -1 or 1
    end
    i = i + 1
  end
end

-- Stable merge sort (table.sort is neither stable nor safe with every comparator).
local function stable_sort(items, compare)
  local n = #items
  if n < 2 then return items end
  local width, src, dst = 1, items, {}
  while width < n do
    local i = 1
    while i <= n do
      local mid, hi = math.min(i + width, n + 1), math.min(i + 2 * width, n + 1)
      local a, b, k = i, mid, i
      while a < mid and b < hi do
        if compare(src[b], src[a]) < 0 then dst[k] = src[b]; b = b + 1 else dst[k] = src[a]; a = a + 1 end
        k = k + 1
      end
      while a < mid do dst[k] = src[a]; a = a + 1; k = k + 1 end
      while b < hi do dst[k] = src[b]; b = b + 1; k = k + 1 end
      i = i + 2 * width
    end
    src, dst = dst, src
    width = width * 2
  end
  for i = 1, n do items[i] = src[i] end
  return items
end

local function prepare_paths(paths)
  if #paths < 2 then return paths end
  local entries = {}
  for i, path in ipairs(paths) do
    local tokens = path_tokens(path)
    entries[i] = {path = path, tokens = tokens, joined = table.concat(tokens, ',')}
  end
  stable_sort(entries, function(a, b) return compare_paths(a.tokens, b.tokens) end)
  local sorted = {}
  for i, entry in ipairs(entries) do sorted[i] = entry.joined end
  stable_sort(sorted, byte_compare)
  -- Rust's binary search over the sorted strings: the position it lands on for each path.
  local function search(s)
    local size, left, right = #sorted, 1, #sorted + 1
    while left < right do
      local mid = left + math.floor(size / 2)
      local c = byte_compare(sorted[mid], s)
      if c == 0 then return mid end
      if c < 0 then left = mid + 1 else right = mid end
      size = right - left
    end
    return left
  end
  local kept = {}
  for _, entry in ipairs(entries) do
    local found, nested = search(entry.joined), false
    for j = 1, found - 1 do
      if string.sub(entry.joined, 1, #sorted[j]) == sorted[j] then nested = true; break end
    end
    if not nested then kept[#kept + 1] = entry.path end
  end
  for i = 1, #paths do paths[i] = kept[i] end
  return paths
end
