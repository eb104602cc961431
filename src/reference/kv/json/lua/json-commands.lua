-- The emulated JSON commands (part 4 of the script; see json-scripts.ts). Reply forms and error texts
-- mirror RedisJSON 2.x on RESP2: `$` paths answer per match (JSON array strings for GET, MGET and
-- NUMINCRBY; arrays with nil for non-matching types elsewhere), legacy paths answer one value.
-- KEYS: the document keys; ARGV[1]: the command name; ARGV[2..]: the remaining arguments.

local WRONGTYPE = 'WRONGTYPE Operation against a key holding the wrong kind of value'
local NO_KEY = "ERR could not perform this operation on a key that doesn't exist"

-- Documents are JSON text in a plain string key; anything else there is the wrong kind of value.
local function load(key)
  local kind = redis.call('TYPE', key).ok
  if kind == 'none' then return nil end
  if kind ~= 'string' then fail(WRONGTYPE) end
  local ok, doc = pcall(parse_json, redis.call('GET', key))
  if not ok then fail(WRONGTYPE) end
  return doc
end

local function save(key, doc)
  redis.call('SET', key, encode(doc), 'KEEPTTL')
end

local function copy(v)
  if type(v) ~= 'table' or v == NULL or v.t == 'n' then return v end
  if v.t == 'a' then
    local arr = {t = 'a', n = v.n}
    for i = 1, v.n do arr[i] = copy(v[i]) end
    return arr
  end
  local obj = {t = 'o', k = {}, v = {}}
  for i, key in ipairs(v.k) do obj.k[i] = key; obj.v[key] = copy(v.v[key]) end
  return obj
end

local function path_missing(path)
  fail("ERR Path '" .. path.display .. "' does not exist")
end

local function expected(what, value)
  fail('WRONGTYPE wrong type of path value - expected ' .. what .. ' but found ' .. type_name(value))
end

-- The root match has no parent: its new value is read back from match.value by the caller.
local function replace(match, value)
  local parent = match.parent
  if parent ~= nil then
    if parent.t == 'o' then parent.v[match.key] = value else parent[match.key] = value end
  end
  match.value = value
end

-- Commands -----------------------------------------------------------------------------------------

local commands = {}

