-- Number arithmetic for JSON.NUMINCRBY, NUMMULTBY and NUMPOWBY (part 3 of the script; see
-- json-script.ts). Numbers are kept as their JSON text. As in RedisJSON (serde_json and ijson), a
-- number written as an integer that fits in i64 is an integer: integer with integer is i64 arithmetic
-- that wraps around on overflow, done exactly here on four 16-bit limbs; anything else is f64.

local LIMB = 65536

local function i64_negate(l)
  local out, carry = {}, 1
  for j = 1, 4 do
    local v = (LIMB - 1 - l[j]) + carry
    out[j] = v % LIMB
    carry = math.floor(v / LIMB)
  end
  return out
end

-- Decimal text to two's complement limbs (little end first), wrapping like i64.
local function i64_from_text(s)
  local negative = string.sub(s, 1, 1) == '-'
  local l = {0, 0, 0, 0}
  for i = negative and 2 or 1, #s do
    local carry = string.byte(s, i) - 48
    for j = 1, 4 do
      local v = l[j] * 10 + carry
      l[j] = v % LIMB
      carry = math.floor(v / LIMB)
    end
  end
  if negative then return i64_negate(l) end
  return l
end

local function i64_to_text(l)
  local negative = l[4] >= LIMB / 2
  local m = negative and i64_negate(l) or {l[1], l[2], l[3], l[4]}
  local digits = {}
  repeat
    local rem, zero = 0, true
    for j = 4, 1, -1 do
      local v = rem * LIMB + m[j]
      m[j] = math.floor(v / 10)
      rem = v % 10
      if m[j] ~= 0 then zero = false end
    end
    digits[#digits + 1] = rem
  until zero
  return (negative and '-' or '') .. string.reverse(table.concat(digits))
end

local function i64_add(a, b)
  local out, carry = {}, 0
  for j = 1, 4 do
    local v = a[j] + b[j] + carry
    out[j] = v % LIMB
    carry = math.floor(v / LIMB)
  end
  return out
end

local function i64_mul(a, b)
  local out = {0, 0, 0, 0}
  for i = 1, 4 do
    local carry = 0
    for j = 1, 5 - i do
      local k = i + j - 1
      local v = out[k] + a[i] * b[j] + carry
      out[k] = v % LIMB
      carry = math.floor(v / LIMB)
    end
  end
  return out
end

-- i64::pow with the exponent cast to u32, wrapping, as RedisJSON's JSON.NUMPOWBY does.
local function i64_pow(base, exponent_limbs)
  local e = exponent_limbs[1] + exponent_limbs[2] * LIMB
  local acc = {1, 0, 0, 0}
  while e > 0 do
    if e % 2 == 1 then acc = i64_mul(acc, base) end
    e = math.floor(e / 2)
    if e > 0 then base = i64_mul(base, base) end
  end
  return acc
end

-- Whether serde_json reads this number text as an i64 (RedisJSON's "integer" that does integer maths;
-- serde_json reads -0 as the double -0.0).
local function is_i64_text(s)
  if not string.find(s, '^-?%d+$') or s == '-0' then return false end
  local negative = string.sub(s, 1, 1) == '-'
  local digits = string.gsub(negative and string.sub(s, 2) or s, '^0+(%d)', '%1')
  local limit = negative and '9223372036854775808' or '9223372036854775807'
  return #digits < #limit or (#digits == #limit and digits <= limit)
end

-- The double serde_json (without float_roundtrip, as RedisJSON builds it) reads from number text: the
-- digits as a u64 significand (later digits dropped once it would overflow) times or divided by a
-- power of ten, which is not always the nearest double. Nil when serde_json finds it out of range.
local U64_MAX = '18446744073709551615'

local function serde_float(text)
  local negative, int, frac, exp_sign, exp = string.match(text, '^(-?)(%d+)%.?(%d*)[eE]?([-+]?)(%d*)$')
  local significand, exponent, full = '', 0, false
  local function push(d, fraction)
    if full then
      if not fraction then exponent = exponent + 1 end
      return
    end
    local candidate = string.gsub(significand .. d, '^0+(%d)', '%1')
    if #candidate > #U64_MAX or (#candidate == #U64_MAX and candidate > U64_MAX) then
      full = true
      if not fraction then exponent = exponent + 1 end
      return
    end
    significand = candidate
    if fraction then exponent = exponent - 1 end
  end
  for i = 1, #int do push(string.sub(int, i, i), false) end
  for i = 1, #frac do push(string.sub(frac, i, i), true) end
  if exp ~= '' then
    local e = tonumber(exp)
    if e > 2147483647 then
      if tonumber(significand) ~= 0 and exp_sign ~= '-' then return nil end
      return negative == '-' and -0.0 or 0.0
    end
    exponent = exponent + (exp_sign == '-' and -e or e)
  end
  local f = tonumber(significand)
  while true do
    local magnitude = math.abs(exponent)
    if magnitude <= 308 then
      if exponent >= 0 then
        f = f * tonumber('1e' .. magnitude)
        if f == math.huge then return nil end
      else
        f = f / tonumber('1e' .. magnitude)
      end
      break
    end
    if f == 0 then break end
    if exponent >= 0 then return nil end
    f = f / 1e308
    exponent = exponent + 308
  end
  return negative == '-' and -f or f
end

-- Shortest text that reads back as the same double, laid out as serde_json (ryu) writes it:
-- 3.0, 0.001234, 1e16, 1.5e-7.
local function float_text(x)
  if x ~= x or x == math.huge or x == -math.huge then fail('ERR result is not a number') end
  if x == 0 then return (1 / x < 0) and '-0.0' or '0.0' end
  local s
  for precision = 1, 17 do
    s = string.format('%.' .. (precision - 1) .. 'e', x)
    if tonumber(s) == x then break end
  end
  local sign, first, rest, exponent = string.match(s, '^(-?)(%d)%.?(%d*)e([-+]%d+)$')
  local digits = string.gsub(first .. rest, '0+$', '')
  if digits == '' then digits = '0' end
  local length = #digits
  local kk = tonumber(exponent) + 1 -- the decimal point sits after kk digits
  local k = kk - length
  local out
  if k >= 0 and kk <= 16 then
    out = digits .. string.rep('0', k) .. '.0'
  elseif kk > 0 and kk <= 16 then
    out = string.sub(digits, 1, kk) .. '.' .. string.sub(digits, kk + 1)
  elseif kk > -5 and kk <= 0 then
    out = '0.' .. string.rep('0', -kk) .. digits
  elseif length == 1 then
    out = digits .. 'e' .. (kk - 1)
  else
    out = string.sub(digits, 1, 1) .. '.' .. string.sub(digits, 2) .. 'e' .. (kk - 1)
  end
  return sign .. out
end

local integer_ops = {incr = i64_add, mult = i64_mul, pow = i64_pow}
local float_ops = {
  incr = function(a, b) return a + b end,
  mult = function(a, b) return a * b end,
  pow = function(a, b) return a ^ b end,
}

-- current and operand are number values {t='n', s=}; answers the new number value.
local function number_op(op, current, operand)
  if is_i64_text(current.s) and is_i64_text(operand.s) then
    local result = integer_ops[op](i64_from_text(current.s), i64_from_text(operand.s))
    return {t = 'n', s = i64_to_text(result)}
  end
  return {t = 'n', s = float_text(float_ops[op](serde_float(current.s), serde_float(operand.s)))}
end

local function number_add(current, increment)
  return number_op('incr', current, increment)
end

-- Redis's own integer arguments (string2ll): no sign but '-', no leading zeros or spaces, within i64.
local function parse_integer(s)
  if s == '0' then return 0 end
  if not string.find(s, '^-?[1-9]%d*$') then return nil end
  local negative = string.sub(s, 1, 1) == '-'
  local digits = negative and string.sub(s, 2) or s
  local limit = negative and '9223372036854775808' or '9223372036854775807'
  if #digits > #limit or (#digits == #limit and digits > limit) then return nil end
  return tonumber(s)
end

-- How Redis 7.0 writes a double reply on RESP2 (RedisModule_ReplyWithDouble): %.17g.
local function double_text(x)
  return string.format('%.17g', x)
end
