-- JSON codec for the emulated JSON commands (part 1 of the script; see json-scripts.ts).
-- Not Redis's cjson: cjson turns [] and {} into the same empty table, rounds numbers past 2^53 and to
-- 14 digits, loses key order and escapes "/". Here values keep their exact form:
--   object  {t='o', k={key, ...}, v={[key]=value}}   (insertion order kept, as RedisJSON does)
--   array   {t='a', n=count, [1..n]=value}
--   number  {t='n', s='<the number text as written>'}
--   null    NULL (one shared table)
--   string  a Lua string; true/false Lua booleans

local NULL = {t = 'z'}

-- Errors are raised as {reply = the error reply's text}, which the dispatcher answers verbatim: some
-- RedisJSON errors carry no class token ("expected value at line 1 column 1", "bad input number").
local function fail(message)
  error({reply = message}, 0)
end

local function is_table(v, t)
  return type(v) == 'table' and v.t == t
end

local function type_name(v)
  local lt = type(v)
  if lt == 'string' then return 'string' end
  if lt == 'boolean' then return 'boolean' end
  if v == NULL then return 'null' end
  if v.t == 'o' then return 'object' end
  if v.t == 'a' then return 'array' end
  if v.t == 'n' then
    -- serde_json reads an integer past u64 as a double, which RedisJSON calls a number.
    local digits = v.s ~= '-0' and string.match(v.s, '^-?0*(%d+)$')
    if digits and (#digits < 20 or (#digits == 20 and digits <= '18446744073709551615')) then return 'integer' end
    return 'number'
  end
  return 'unknown'
end

-- Parsing ----------------------------------------------------------------------------------------

local function utf8_char(code)
  if code < 0x80 then return string.char(code) end
  if code < 0x800 then
    return string.char(0xC0 + math.floor(code / 0x40), 0x80 + code % 0x40)
  end
  if code < 0x10000 then
    return string.char(0xE0 + math.floor(code / 0x1000), 0x80 + math.floor(code / 0x40) % 0x40, 0x80 + code % 0x40)
  end
  return string.char(0xF0 + math.floor(code / 0x40000), 0x80 + math.floor(code / 0x1000) % 0x40,
    0x80 + math.floor(code / 0x40) % 0x40, 0x80 + code % 0x40)
end

local literals = {t = 'true', f = 'false', n = 'null'}
local literal_values = {['true'] = true, ['false'] = false, null = NULL}
local escapes_in = {['"'] = '"', ['\\'] = '\\', ['/'] = '/', b = '\b', f = '\f', n = '\n', r = '\r', t = '\t'}
local max_depth = 128

local function parse_json(text)
  local pos = 1
  local len = #text

  -- Messages follow serde_json's, which RedisJSON reports (without a class token).
  local function parse_error(what)
    -- serde reports the last byte it read: the offending one, or the final byte at the end of the text.
    local line, column = 1, 0
    for i = 1, math.min(pos, len) do
      if string.sub(text, i, i) == '\n' then line = line + 1; column = 0 else column = column + 1 end
    end
    fail(what .. ' at line ' .. line .. ' column ' .. column)
  end

  local function skip_space()
    pos = string.find(text, '[^ \t\r\n]', pos) or (len + 1)
  end

  local parse_value

  local function parse_string()
    pos = pos + 1 -- opening quote
    local parts = {}
    while true do
      local run_end = string.find(text, '["\\%z\1-\31]', pos)
      if not run_end then pos = len + 1; parse_error('EOF while parsing a string') end
      if run_end > pos then parts[#parts + 1] = string.sub(text, pos, run_end - 1) end
      pos = run_end
      local c = string.sub(text, pos, pos)
      if c == '"' then
        pos = pos + 1
        return table.concat(parts)
      elseif c == '\\' then
        local e = string.sub(text, pos + 1, pos + 1)
        if escapes_in[e] then
          parts[#parts + 1] = escapes_in[e]
          pos = pos + 2
        elseif e == 'u' then
          local hex = string.sub(text, pos + 2, pos + 5)
          if not string.find(hex, '^%x%x%x%x$') then pos = pos + 2; parse_error('invalid escape') end
          local code = tonumber(hex, 16)
          pos = pos + 6
          if code >= 0xD800 and code <= 0xDBFF then
            local low = string.match(text, '^\\u(%x%x%x%x)', pos)
            local low_code = low and tonumber(low, 16)
            if not low_code or low_code < 0xDC00 or low_code > 0xDFFF then
              parse_error('lone leading surrogate in hex escape')
            end
            code = 0x10000 + (code - 0xD800) * 0x400 + (low_code - 0xDC00)
            pos = pos + 6
          elseif code >= 0xDC00 and code <= 0xDFFF then
            parse_error('lone leading surrogate in hex escape')
          end
          parts[#parts + 1] = utf8_char(code)
        else
          pos = pos + 1
          parse_error('invalid escape')
        end
      else
        parse_error('control character (\\u0000-\\u001F) found while parsing a string')
      end
    end
  end

  local function parse_number()
    local start = pos
    if string.sub(text, pos, pos) == '-' then pos = pos + 1 end
    local c = string.sub(text, pos, pos)
    if c == '0' then
      pos = pos + 1
    elseif string.find(c, '^[1-9]$') then
      pos = string.find(text, '[^0-9]', pos) or (len + 1)
    else
      parse_error('invalid number')
    end
    if string.sub(text, pos, pos) == '.' then
      pos = pos + 1
      if not string.find(string.sub(text, pos, pos), '^%d$') then parse_error('invalid number') end
      pos = string.find(text, '[^0-9]', pos) or (len + 1)
    end
    c = string.sub(text, pos, pos)
    if c == 'e' or c == 'E' then
      pos = pos + 1
      c = string.sub(text, pos, pos)
      if c == '+' or c == '-' then pos = pos + 1 end
      if not string.find(string.sub(text, pos, pos), '^%d$') then parse_error('invalid number') end
      pos = string.find(text, '[^0-9]', pos) or (len + 1)
    end
    return {t = 'n', s = string.sub(text, start, pos - 1)}
  end

  local function parse_array(depth)
    pos = pos + 1
    local arr = {t = 'a', n = 0}
    skip_space()
    if string.sub(text, pos, pos) == ']' then pos = pos + 1; return arr end
    while true do
      arr.n = arr.n + 1
      arr[arr.n] = parse_value(depth)
      skip_space()
      local c = string.sub(text, pos, pos)
      if c == ',' then
        pos = pos + 1
      elseif c == ']' then
        pos = pos + 1
        return arr
      elseif c == '' then
        parse_error('EOF while parsing a list')
      else
        parse_error('expected `,` or `]`')
      end
    end
  end

  local function parse_object(depth)
    pos = pos + 1
    local obj = {t = 'o', k = {}, v = {}}
    skip_space()
    if string.sub(text, pos, pos) == '}' then pos = pos + 1; return obj end
    while true do
      skip_space()
      local c = string.sub(text, pos, pos)
      if c == '' then parse_error('EOF while parsing an object') end
      if c ~= '"' then parse_error('key must be a string') end
      local key = parse_string()
      skip_space()
      if string.sub(text, pos, pos) ~= ':' then
        if pos > len then parse_error('EOF while parsing an object') end
        parse_error('expected `:`')
      end
      pos = pos + 1
      local value = parse_value(depth)
      -- A repeated key keeps its first position and takes the last value, like serde_json's maps.
      if obj.v[key] == nil then obj.k[#obj.k + 1] = key end
      obj.v[key] = value
      skip_space()
      c = string.sub(text, pos, pos)
      if c == ',' then
        pos = pos + 1
      elseif c == '}' then
        pos = pos + 1
        return obj
      elseif c == '' then
        parse_error('EOF while parsing an object')
      else
        parse_error('expected `,` or `}`')
      end
    end
  end

  parse_value = function(depth)
    if depth > max_depth then parse_error('recursion limit exceeded') end
    skip_space()
    local c = string.sub(text, pos, pos)
    if c == '{' then return parse_object(depth + 1) end
    if c == '[' then return parse_array(depth + 1) end
    if c == '"' then return parse_string() end
    if c == '-' or string.find(c, '^%d$') then return parse_number() end
    local word = literals[c]
    if word then
      -- serde_json checks a literal byte by byte, blaming the first wrong one.
      for i = 2, #word do
        pos = pos + 1
        local d = string.sub(text, pos, pos)
        if d == '' then parse_error('EOF while parsing a value') end
        if d ~= string.sub(word, i, i) then parse_error('expected ident') end
      end
      pos = pos + 1
      return literal_values[word]
    end
    if c == '' then parse_error('EOF while parsing a value') end
    parse_error('expected value')
  end

  local value = parse_value(0)
  skip_space()
  if pos <= len then parse_error('trailing characters') end
  return value
end

-- Serialising ------------------------------------------------------------------------------------

local escapes_out = {['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t',
  ['\b'] = '\\b', ['\f'] = '\\f'}

local function quote(s)
  return '"' .. string.gsub(s, '[%z\1-\31"\\]', function(c)
    return escapes_out[c] or string.format('\\u%04x', string.byte(c))
  end) .. '"'
end

-- fmt: nil for compact output, else {indent=, newline=, space=} as JSON.GET's INDENT/NEWLINE/SPACE.
local function encode(value, fmt)
  local out = {}
  local function put(s) out[#out + 1] = s end
  local function write(v, level)
    local lt = type(v)
    if lt == 'string' then put(quote(v)); return end
    if lt == 'boolean' then put(v and 'true' or 'false'); return end
    if v == NULL then put('null'); return end
    if v.t == 'n' then put(v.s); return end
    local is_obj = v.t == 'o'
    local count = is_obj and #v.k or v.n
    put(is_obj and '{' or '[')
    if count > 0 then
      for i = 1, count do
        if i > 1 then put(',') end
        if fmt then put(fmt.newline); put(string.rep(fmt.indent, level + 1)) end
        if is_obj then
          local key = v.k[i]
          put(quote(key)); put(':')
          if fmt then put(fmt.space) end
          write(v.v[key], level + 1)
        else
          write(v[i], level + 1)
        end
      end
      if fmt then put(fmt.newline); put(string.rep(fmt.indent, level)) end
    end
    put(is_obj and '}' or ']')
  end
  write(value, 0)
  return table.concat(out)
end

local function new_array(items)
  local arr = {t = 'a', n = #items}
  for i = 1, #items do arr[i] = items[i] end
  return arr
end
