/**
 * The Lua side of the engine, run once per state with the full standard library (trusted):
 * it builds the sandbox interpreter scripts see and returns the functions the engine calls.
 * Scripts never see the real globals; each call gets a fresh environment with copies of the
 * libraries upstream opens (`luavm/lua.go` `setLib`, `pkg/util/lifted/lua`):
 *
 * - base without collectgarbage, dofile, getfenv, getmetatable, load, loadfile, loadstring,
 *   rawequal, rawget, rawset, setfenv, setmetatable, module, newproxy (calling one is an
 *   error, as upstream), `print` discards, `unpack` as in Lua 5.1;
 * - string as upstream's safe subset (rep, gsub and dump raise; inputs over 1,000,000 bytes
 *   are refused), table, math (plus the Lua 5.1 names pow, log10, atan2, mod, ldexp, cosh,
 *   sinh, tanh), os with only time and date;
 * - `require` answers "kube" and the libraries above, nothing else; no io, package, debug,
 *   coroutine or utf8.
 *
 * `tostring` and `string.format` print integral floats as integers, as gopher-lua does.
 * Native helpers return `ok, value` and the wrappers here raise the error at the caller.
 */
export const SANDBOX_PRELUDE = `
local natives = ...
local assert, error, ipairs, next, pairs, pcall, xpcall, select, tonumber, type =
  assert, error, ipairs, next, pairs, pcall, xpcall, select, tonumber, type
local rawtostring, rawget, rawset, collectgarbage, setmetatable, load =
  tostring, rawget, rawset, collectgarbage, setmetatable, load
local mathtype, floor, format, unpack = math.type, math.floor, string.format, table.unpack
local setupvalue = debug.setupvalue
local gofloat = natives.gofloat
local INT_LIMIT = 2.0 ^ 63
local MAX_STRING = 1000000

local function integral(v)
  if mathtype(v) == "float" and v == floor(v) and v >= -INT_LIMIT and v < INT_LIMIT then
    return floor(v)
  end
  return v
end

local function tostring(v)
  if mathtype(v) == "float" then
    local i = integral(v)
    if mathtype(i) == "integer" then return format("%d", i) end
    return gofloat(v)
  end
  return rawtostring(v)
end

local function checklen(s)
  if type(s) == "string" and #s > MAX_STRING then
    error(format("string length %d exceeds the maximum allowed input string length %d in Karmada lua string lib, please check your lua script.", #s, MAX_STRING), 3)
  end
end
local function checked1(f) return function(s, ...) checklen(s) return f(s, ...) end end

-- Pattern matching runs in C, where the count hook never fires: "a*a*b" on a few thousand
-- bytes backtracks for seconds, on 1 MB for hours. Before matching, bound the work from the
-- subject length n and the pattern: each start position (one if anchored) times, per start,
-- the pattern's length, n + 1 for every item that backtracks over the subject ('*', '+', '-',
-- %b, a back reference) and 2 for every '?'. Above MAX_MATCH_STEPS the call is refused.
local MAX_MATCH_STEPS = 2 ^ 30
local sbyte = string.byte
local function matchSteps(s, p, plain, anchorable)
  local n, len = #s, #p
  local starts = n + 1
  if plain then return starts * len end
  local i, steps = 1, len
  if anchorable and sbyte(p, 1) == 94 then starts, i = 1, 2 end -- '^'
  while i <= len do
    local c = sbyte(p, i)
    local item = true
    if c == 37 then -- '%'
      local d = sbyte(p, i + 1)
      if d == 98 then i = i + 4; steps = steps * (n + 1); item = false -- %bxy
      elseif d == 102 then i = i + 2; item = false; c = sbyte(p, i) -- %f[set]: the set follows
        if c == 91 then i = i + 1 end
      elseif d ~= nil and d >= 49 and d <= 57 then i = i + 2; steps = steps * (n + 1); item = false
      else i = i + 2 end
    elseif c == 40 or c == 41 then i = i + 1; item = false -- captures
    else i = i + 1 end
    if c == 91 and (item or sbyte(p, i - 1) == 91) then -- a set: skip to its closing ']'
      if sbyte(p, i) == 94 then i = i + 1 end
      i = i + 1 -- a ']' right after '[' or '[^' is a member
      while i <= len and sbyte(p, i) ~= 93 do
        if sbyte(p, i) == 37 then i = i + 1 end
        i = i + 1
      end
      i = i + 1
    end
    if item then
      local q = sbyte(p, i)
      if q == 42 or q == 43 or q == 45 then steps = steps * (n + 1); i = i + 1 -- '*', '+', '-'
      elseif q == 63 then steps = steps * 2; i = i + 1 end -- '?'
    end
  end
  return starts * steps
end
local function bounded(name, f, anchorable)
  return function(s, p, init, plain)
    checklen(s) checklen(p)
    if type(s) == "string" and type(p) == "string" and
        matchSteps(s, p, name == "find" and plain, anchorable) > MAX_MATCH_STEPS then
      error(format("string.%s: the pattern is too costly to match against a string of %d bytes (more than %d steps); karmada-ts bounds pattern matching, which its time budget cannot interrupt", name, #s, MAX_MATCH_STEPS), 2)
    end
    return f(s, p, init, plain)
  end
end
local function unsupportedString(name)
  return function()
    error("The Lua function string." .. name .. " is not supported by Karmada. If you believe this function is essential for your use case, please submit an issue to let us know why you need it.", 2)
  end
end
local function stringformat(fmt, ...)
  checklen(fmt)
  local n = select("#", ...)
  if n == 0 then return format(fmt) end
  local args = { ... }
  for i = 1, n do args[i] = integral(args[i]) end
  return format(fmt, unpack(args, 1, n))
end

local S = string
local safeString = {
  byte = checked1(S.byte), char = S.char, dump = unsupportedString("dump"), find = bounded("find", S.find, true),
  format = stringformat, gmatch = bounded("gmatch", S.gmatch, false), gfind = bounded("gfind", S.gmatch, false),
  gsub = unsupportedString("gsub"), len = S.len, lower = checked1(S.lower), match = bounded("match", S.match, true),
  rep = unsupportedString("rep"), reverse = checked1(S.reverse), sub = checked1(S.sub),
  upper = checked1(S.upper),
}
-- Method calls on strings, ("x"):upper(), use the same safe functions.
getmetatable("").__index = safeString

local function maxn(t)
  local n = 0
  for k in pairs(t) do
    if type(k) == "number" and k > n then n = k end
  end
  return n
end
local safeTable = {
  concat = table.concat, insert = table.insert, remove = table.remove, sort = table.sort,
  unpack = unpack, getn = function(t) return #t end, maxn = maxn,
}

local M = math
local safeMath = {}
for k, v in pairs(M) do safeMath[k] = v end
safeMath.pow = function(x, y) return x ^ y end
safeMath.log10 = function(x) return M.log(x, 10) end
safeMath.atan2 = function(y, x) return M.atan(y, x) end
safeMath.mod = M.fmod
safeMath.ldexp = function(m, e) return m * 2.0 ^ e end
safeMath.cosh = function(x) return (M.exp(x) + M.exp(-x)) / 2 end
safeMath.sinh = function(x) return (M.exp(x) - M.exp(-x)) / 2 end
safeMath.tanh = function(x) local a, b = M.exp(x), M.exp(-x) return (a - b) / (a + b) end

local safeOs = { time = os.time, date = os.date }

local function fromNative(name)
  local f = natives[name]
  return function(...)
    local ok, value = f(...)
    if not ok then error(value, 2) end
    return value
  end
end
local kubeLib = {
  resourceAdd = fromNative("resourceAdd"),
  accuratePodRequirements = fromNative("accuratePodRequirements"),
  getPodDependencies = fromNative("getPodDependencies"),
  getResourceQuantity = fromNative("getResourceQuantity"),
}

-- Libraries are shared by every call, so scripts see them read-only: one script cannot
-- change what another gets (upstream shares a pool of states with writable libraries).
local function readonly(name, t)
  return setmetatable({}, {
    __index = t,
    __newindex = function() error("the sandbox library '" .. name .. "' is read-only", 2) end,
    __pairs = function() return next, t, nil end,
    __metatable = false,
  })
end
local libs = {
  string = readonly("string", safeString), table = readonly("table", safeTable),
  math = readonly("math", safeMath), os = readonly("os", safeOs), kube = readonly("kube", kubeLib),
}

-- Insertion order for tables the script builds (see ordered-tables.ts): constructors are
-- rewritten to pass through ordered(), keys added later are recorded by __newindex, and
-- pairs walks 1..n, then the recorded keys, then anything else.
local orders = setmetatable({}, { __mode = "k" })
local NONE = {}
local orderedMeta = {
  __newindex = function(t, k, v)
    if v ~= nil and type(k) ~= "number" then
      local o = orders[t]
      if o == NONE then
        o = {}
        orders[t] = o
      end
      o[#o + 1] = k
    end
    rawset(t, k, v)
  end,
  __metatable = false,
}
local function ordered(t, ...)
  if orders[t] ~= nil then return t end
  local o = NONE
  local n = select("#", ...)
  if n > 0 then
    local names = { ... }
    o = {}
    for i = 1, n do
      if rawget(t, names[i]) ~= nil then o[#o + 1] = names[i] end
    end
  end
  orders[t] = o
  return setmetatable(t, orderedMeta)
end
local function orderedPairs(t)
  local o = type(t) == "table" and orders[t] or nil
  if o == nil then return pairs(t) end
  local keys, n, seen = {}, 0, {}
  local i = 1
  while rawget(t, i) ~= nil do
    n = n + 1; keys[n] = i; seen[i] = true; i = i + 1
  end
  for j = 1, #o do
    local k = o[j]
    if seen[k] == nil and rawget(t, k) ~= nil then n = n + 1; keys[n] = k; seen[k] = true end
  end
  for k in next, t do
    if seen[k] == nil then n = n + 1; keys[n] = k; seen[k] = true end
  end
  local j = 0
  return function()
    while j < n do
      j = j + 1
      local k = keys[j]
      local v = rawget(t, k)
      if v ~= nil then return k, v end
    end
    return nil
  end, t, nil
end

local base = {
  assert = assert, error = error, ipairs = ipairs, next = next, pairs = orderedPairs, pcall = pcall,
  xpcall = xpcall, select = select, tonumber = tonumber, tostring = tostring, type = type,
  unpack = unpack, print = function() end, _VERSION = _VERSION,
  string = libs.string, table = libs.table, math = libs.math, os = libs.os,
}
for _, name in ipairs({ "collectgarbage", "dofile", "getfenv", "getmetatable", "load", "loadfile",
    "loadstring", "rawequal", "rawget", "rawset", "setfenv", "setmetatable", "module", "newproxy" }) do
  base[name] = function()
    error("call function " .. name .. " is not supported in karmada customized resourceinterpreter.", 2)
  end
end
function base.require(name)
  local lib = rawget(libs, name)
  if lib ~= nil then return lib end
  error("module '" .. tostring(name) .. "' not found: no field package.preload['" .. tostring(name) .. "']", 2)
end

-- A call's globals: a fresh table holding everything in base. Built by a generated table
-- constructor, which sizes the table once (copying in a loop costs several times more).
local names = {}
for name in pairs(base) do names[#names + 1] = name end
table.sort(names)
local fields = {}
for i, name in ipairs(names) do fields[i] = format("[%q] = b[%q]", name, name) end
local makeGlobals = load("local b = ... return function() return { " .. table.concat(fields, ", ") .. " } end",
  "=sandbox-globals", "t")(base)

local function newEnv()
  local env = makeGlobals()
  env._G = env
  return env
end

-- Runs the script's chunk in a fresh environment, then its function named fnName.
local function define(chunk, fnName)
  local env = newEnv()
  setupvalue(chunk, 1, env)
  chunk(ordered)
  local f = rawget(env, fnName)
  if f == nil then return nil, "missing" end
  if type(f) ~= "function" then return nil, type(f) end
  return f
end

local function invoke(chunk, fnName, ...)
  local f, problem = define(chunk, fnName)
  if f == nil then return problem end
  return "ok", f(...)
end

local function probe(chunk, fnName)
  local f, problem = define(chunk, fnName)
  return f == nil and problem or "ok"
end

local function collect()
  collectgarbage("collect")
end

return invoke, probe, collect
`;
