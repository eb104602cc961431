-- The emulated JSON commands (part 4 of the script; see json-script.ts). Reply forms and error texts
-- mirror RedisJSON 2.x (2.8.3–2.8.16, the releases whose errors name the path and the found type) on
-- RESP2: `$` paths answer per match (JSON array strings for GET, MGET and NUM*BY; arrays with nil for
-- non-matching types elsewhere), legacy paths answer one value.
-- KEYS: the document keys; ARGV[1]: the command name; ARGV[2..]: the remaining arguments.

local WRONG_KEY_TYPE = 'Existing key has wrong Redis type'
local NO_KEY = "ERR could not perform this operation on a key that doesn't exist"
local COMMAND = ARGV[1]

local function arity_error()
  fail("ERR wrong number of arguments for '" .. string.lower(COMMAND) .. "' command")
end

-- Documents: JSON text in plain string keys, read once per script run into a holder {root=, dirty=};
-- a holder whose root changed is written back when the command ends, even when it ends in an error
-- after changing some matches (RedisJSON changes documents in place, so those changes stay).
local holders = {}

local function open(key)
  local holder = holders[key]
  if holder then return holder end
  holder = {}
  local kind = redis.call('TYPE', key).ok
  if kind ~= 'none' then
    if kind ~= 'string' then fail(WRONG_KEY_TYPE) end
    local ok, doc = pcall(parse_json, redis.call('GET', key))
    if not ok then fail(WRONG_KEY_TYPE) end
    holder.root = doc
  end
  holders[key] = holder
  return holder
end

local function write_back()
  for key, holder in pairs(holders) do
    if holder.dirty then
      if holder.root == nil then
        redis.call('DEL', key)
      else
        redis.call('SET', key, encode(holder.root), 'KEEPTTL')
      end
    end
  end
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

-- Sets the value found at (parent, key); the root when parent is nil.
local function put(holder, parent, key, value)
  if parent == nil then
    holder.root = value
  elseif parent.t == 'o' then
    parent.v[key] = value
  else
    parent[key] = value
  end
  holder.dirty = true
end

-- ijson removes an object's key by moving the last key into its place.
local function object_remove(object, key)
  if object.v[key] == nil then return false end
  local count = #object.k
  for i = 1, count do
    if object.k[i] == key then
      object.k[i] = object.k[count]
      object.k[count] = nil
      break
    end
  end
  object.v[key] = nil
  return true
end

local function array_remove(array, index)
  local item = array[index]
  for i = index, array.n - 1 do array[i] = array[i + 1] end
  array[array.n] = nil
  array.n = array.n - 1
  return item
end

local function path_missing(path)
  fail("ERR Path '" .. path.display .. "' does not exist")
end

local function path_missing_or(path_text, what)
  fail("ERR Path '" .. path_text .. "' does not exist or " .. what)
end

local function expected(what, found_name)
  fail('WRONGTYPE wrong type of path value - expected ' .. what .. ' but found ' .. found_name)
end

local function is_number(v)
  return is_table(v, 'n')
end

local function is_array(v)
  return is_table(v, 'a')
end

local function is_object(v)
  return is_table(v, 'o')
end

local function is_string(v)
  return type(v) == 'string'
end

local function is_bool(v)
  return type(v) == 'boolean'
end

-- Parses a JSON argument where RedisJSON reports serde_json's error with the ERR class.
local function parse_json_err(text)
  local ok, value = pcall(parse_json, text)
  if ok then return value end
  if type(value) == 'table' and value.reply then fail('ERR ' .. value.reply) end
  error(value, 0)
end

local function integer_arg(text)
  local n = parse_integer(text)
  if n == nil then fail("Couldn't parse as integer") end
  return n
end

-- FORMAT of JSON.SET and JSON.MERGE: JSON (or STRING, the same) only; RedisJSON also reads BSON.
local function check_format(word)
  if word == nil then arity_error() end
  if word == 'BSON' then fail('ERR FORMAT BSON is not supported by the emulated JSON commands') end
  if word ~= 'JSON' and word ~= 'STRING' then fail('ERR wrong format') end
end

local function match_paths(matches)
  local paths = {}
  for i, match in ipairs(matches) do paths[i] = match.path end
  return paths
end