commands['JSON.SET'] = function(key, args)
  local path = parse_path(args[1])
  local value = parse_json(args[2])
  local condition
  for i = 3, #args do
    local option = string.upper(args[i])
    if (option == 'NX' or option == 'XX') and not condition then condition = option else fail('ERR syntax error') end
  end
  local doc = load(key)
  local at_root = #path.segments == 0
  if doc == nil then
    if not at_root then fail('ERR new objects must be created at the root') end
    if condition == 'XX' then return false end
    save(key, value)
    return {ok = 'OK'}
  end
  if at_root then
    if condition == 'NX' then return false end
    save(key, value)
    return {ok = 'OK'}
  end
  local matches = evaluate(doc, path.segments)
  if #matches > 0 then
    if condition == 'NX' then return false end
    for i, match in ipairs(matches) do replace(match, i == 1 and value or copy(value)) end
  else
    if condition == 'XX' then return false end
    local last = path.segments[#path.segments]
    if last.kind ~= 'name' then return false end
    local created = 0
    for _, parent in ipairs(evaluate(doc, path.segments, #path.segments - 1)) do
      local object = parent.value
      if is_table(object, 'o') and object.v[last.name] == nil then
        object.k[#object.k + 1] = last.name
        object.v[last.name] = created == 0 and value or copy(value)
        created = created + 1
      end
    end
    if created == 0 then return false end
  end
  save(key, doc)
  return {ok = 'OK'}
end

local get_options = {INDENT = 'indent', NEWLINE = 'newline', SPACE = 'space'}

commands['JSON.GET'] = function(key, args)
  local fmt, paths = nil, {}
  local i = 1
  while i <= #args do
    local arg = args[i]
    local option = #arg <= 8 and get_options[string.upper(arg)]
    if option then
      if i == #args then fail('ERR wrong number of arguments for \'json.get\' command') end
      fmt = fmt or {indent = '', newline = '', space = ''}
      fmt[option] = args[i + 1]
      i = i + 2
    elseif #arg <= 8 and string.upper(arg) == 'NOESCAPE' then
      i = i + 1
    else
      paths[#paths + 1] = parse_path(arg)
      i = i + 1
    end
  end
  if #paths == 0 then paths[1] = parse_path('.') end
  local doc = load(key)
  if doc == nil then return false end
  local any_dollar = false
  for _, path in ipairs(paths) do if not path.legacy then any_dollar = true end end

  if #paths == 1 then
    local matches = evaluate(doc, paths[1].segments)
    if any_dollar then return encode(new_array(match_values(matches)), fmt) end
    if #matches == 0 then path_missing(paths[1]) end
    return encode(matches[1].value, fmt)
  end
  local result = {t = 'o', k = {}, v = {}}
  for _, path in ipairs(paths) do
    local matches = evaluate(doc, path.segments)
    local value
    if any_dollar then
      value = new_array(match_values(matches))
    else
      if #matches == 0 then path_missing(path) end
      value = matches[1].value
    end
    if result.v[path.text] == nil then result.k[#result.k + 1] = path.text end
    result.v[path.text] = value
  end
  return encode(result, fmt)
end

commands['JSON.MGET'] = function(_, args, keys)
  local path = parse_path(args[1])
  local replies = {}
  for i, key in ipairs(keys) do
    -- A key that is missing or holds no JSON document answers nil, as in RedisJSON.
    local ok, doc = pcall(load, key)
    if not ok or doc == nil then
      replies[i] = false
    else
      local matches = evaluate(doc, path.segments)
      if not path.legacy then
        replies[i] = encode(new_array(match_values(matches)))
      elseif #matches > 0 then
        replies[i] = encode(matches[1].value)
      else
        replies[i] = false
      end
    end
  end
  return replies
end

commands['JSON.DEL'] = function(key, args)
  local path = parse_path(args[1] or '.')
  local doc = load(key)
  if doc == nil then return 0 end
  if #path.segments == 0 then
    redis.call('DEL', key)
    return 1
  end
  local deleted = 0
  local array_drops = {}
  for _, match in ipairs(evaluate(doc, path.segments)) do
    local parent = match.parent
    if parent.t == 'o' then
      if parent.v[match.key] ~= nil then
        parent.v[match.key] = nil
        for i, k in ipairs(parent.k) do
          if k == match.key then table.remove(parent.k, i); break end
        end
        deleted = deleted + 1
      end
    else
      array_drops[parent] = array_drops[parent] or {}
      if not array_drops[parent][match.key] then
        array_drops[parent][match.key] = true
        deleted = deleted + 1
      end
    end
  end
  for array, drops in pairs(array_drops) do
    local kept = 0
    for i = 1, array.n do
      local item = array[i]
      if not drops[i] then kept = kept + 1; array[kept] = item end
    end
    for i = kept + 1, array.n do array[i] = nil end
    array.n = kept
  end
  if deleted > 0 then save(key, doc) end
  return deleted
end
commands['JSON.FORGET'] = commands['JSON.DEL']

commands['JSON.TYPE'] = function(key, args)
  local path = parse_path(args[1] or '.')
  local doc = load(key)
  if doc == nil then return false end
  local matches = evaluate(doc, path.segments)
  if path.legacy then
    if #matches == 0 then return false end
    return {ok = type_name(matches[1].value)}
  end
  local types = {}
  for i, match in ipairs(matches) do types[i] = type_name(match.value) end
  return types
end

-- The shape shared by STRLEN, ARRLEN and OBJKEYS: per match for `$`, first match for legacy paths.
local function inspect(key, path_text, kind, what, measure)
  local path = parse_path(path_text or '.')
  local doc = load(key)
  if doc == nil then
    if path.legacy then return false end
    fail(NO_KEY)
  end
  local matches = evaluate(doc, path.segments)
  if path.legacy then
    if #matches == 0 then path_missing(path) end
    local value = matches[1].value
    if type_name(value) ~= kind then expected(what, value) end
    return measure(value)
  end
  local replies = {}
  for i, match in ipairs(matches) do
    replies[i] = type_name(match.value) == kind and measure(match.value) or false
  end
  return replies
end

commands['JSON.STRLEN'] = function(key, args)
  return inspect(key, args[1], 'string', 'string', function(s) return #s end)
end

commands['JSON.ARRLEN'] = function(key, args)
  return inspect(key, args[1], 'array', 'array', function(a) return a.n end)
end

commands['JSON.OBJKEYS'] = function(key, args)
  return inspect(key, args[1], 'object', 'object', function(o)
    local names = {}
    for i, name in ipairs(o.k) do names[i] = name end
    return names
  end)
end

commands['JSON.OBJLEN'] = function(key, args)
  return inspect(key, args[1], 'object', 'object', function(o) return #o.k end)
end

-- The shape shared by NUMINCRBY and ARRAPPEND: update each match of the right type.
local function update(key, path_text, accepts, what, change)
  local path = parse_path(path_text)
  local doc = load(key)
  if doc == nil then fail(NO_KEY) end
  local matches = evaluate(doc, path.segments)
  local replies, last, changed, wrong = {}, nil, false, nil
  for i, match in ipairs(matches) do
    if accepts(match.value) then
      replies[i] = change(match)
      last = replies[i]
      changed = true
    else
      replies[i] = false
      wrong = wrong or match.value
    end
  end
  if changed then
    if matches[1].parent == nil then doc = matches[1].value end
    save(key, doc)
  end
  if path.legacy then
    if #matches == 0 then path_missing(path) end
    if last == nil then expected(what, wrong) end
    return replies, last, true
  end
  return replies, last, false
end

local function is_number(v)
  return is_table(v, 'n')
end

commands['JSON.NUMINCRBY'] = function(key, args)
  local increment = parse_json(args[2])
  if not is_number(increment) then fail('ERR expected value at line 1 column 1') end
  local replies, last, legacy = update(key, args[1], is_number, 'a number', function(match)
    local sum = number_add(match.value, increment)
    replace(match, sum)
    return sum
  end)
  if legacy then return last.s end
  local values = {}
  for i = 1, #replies do values[i] = replies[i] or NULL end
  return encode(new_array(values))
end

commands['JSON.ARRAPPEND'] = function(key, args)
  local values = {}
  for i = 2, #args do values[#values + 1] = parse_json(args[i]) end
  local replies, last, legacy = update(key, args[1], function(v) return is_table(v, 'a') end, 'array', function(match)
    local array = match.value
    for i, value in ipairs(values) do
      array.n = array.n + 1
      array[array.n] = i == 1 and value or copy(value)
    end
    return array.n
  end)
  if legacy then return last end
  return replies
end

local name = ARGV[1]
local args = {}
for i = 2, #ARGV do args[#args + 1] = ARGV[i] end
local ok, reply = pcall(commands[name], KEYS[1], args, KEYS)
if ok then return reply end
-- Errors raised by fail() and redis.call() start with a class token; anything else is a defect here.
local text = type(reply) == 'table' and tostring(reply.err) or tostring(reply)
if string.find(text, '^[A-Z]+ ') then return redis.error_reply(text) end
return redis.error_reply('ERR emulated ' .. name .. ' failed: ' .. text)
