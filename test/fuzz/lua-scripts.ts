/**
 * Lua scripts for the interpreter fuzzer: random snippets from a small grammar (with the
 * operations a customization script uses and the ones it must not), mutations of them, and
 * hand-written hostile bodies, each one known way of trying to hang, exhaust or escape.
 */
import fc from "fast-check";

/** What a generated hook runs on: every global and argument name the grammar may read. */
const NAMES = ["a", "b", "t", "s", "n", "x"];

const LIBRARY_CALLS = [
  "tostring",
  "tonumber",
  "type",
  "select",
  "next",
  "pairs",
  "ipairs",
  "pcall",
  "error",
  "assert",
  "unpack",
  "string.format",
  "string.sub",
  "string.find",
  "string.match",
  "string.gmatch",
  "string.byte",
  "string.char",
  "string.lower",
  "string.len",
  "string.reverse",
  "table.concat",
  "table.insert",
  "table.remove",
  "table.sort",
  "table.unpack",
  "math.floor",
  "math.max",
  "math.huge",
  "math.tointeger",
  "os.time",
  "os.date",
  "kube.resourceAdd",
  "kube.getResourceQuantity",
  "kube.accuratePodRequirements",
  "kube.getPodDependencies",
  // Refused in the sandbox: each call must end in a clear error.
  "load",
  "loadstring",
  "dofile",
  "require",
  "setmetatable",
  "getmetatable",
  "rawget",
  "rawset",
  "collectgarbage",
  "string.rep",
  "string.gsub",
  "string.dump",
  "os.execute",
  "os.getenv",
  "io.open",
  "debug.getregistry",
  "coroutine.wrap",
  "package.loadlib",
];

const STRINGS = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom("%d+", "(.-)", "a*a*b", "%b()", "[^:]+", "%f[%w]", "%1", "[", "%", "^$", "%s*(.-)%s*$"),
  fc.constantFrom("*t", "!%Y-%m-%d", "%Ez", "%5q", "%99999999d", "%s%s%s%s", "%c"),
);

function luaString(s: string): string {
  return `"${[...s].map((c) => (/[A-Za-z0-9 %*()[\]^$.+\-?:!]/.test(c) ? c : `\\${c.codePointAt(0)! & 0xff}`)).join("")}"`;
}

const NUMBERS = fc.oneof(
  fc.integer({ min: -5, max: 1000 }).map(String),
  fc.constantFrom(
    "0/0",
    "1/0",
    "-1/0",
    "2^53",
    "2^63",
    "-2^63",
    "9007199254740993",
    "0x7fffffffffffffff",
    "1e308",
    "-0.0",
    "3 // 0",
    "3 % 0",
  ),
);

export interface GeneratedScript {
  script: string;
}

/** An expression, a block and a script, from a grammar small enough to stay readable in a counterexample. */
const grammar = fc.letrec<{ expr: string; block: string; stmt: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    NUMBERS,
    STRINGS.map(luaString),
    fc.constantFrom(...NAMES, "nil", "true", "false", "{}", "a.spec", "a.metadata.name", "b[1]", "#t", "..."),
    fc
      .tuple(
        tie("expr"),
        fc.constantFrom("..", "+", "-", "*", "/", "//", "%", "^", "==", "<", "and", "or"),
        tie("expr"),
      )
      .map(([l, op, r]) => `(${l} ${op} ${r})`),
    fc
      .tuple(fc.constantFrom(...LIBRARY_CALLS), fc.array(tie("expr"), { maxLength: 3 }))
      .map(([f, args]) => `${f}(${args.join(", ")})`),
    fc
      .tuple(
        fc.array(tie("expr"), { maxLength: 3 }),
        fc.array(fc.tuple(fc.constantFrom(...NAMES), tie("expr")), { maxLength: 2 }),
      )
      .map(([items, fields]) => `{ ${[...items, ...fields.map(([k, v]) => `${k} = ${v}`)].join(", ")} }`),
    tie("expr").map((e) => `(function(...) return ${e} end)()`),
    fc.tuple(tie("expr"), tie("expr")).map(([o, k]) => `(${o})[${k}]`),
  ),
  stmt: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.tuple(fc.constantFrom(...NAMES), tie("expr")).map(([n, e]) => `local ${n} = ${e}`),
    fc.tuple(fc.constantFrom(...NAMES), tie("expr")).map(([n, e]) => `${n} = ${e}`),
    fc.tuple(tie("expr"), tie("expr")).map(([k, v]) => `t = t or {} t[${k}] = ${v}`),
    fc.tuple(tie("expr"), tie("block")).map(([c, body]) => `if ${c} then ${body} end`),
    fc
      .tuple(fc.constantFrom("3", "100", "1e9", "math.huge"), tie("block"))
      .map(([n, body]) => `for i = 1, ${n} do ${body} end`),
    fc.tuple(tie("expr"), tie("block")).map(([c, body]) => `while ${c} do ${body} end`),
    tie("block").map((body) => `pcall(function() ${body} end)`),
    tie("expr").map((e) => `return ${e}`),
    fc.constantFrom("s = (s or 'x') .. (s or 'x')", "t = { t }", "break", "goto done", "::done::"),
  ),
  block: fc.array(tie("stmt"), { maxLength: 4 }).map((stmts) => stmts.join("\n")),
}));