-- Where JSON.SET, MSET and MERGE write (RedisJSON's find_paths): every match in match order, or
-- else a new key under each match of all but the last step, which must then be a name.
local function update_targets(doc, path, condition)
  if condition ~= 'NX' then
    local paths = match_paths(evaluate(doc, path))
    if #paths > 0 then
      local targets = {}
      for i, p in ipairs(paths) do targets[i] = {path = p} end
      return targets
    end
  end
  if condition == 'XX' then return {} end
  local segments = compile_path(path)
  if not is_static(segments) then fail('Err wrong static path') end
  if #segments < 1 then fail('Err path must end with object key to set') end
  local last = segments[#segments]
  if last.kind == 'name' then
    if #segments == 1 then return {{parent = {}, name = last.name}} end
    local targets = {}
    for _, match in ipairs(evaluate(doc, path, #segments - 1)) do
      targets[#targets + 1] = {parent = match.path, name = last.name}
    end
    return targets
  end
  if #evaluate(doc, path) == 0 then fail('ERR array index out of range') end
  return {}
end

local merge_patch

-- Writes value at each target (replace, or merge when merging); true when anything changed.
local function apply_targets(holder, value, targets, merging)
  local updated = false
  for i, target in ipairs(targets) do
    local v = i == 1 and value or copy(value)
    if target.path then
      local found, current, parent, key = resolve(holder.root, target.path)
      if found then
        put(holder, parent, key, merging and merge_patch(current, v) or v)
        updated = true
      end
    else
      local found, object = resolve(holder.root, target.parent)
      if found and is_object(object) and object.v[target.name] == nil then
        object.k[#object.k + 1] = target.name
        object.v[target.name] = v
        holder.dirty = true
        updated = true
      end
    end
  end
  return updated
end

-- RFC 7386 as RedisJSON applies it: a non-object patch replaces, null members delete.
merge_patch = function(doc, patch)
  if not is_object(patch) then return copy(patch) end
  if not is_object(doc) then doc = {t = 'o', k = {}, v = {}} end
  for _, key in ipairs(patch.k) do
    local value = patch.v[key]
    if value == NULL then
      object_remove(doc, key)
    else
      local current = doc.v[key]
      if current == nil then
        doc.k[#doc.k + 1] = key
        current = NULL
      end
      doc.v[key] = merge_patch(current, value)
    end
  end
  return doc
end

-- Runs change(value, parent, key) on each path's current value when it is still there and still of
-- the kind wanted; answers per path the change's result, or nil.
local function change_each(holder, paths, wanted, change)
  local results = {}
  for i, p in ipairs(paths) do
    local found, value, parent, key = resolve(holder.root, p)
    if found and wanted(value) then results[i] = change(value, parent, key) end
  end
  return results
end

-- The matches of wanted kind, as a list of paths with false for the others (`$` paths), or only
-- the wanted ones (legacy paths).
local function wanted_paths(holder, path, wanted)
  local all, only = {}, {}
  for i, match in ipairs(evaluate(holder.root, path)) do
    if wanted(match.value) then
      all[i] = match.path
      only[#only + 1] = match.path
    else
      all[i] = false
    end
  end
  return all, only
end

-- ARRINSERT and ARRTRIM on a match an earlier change moved (RedisJSON finds each match again by its
-- path): gone, or no longer an array.
local function stale_array(found, value)
  if not found then fail('ERR Path does not exist') end
  expected('array', type_name(value))
end

-- The per-match reply of a `$` path: results for wanted matches, nil (false) for the others.
local function per_match(all, holder, wanted, change, stale)
  local replies = {}
  for i, p in ipairs(all) do
    replies[i] = false
    if p then
      local found, value, parent, key = resolve(holder.root, p)
      if stale and not (found and wanted(value)) then stale(found, value) end
      if found and wanted(value) then
        local result = change(value, parent, key)
        if result ~= nil then replies[i] = result end
      end
    end
  end
  return replies
end

-- Runs a change on every wanted match of a legacy path, answering the last result; the error
-- when none is of the wanted kind names the path as given by `shown`.
local function legacy_change(holder, path, wanted, shown, what, change, stale)
  local _, only = wanted_paths(holder, path, wanted)
  if #only == 0 then path_missing_or(shown, what) end
  local last
  for _, p in ipairs(only) do
    local found, value, parent, key = resolve(holder.root, p)
    if stale and not (found and wanted(value)) then stale(found, value) end
    if found and wanted(value) then last = change(value, parent, key) end
  end
  return last
end

local function must_exist(holder)
  if holder.root == nil then fail(NO_KEY) end
  return holder
end

-- Commands -----------------------------------------------------------------------------------------

local commands = {}

commands['JSON.SET'] = function(key, args)
  local path = parse_path(args[1])
  local text = args[2]
  local condition
  local i = 3
  while i <= #args do
    local option = string.upper(args[i])
    if option == 'NX' and not condition then
      condition = 'NX'
    elseif option == 'XX' and not condition then
      condition = 'XX'
    elseif option == 'FORMAT' then
      i = i + 1
      check_format(args[i])
    else
      fail('ERR syntax error')
    end
    i = i + 1
  end
  local holder = open(key)
  local value = parse_json(text)
  if holder.root ~= nil then
    if path.root then
      if condition == 'NX' then return false end
      put(holder, nil, nil, value)
      return {ok = 'OK'}
    end
    local targets = update_targets(holder.root, path, condition)
    if #targets > 0 and apply_targets(holder, value, targets, false) then return {ok = 'OK'} end
    return false
  end
  if condition == 'XX' then return false end
  if not path.root then fail('ERR new objects must be created at the root') end
  put(holder, nil, nil, value)
  return {ok = 'OK'}
end

commands['JSON.MERGE'] = function(key, args)
  local path = parse_path(args[1])
  local text = args[2]
  local i = 3
  while i <= #args do
    if string.upper(args[i]) == 'FORMAT' then
      i = i + 1
      check_format(args[i])
    else
      fail('ERR syntax error')
    end
    i = i + 1
  end
  local holder = open(key)
  local patch = parse_json(text)
  if holder.root == nil then
    if not path.root then fail('ERR new objects must be created at the root') end
    put(holder, nil, nil, patch)
    return {ok = 'OK'}
  end
  if path.root then
    put(holder, nil, nil, merge_patch(holder.root, patch))
    return {ok = 'OK'}
  end
  local targets = update_targets(holder.root, path, nil)
  if #targets > 0 and apply_targets(holder, patch, targets, true) then return {ok = 'OK'} end
  return false
end

-- KEYS: the triplets' keys; args: path, value for each key in turn.
commands['JSON.MSET'] = function(_, args, keys)
  local actions = {}
  for i, key in ipairs(keys) do
    local holder = open(key)
    if args[2 * i - 1] == nil then arity_error() end
    local path = parse_path(args[2 * i - 1])
    local targets
    if not path.root then
      if holder.root == nil then fail('ERR new objects must be created at the root') end
      targets = update_targets(holder.root, path, nil)
    end
    if args[2 * i] == nil then arity_error() end
    actions[i] = {holder = holder, targets = targets, value = parse_json(args[2 * i])}
  end
  for _, action in ipairs(actions) do
    if action.targets == nil then
      put(action.holder, nil, nil, action.value)
    elseif #action.targets > 0 then
      apply_targets(action.holder, action.value, action.targets, false)
    end
  end
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
      if i == #args then arity_error() end
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
  local doc = open(key).root
  if doc == nil then return false end
  local any_dollar = false
  for _, path in ipairs(paths) do if not path.legacy then any_dollar = true end end

  if #paths == 1 then
    local matches = evaluate(doc, paths[1])
    if any_dollar then return encode(new_array(match_values(matches)), fmt) end
    if #matches == 0 then path_missing(paths[1]) end
    return encode(matches[1].value, fmt)
  end
  local result = {t = 'o', k = {}, v = {}}
  for _, path in ipairs(paths) do
    local matches = evaluate(doc, path)
    local value
    if any_dollar then
      value = new_array(match_values(matches))
    else
      -- Several legacy paths: RedisJSON names the missing one as given.
      if #matches == 0 then fail("ERR Path '" .. path.text .. "' does not exist") end
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
    local ok, holder = pcall(open, key)
    local doc
    if ok then doc = holder.root end
    if doc == nil then
      replies[i] = false
    else
      local matches = evaluate(doc, path)
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
  local holder = open(key)
  if holder.root == nil then return 0 end
  if path.root then
    put(holder, nil, nil, nil)
    return 1
  end
  local deleted = 0
  for _, p in ipairs(prepare_paths(match_paths(evaluate(holder.root, path)))) do
    local found, _, parent, k = resolve(holder.root, p)
    if found and parent ~= nil then
      if parent.t == 'o' then object_remove(parent, k) else array_remove(parent, k) end
      holder.dirty = true
      deleted = deleted + 1
    end
  end
  return deleted
end
commands['JSON.FORGET'] = commands['JSON.DEL']

commands['JSON.TYPE'] = function(key, args)
  local path = parse_path(args[1] or '.')
  local doc = open(key).root
  if doc == nil then return false end
  local matches = evaluate(doc, path)
  if path.legacy then
    if #matches == 0 then return false end
    return type_name(matches[1].value)
  end
  local types = {}
  for i, match in ipairs(matches) do types[i] = type_name(match.value) end
  return types
end

-- The `$` form of the read-only size commands: per match, nil where the kind is wrong.
local function measure_each(doc, path, wanted, measure)
  local replies = {}
  for i, match in ipairs(evaluate(doc, path)) do
    replies[i] = wanted(match.value) and measure(match.value) or false
  end
  return replies
end

commands['JSON.STRLEN'] = function(key, args)
  local path = parse_path(args[1] or '.')
  local doc = open(key).root
  if path.legacy then
    if doc == nil then return false end
    local matches = evaluate(doc, path)
    if #matches == 0 then path_missing(path) end
    local value = matches[1].value
    if not is_string(value) then expected('string', type_name(value)) end
    return #value
  end
  if doc == nil then fail(NO_KEY) end
  return measure_each(doc, path, is_string, function(s) return #s end)
end

commands['JSON.ARRLEN'] = function(key, args)
  local path = parse_path(args[1] or '.')
  local doc = open(key).root
  if path.legacy then
    if doc == nil then return false end
    local matches = evaluate(doc, path)
    if #matches == 0 then fail("ERR Path '" .. path.text .. "' does not exist") end
    if not is_array(matches[1].value) then path_missing_or(path.text, 'not an array') end
    return matches[1].value.n
  end
  if doc == nil then fail(NO_KEY) end
  return measure_each(doc, path, is_array, function(a) return a.n end)
end

local function object_keys(o)
  local names = {}
  for i, name in ipairs(o.k) do names[i] = name end
  return names
end

commands['JSON.OBJKEYS'] = function(key, args)
  local path = parse_path(args[1] or '.')
  local doc = open(key).root
  if path.legacy then
    if doc == nil then return false end
    local matches = evaluate(doc, path)
    if #matches == 0 then return false end
    if not is_object(matches[1].value) then path_missing_or(path.display, 'not an object') end
    return object_keys(matches[1].value)
  end
  if doc == nil then fail(NO_KEY) end
  return measure_each(doc, path, is_object, object_keys)
end

commands['JSON.OBJLEN'] = function(key, args)
  local path = parse_path(args[1] or '.')
  local doc = open(key).root
  if path.legacy then
    if doc == nil then return false end
    local matches = evaluate(doc, path)
    if #matches == 0 then return false end
    if not is_object(matches[1].value) then expected('object', type_name(matches[1].value)) end
    return #matches[1].value.k
  end
  if doc == nil then path_missing_or(path.display, 'not an object') end
  return measure_each(doc, path, is_object, function(o) return #o.k end)
end

-- NUMINCRBY, NUMMULTBY and NUMPOWBY. The operand is read only when a number matches.
local function number_command(op)
  return function(key, args)
    local path = parse_path(args[1])
    local text = args[2]
    local holder = must_exist(open(key))
    local operand
    local function change(value, parent, k)
      if operand == nil then
        operand = parse_json_err(text)
        if not is_number(operand) then fail('bad input number') end
      end
      local result = number_op(op, value, operand)
      put(holder, parent, k, result)
      return result
    end
    if path.legacy then
      return legacy_change(holder, path, is_number, path.display, 'does not contains a number', change).s
    end
    local all = wanted_paths(holder, path, is_number)
    local results = per_match(all, holder, is_number, change)
    local values = {}
    for i = 1, #all do values[i] = results[i] or NULL end
    return encode(new_array(values))
  end
end

commands['JSON.NUMINCRBY'] = number_command('incr')
commands['JSON.NUMMULTBY'] = number_command('mult')
commands['JSON.NUMPOWBY'] = number_command('pow')

commands['JSON.TOGGLE'] = function(key, args)
  local path = parse_path(args[1])
  local holder = must_exist(open(key))
  local function toggle(value, parent, k)
    put(holder, parent, k, not value)
    return not value
  end
  if path.legacy then
    return legacy_change(holder, path, is_bool, path.display, 'not a bool', toggle) and 'true' or 'false'
  end
  local all = wanted_paths(holder, path, is_bool)
  return per_match(all, holder, is_bool, function(value, parent, k) return toggle(value, parent, k) and 1 or 0 end)
end

commands['JSON.STRAPPEND'] = function(key, args)
  local path, text
  if args[2] ~= nil then
    path, text = parse_path(args[1]), args[2]
  else
    path, text = parse_path('.'), args[1]
  end
  local holder = must_exist(open(key))
  local function append(value, parent, k)
    local suffix = parse_json_err(text)
    if not is_string(suffix) then expected('string', text) end
    local joined = value .. suffix
    put(holder, parent, k, joined)
    return #joined
  end
  if path.legacy then return legacy_change(holder, path, is_string, path.display, 'not a string', append) end
  local all = wanted_paths(holder, path, is_string)
  return per_match(all, holder, is_string, append)
end

commands['JSON.ARRAPPEND'] = function(key, args)
  local path = parse_path(args[1])
  local values = {}
  for i = 2, #args do values[#values + 1] = parse_json(args[i]) end
  local holder = must_exist(open(key))
  local function append(array)
    for _, value in ipairs(values) do
      array.n = array.n + 1
      array[array.n] = copy(value)
    end
    holder.dirty = true
    return array.n
  end
  if path.legacy then return legacy_change(holder, path, is_array, path.text, 'not an array', append) end
  local all = wanted_paths(holder, path, is_array)
  return per_match(all, holder, is_array, append)
end

commands['JSON.ARRINSERT'] = function(key, args)
  local path = parse_path(args[1])
  if args[2] == nil then arity_error() end
  local index = integer_arg(args[2])
  if args[3] == nil then arity_error() end
  local values = {}
  for i = 3, #args do values[#values + 1] = parse_json(args[i]) end
  local holder = must_exist(open(key))
  local function insert(array)
    local at = index < 0 and array.n + index or index
    if at < 0 or at > array.n then fail('ERR index out of bounds') end
    local count = #values
    for i = array.n, at + 1, -1 do array[i + count] = array[i] end
    for i, value in ipairs(values) do array[at + i] = copy(value) end
    array.n = array.n + count
    holder.dirty = true
    return array.n
  end
  if path.legacy then
    return legacy_change(holder, path, is_array, path.display, 'not an array', insert, stale_array)
  end
  local all = wanted_paths(holder, path, is_array)
  return per_match(all, holder, is_array, insert, stale_array)
end

-- RedisJSON's equality for ARRINDEX: same kind (integer and float differ), objects in any order.
local function number_kind(v)
  return is_i64_text(v.s) and 'long' or 'double'
end

local function json_equal(a, b)
  local ta, tb = type_name(a), type_name(b)
  if is_number(a) and is_number(b) then
    if number_kind(a) ~= number_kind(b) then return false end
    if number_kind(a) == 'long' then return i64_to_text(i64_from_text(a.s)) == i64_to_text(i64_from_text(b.s)) end
    return serde_float(a.s) == serde_float(b.s)
  end
  if ta ~= tb then return false end
  if is_array(a) then
    if a.n ~= b.n then return false end
    for i = 1, a.n do if not json_equal(a[i], b[i]) then return false end end
    return true
  end
  if is_object(a) then
    if #a.k ~= #b.k then return false end
    for _, k in ipairs(a.k) do
      if b.v[k] == nil or not json_equal(a.v[k], b.v[k]) then return false end
    end
    return true
  end
  return a == b
end

commands['JSON.ARRINDEX'] = function(key, args)
  local path = parse_path(args[1])
  local text = args[2]
  local start = args[3] and integer_arg(args[3]) or 0
  local stop = args[4] and integer_arg(args[4]) or 0
  if args[5] ~= nil then arity_error() end
  local wanted = parse_json_err(text)
  local doc = open(key).root
  if doc == nil then fail("ERR Path '" .. path.text .. "' does not exist") end
  local function index_of(array)
    local len = array.n
    if len == 0 then return -1 end
    local from = start < 0 and math.max(0, len + start) or math.min(start, len - 1)
    local to
    if stop == 0 then to = len elseif stop < 0 then to = math.max(0, len + stop) else to = math.min(stop, len) end
    for i = from, to - 1 do
      if json_equal(array[i + 1], wanted) then return i end
    end
    return -1
  end
  local matches = evaluate(doc, path)
  if path.legacy then
    if #matches == 0 then path_missing(path) end
    if not is_array(matches[1].value) then expected('array', type_name(matches[1].value)) end
    return index_of(matches[1].value)
  end
  local replies = {}
  for i, match in ipairs(matches) do replies[i] = is_array(match.value) and index_of(match.value) or false end
  return replies
end

local reply_formats = {STRINGS = true, EXPAND1 = true, EXPAND = true}

commands['JSON.ARRPOP'] = function(key, args)
  -- FORMAT is for RESP3 only (a lone FORMAT is a path).
  if args[1] ~= nil and string.upper(args[1]) == 'FORMAT' and args[2] ~= nil then
    if not reply_formats[args[2]] then fail('ERR wrong reply format') end
    fail('ERR FORMAT argument is not supported on RESP2')
  end
  local path, index
  if args[1] == nil then
    path, index = parse_path('.'), nil -- the last item
  else
    path = parse_path(args[1])
    -- An index that is no integer counts as -1, as in RedisJSON.
    index = args[2] and parse_integer(args[2]) or -1
  end
  local holder = must_exist(open(key))
  local function pop(array)
    if array.n == 0 then return nil end
    local at
    if index == nil then
      at = array.n
    elseif index < 0 then
      at = math.max(0, array.n + index) + 1
    else
      at = math.min(index, array.n - 1) + 1
    end
    holder.dirty = true
    return encode(array_remove(array, at))
  end
  if path.legacy then
    local _, only = wanted_paths(holder, path, is_array)
    if #only == 0 then path_missing_or(path.display, 'not an array') end
    local last
    for _, p in ipairs(only) do
      local found, value = resolve(holder.root, p)
      if found and not is_array(value) then expected('array', type_name(value)) end
      last = found and pop(value) or nil
    end
    return last or false
  end
  local all = wanted_paths(holder, path, is_array)
  local replies = {}
  for i, p in ipairs(all) do
    replies[i] = false
    if p then
      local found, value = resolve(holder.root, p)
      if found and not is_array(value) then expected('array', type_name(value)) end
      replies[i] = found and pop(value) or false
    end
  end
  return replies
end

-- ARRTRIM's clamping of an index (RedisJSON's ArrayIndex::normalize).
local function clamp_index(i, len)
  if i < 0 then return len - math.min(len, -i) end
  if len > 0 then return math.min(len - 1, i) end
  return 0
end

commands['JSON.ARRTRIM'] = function(key, args)
  local path = parse_path(args[1])
  if args[2] == nil then arity_error() end
  local start = integer_arg(args[2])
  if args[3] == nil then arity_error() end
  local stop = integer_arg(args[3])
  local holder = must_exist(open(key))
  local function trim(array)
    local len = array.n
    local last = clamp_index(stop, len)
    local first = (start < 0 or start < len) and clamp_index(start, len) or last + 1
    local kept = {}
    if not (first > last or len == 0) then
      for i = first + 1, last + 1 do kept[#kept + 1] = array[i] end
    end
    for i = 1, len do array[i] = kept[i] end
    array.n = #kept
    holder.dirty = true
    return array.n
  end
  if path.legacy then
    return legacy_change(holder, path, is_array, path.display, 'not an array', trim, stale_array)
  end
  local all = wanted_paths(holder, path, is_array)
  return per_match(all, holder, is_array, trim, stale_array)
end

-- What JSON.CLEAR changes: non-empty arrays and objects, and numbers other than 0 (0.0 stays 0.0).
local function clearable(v)
  if is_array(v) then return v.n > 0 end
  if is_object(v) then return #v.k > 0 end
  if is_number(v) then
    if number_kind(v) == 'long' then return not string.find(v.s, '^-?0$') end
    return serde_float(v.s) ~= 0
  end
  return false
end

commands['JSON.CLEAR'] = function(key, args)
  -- RedisJSON reads only the first path.
  local path = parse_path(args[1] or '.')
  local holder = must_exist(open(key))
  local cleared = 0
  local _, only = wanted_paths(holder, path, clearable)
  for _, p in ipairs(only) do
    local found, value, parent, k = resolve(holder.root, p)
    if found then
      if is_array(value) then
        for i = 1, value.n do value[i] = nil end
        value.n = 0
      elseif is_object(value) then
        value.k, value.v = {}, {}
      elseif is_number(value) then
        put(holder, parent, k, {t = 'n', s = '0'})
      end
      if is_array(value) or is_object(value) or is_number(value) then
        holder.dirty = true
        cleared = cleared + 1
      end
    end
  end
  return cleared
end

-- JSON.RESP's form: arrays lead with "[", objects with "{" then key, value...; integers as integers,
-- other numbers as bulk strings (Redis 7.0's %.17g), true and false as simple strings, null as nil.
local function resp_value(v)
  if v == NULL then return false end
  if type(v) == 'boolean' then return {ok = v and 'true' or 'false'} end
  if type(v) == 'string' then return v end
  if v.t == 'n' then
    if is_i64_text(v.s) then return tonumber(v.s) end
    return double_text(serde_float(v.s))
  end
  if v.t == 'a' then
    local out = {{ok = '['}}
    for i = 1, v.n do out[#out + 1] = resp_value(v[i]) end
    return out
  end
  local out = {{ok = '{'}}
  for _, k in ipairs(v.k) do
    out[#out + 1] = k
    out[#out + 1] = resp_value(v.v[k])
  end
  return out
end

commands['JSON.RESP'] = function(key, args)
  local path = parse_path(args[1] or '.')
  local doc = open(key).root
  if doc == nil then return false end
  local matches = evaluate(doc, path)
  if path.legacy then
    if #matches == 0 then path_missing(path) end
    return resp_value(matches[1].value)
  end
  local replies = {}
  for i, match in ipairs(matches) do replies[i] = resp_value(match.value) end
  return replies
end

-- JSON.DEBUG MEMORY: RedisJSON's estimate of its in-memory form (ijson), taking each array and
-- object's capacity as parsing the document's text gives it (4, then doubling).
local function capacity(n)
  if n == 0 then return 0 end
  local cap = 4
  while cap < n do cap = cap * 2 end
  return cap
end

local function memory(v)
  local size = 8
  if type(v) == 'string' then return size + #v end
  if type(v) == 'boolean' or v == NULL then return size end
  if v.t == 'n' then
    if not is_i64_text(v.s) then return size + 16 end
    local n = tonumber(v.s)
    if n >= -128 and n <= 383 then return size end
    if n > -8388608 and n <= 8388607 then return size + 4 end
    return size + 16
  end
  if v.t == 'a' then
    if v.n == 0 then return size end
    size = size + 8 * (capacity(v.n) + 2)
    for i = 1, v.n do size = size + memory(v[i]) end
    return size
  end
  if #v.k == 0 then return size end
  size = size + 8 * (capacity(#v.k) * 3 + 2)
  for _, k in ipairs(v.k) do size = size + #k + memory(v.v[k]) end
  return size
end

local debug_help = {'MEMORY <key> [path] - reports memory usage', 'HELP                - this message'}

-- KEYS[1]: the key of MEMORY; args: the subcommand, then the path.
commands['JSON.DEBUG'] = function(key, args)
  local sub = string.upper(args[1])
  if sub == 'MEMORY' then
    if key == nil then arity_error() end
    local path = parse_path(args[2] or '.')
    local doc = open(key).root
    if path.legacy then
      if doc == nil then return 0 end
      local matches = evaluate(doc, path)
      if #matches == 0 then path_missing(path) end
      return memory(matches[1].value)
    end
    if doc == nil then return {} end
    local sizes = {}
    for i, match in ipairs(evaluate(doc, path)) do sizes[i] = memory(match.value) end
    return sizes
  end
  if sub == 'HELP' then return debug_help end
  fail('ERR unknown subcommand - try `JSON.DEBUG HELP`')
end

local args = {}
for i = 2, #ARGV do args[#args + 1] = ARGV[i] end
local ok, reply = pcall(commands[COMMAND], KEYS[1], args, KEYS)
-- Changes made before an error stay, as in RedisJSON; a failed write-back is answered as an error.
local written, write_error = pcall(write_back)
if ok and written then return reply end
if ok then reply = write_error end
-- fail() raises {reply=}; redis.call() raises its error reply; anything else is a defect here.
if type(reply) == 'table' and reply.reply then return redis.error_reply(reply.reply) end
if type(reply) == 'table' and reply.err then return redis.error_reply(reply.err) end
local text = tostring(reply)
if string.find(text, '^[A-Z]+ ') then return redis.error_reply(text) end
return redis.error_reply('ERR emulated ' .. COMMAND .. ' failed: ' .. text)
