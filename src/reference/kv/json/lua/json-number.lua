-- Number arithmetic for JSON.NUMINCRBY (part 3 of the script; see json-script.ts). Numbers are kept
-- as their JSON text, so integers are added exactly as decimal strings within i64, as RedisJSON does.

-- Decimal integer addition on strings, so integers past 2^53 stay exact as in RedisJSON (i64).
local function magnitude_compare(a, b)
  if #a ~= #b then return #a < #b and -1 or 1 end
  if a == b then return 0 end
  return a < b and -1 or 1
end

local function magnitude_add(a, b)
  local out, carry = {}, 0
  local i, j = #a, #b
  while i > 0 or j > 0 or carry > 0 do
    local d = carry + (i > 0 and tonumber(string.sub(a, i, i)) or 0) + (j > 0 and tonumber(string.sub(b, j, j)) or 0)
    out[#out + 1] = d % 10
    carry = math.floor(d / 10)
    i, j = i - 1, j - 1
  end
  return string.reverse(table.concat(out))
end

local function magnitude_sub(a, b) -- a >= b
  local out, borrow = {}, 0
  local i, j = #a, #b
  while i > 0 do
    local d = tonumber(string.sub(a, i, i)) - borrow - (j > 0 and tonumber(string.sub(b, j, j)) or 0)
    if d < 0 then d = d + 10; borrow = 1 else borrow = 0 end
    out[#out + 1] = d
    i, j = i - 1, j - 1
  end
  local s = string.gsub(string.reverse(table.concat(out)), '^0+', '')
  return s == '' and '0' or s
end

local function integer_add(a, b)
  local a_neg, b_neg = string.sub(a, 1, 1) == '-', string.sub(b, 1, 1) == '-'
  local am, bm = string.gsub(a, '^-', ''), string.gsub(b, '^-', '')
  am = string.gsub(am, '^0+(%d)', '%1')
  bm = string.gsub(bm, '^0+(%d)', '%1')
  local negative, m
  if a_neg == b_neg then
    negative, m = a_neg, magnitude_add(am, bm)
  elseif magnitude_compare(am, bm) >= 0 then
    negative, m = a_neg, magnitude_sub(am, bm)
  else
    negative, m = b_neg, magnitude_sub(bm, am)
  end
  if m == '0' then negative = false end
  local limit = negative and '9223372036854775808' or '9223372036854775807'
  if magnitude_compare(m, limit) > 0 then return nil end -- outside i64: fall back to a float
  return (negative and '-' or '') .. m
end

-- Shortest text that reads back as the same double, in the style of serde_json (1.0, 1e21, 1.5e-7).
local function float_text(x)
  if x ~= x or x == math.huge or x == -math.huge then fail('ERR result is not a number') end
  if x == math.floor(x) and math.abs(x) < 1e16 then return string.format('%.0f', x) .. '.0' end
  local s
  for precision = 15, 17 do
    s = string.format('%.' .. precision .. 'g', x)
    if tonumber(s) == x then break end
  end
  s = string.gsub(s, 'e%+?(%-?)0*(%d)', 'e%1%2')
  return s
end

local function number_add(current, increment)
  local int_pattern = '^-?%d+$'
  if string.find(current.s, int_pattern) and string.find(increment.s, int_pattern) then
    local sum = integer_add(current.s, increment.s)
    if sum then return {t = 'n', s = sum} end
  end
  return {t = 'n', s = float_text(tonumber(current.s) + tonumber(increment.s))}
end