/** A whole script defining `functionName` (with top-level statements around it, sometimes broken). */
export function generatedScript(functionName: string): fc.Arbitrary<string> {
  const script = fc
    .tuple(grammar.block, grammar.block)
    .map(([top, body]) => `${top}\nfunction ${functionName}(a, b)\n${body}\nend`);
  const mutated = fc
    .tuple(script, fc.nat(), fc.nat({ max: 3 }), fc.string({ maxLength: 3 }))
    .map(([s, at, cut, insert]) => {
      const i = at % (s.length + 1);
      return s.slice(0, i) + insert + s.slice(i + cut);
    });
  return fc.oneof({ weight: 3, arbitrary: script }, { weight: 1, arbitrary: mutated });
}

/**
 * Bodies known to attack a VM, each the whole body of the hook's function: loops, recursion,
 * allocation bombs, pattern backtracking the hook cannot interrupt, and escape attempts.
 */
export const HOSTILE_BODIES: readonly string[] = [
  "while true do end",
  "repeat until false",
  "for i = 1, math.huge do end",
  "local function f() return f() end return f()",
  "local function f(n) return 1 + f(n + 1) end return f(1)",
  "local function f(...) return f(1, ...) end return f()",
  "while true do pcall(function() while true do end end) end",
  "while true do pcall(error) end",
  "local ok = true while ok do ok = not pcall(function() local s = 'x' while true do s = s .. s end end) or true end",
  "local s = 'x' while true do s = s .. s end",
  "local t = {} local i = 0 while true do i = i + 1 t[i] = { i, tostring(i) } end",
  "local t = {} for i = 1, 1e8 do t[#t + 1] = {} end",
  "local t = {} while true do t = { t, t } end",
  "local s = string.rep('x', 1e9) return s",
  "local s = ('x'):rep(1e9) return s",
  "local s = 'x' for i = 1, 20 do s = s .. s end return s",
  "local s = 'a' for i = 1, 14 do s = s .. s end return string.find(s, 'a*a*a*b')",
  "local s = 'a' for i = 1, 17 do s = s .. s end return string.find(s, '.-b')",
  "local s = 'a' for i = 1, 12 do s = s .. s end for k in string.gmatch(s, '(a*)%1b') do end",
  "local s = 'a' for i = 1, 12 do s = s .. s end return s:match('a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?b')",
  "local p = '[' .. ('a'):upper() for i = 1, 19 do p = p .. p end return string.find('b', p)",
  "return string.format('%099999999d', 1)",
  "return string.format(('%s'):upper(), {})",
  "local t = {} for i = 1, 250 do t = { t } end return t",
  "local t = {} for i = 1, 100000 do t = { t } end return t",
  "local t = {} t[1] = t return t",
  "local t = {} t.self = t return t",
  "return { [1] = 1, [3] = 3 }",
  "return { 1, x = 2 }",
  "return function() end",
  "return 0/0",
  "return { nan = 0/0 }",
  "return table.unpack({}, 1, 1e8)",
  "return select('#', table.unpack({}, 1, 1e6))",
  "return string.byte(('x'):upper(), 1, -1)",
  "local s = 'x' for i = 1, 20 do s = s .. s end return string.byte(s, 1, -1)",
  "return table.concat(setmetatable({}, { __index = function() return 'x' end }), ',', 1, 1e9)",
  "local t = {} for i = 1, 1e5 do t[i] = i end table.sort(t, function(x, y) return true end) return t",
  "return os.date('*t', 2^62)",
  "return os.date('%Ez')",
  "return os.time({ year = 2^40, month = 1, day = 1 })",
  "return os.execute('id')",
  "return os.getenv('HOME')",
  "return os.remove('/tmp/x')",
  "return os.exit(1)",
  "return io.open('/etc/passwd'):read('a')",
  "return io.popen('id'):read('a')",
  "return require('io')",
  "return require('os').execute('id')",
  "return require('debug').getregistry()",
  "return package.loadlib('/lib/libc.so.6', 'system')",
  "return load(string.dump(function() end))",
  "return load('\\27Lua')",
  "return loadstring('return 1')()",
  "return dofile('/etc/passwd')",
  "return loadfile('/etc/passwd')",
  "return debug.getinfo(1)",
  "return debug.sethook()",
  "return coroutine.wrap(function() while true do coroutine.yield() end end)()",
  "return collectgarbage('count')",
  "return collectgarbage('stop')",
  "return getmetatable('').__index",
  "return getmetatable('x')",
  "return setmetatable(_G, {})",
  "return rawget(_G, 'os')",
  "string.upper = function() return 'pwned' end",
  "_G.string = nil return string.upper('x')",
  "return ('x').rep('x', 10)",
  "return ('').dump(function() end)",
  "return next(string)",
  "for k, v in pairs(string) do if k == 'rep' then return v('x', 1e9) end end",
  "return _ENV",
  "return _G._G._G",
  "error(setmetatable({}, { __tostring = function() while true do end end }))",
  "error({ code = 1 })",
  "error()",
  "error(nil)",
  "error(string.format('%s', ('x'):upper()), 0)",
  "return kube.resourceAdd(('x'):upper(), 2^1000)",
  "return kube.getResourceQuantity('1e99999')",
  "return kube.accuratePodRequirements({ spec = { containers = { { resources = { requests = { cpu = 'x' } } } } } })",
  "return kube.getPodDependencies({ spec = { volumes = 1 } }, 'ns')",
  "local t = {} for i = 1, 40 do t = { t, t } end return kube.getPodDependencies(t, 'ns')",
  "goto nowhere",
  "return ...",
  "return b, b, b, b",
];

/** Sandbox escapes: each expression, evaluated in a script, must raise (never return). */
export const ESCAPE_PROBES: readonly string[] = [
  "os.execute('touch /tmp/karmada-ts-lua-escape')",
  "os.remove('/tmp/karmada-ts-lua-escape')",
  "os.getenv('HOME')",
  "os.exit(1)",
  "io.open('/etc/passwd')",
  "io.popen('id')",
  "require('io')",
  "require('debug')",
  "require('package')",
  "require('coroutine')",
  "package.loadlib('/lib/x86_64-linux-gnu/libc.so.6', 'system')",
  "debug.getregistry()",
  "load('return 1')",
  "loadstring('return 1')",
  "load(string.dump(print))",
  "dofile('/etc/passwd')",
  "loadfile('/etc/passwd')",
  "string.dump(print)",
  "string.rep('x', 10)",
  "('x'):rep(10)",
  "getmetatable('')",
  "setmetatable({}, {})",
  "rawget(string, 'rep')",
  "rawset(_G, 'x', 1)",
  "collectgarbage('count')",
  "coroutine.create(print)",
  "newproxy(true)",
];
