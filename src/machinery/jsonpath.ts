/**
 * Kubernetes JSONPath: the dialect of client-go's `util/jsonpath`, which `kubectl -o jsonpath`,
 * `-o custom-columns`, CRD `additionalPrinterColumns` and karmada's stateful failover read.
 * One parser and one evaluator, for templates (`parseJsonPath`) and for a single path written
 * without braces, as a printer column's (`evaluateJsonPath`).
 *
 * Text outside `{}` prints as it is. Inside: `.field` (`\.` escapes a dot in a key), `['key']`,
 * `@` and `$` (the current object), `..` (recursive descent), `*` and `[*]`, indexes and slices
 * `[start:end:step]` (negative from the end), unions `[0,2]` / `['a','b']`, filters
 * `[?(@.x == "y")]` (==, !=, <, >, <=, >=, or existence), quoted text `{"\n"}` with Go escapes,
 * and `{range ...}...{end}` blocks. Upstream's parser quirks are kept: a `['a.b']` key is split
 * at its dots, and a filter holds one quoted string.
 *
 * Results print as client-go prints them: the results of one action joined by a space; lists and
 * maps as compact JSON with sorted keys (Go's encoding); integers as int64 and other numbers as
 * Go's `%v` of a float64 (`1.5e+06`).
 *
 * Where callers differ, options say so: a missing key is an error ("<key> is not found") unless
 * `allowMissingKeys`; filters compare numbers by value unless `goNumberKinds`. `KUBECTL_OPTIONS`
 * sets both, as kubectl and the API server's printer columns evaluate.
 *
 * Where we differ from client-go: `{.}` is the current object (kubectl prints nothing); `*` and
 * `..` visit map keys in sorted order (Go's order is random); an unclosed `{range}` is an error;
 * `null` prints `<nil>` in templates (kubectl v1.32 prints `null`).
 */

export class JsonPathError extends Error {
  override name = "JsonPathError";
}

export interface JsonPathOptions {
  /** A key that is not there yields nothing instead of the error "<key> is not found". */
  allowMissingKeys?: boolean;
  /**
   * Numbers have the kinds Go gives them in the objects kubectl decodes: integers are int64, other
   * numbers float64 (in a filter, `80.0` too), and a filter comparing the two kinds fails. Without
   * it numbers compare by value: karmada decodes every number as float64, so Go's rule would make
   * a literal `2` never match.
   */
  goNumberKinds?: boolean;
}

/** How kubectl (`-o jsonpath`, `-o custom-columns`) and the API server's printer columns evaluate. */
export const KUBECTL_OPTIONS: Readonly<JsonPathOptions> = { allowMissingKeys: true, goNumberKinds: true };

export interface JsonPathTemplate {
  /** The printed text. Throws JsonPathError when a step does not apply (or a key is missing). */
  execute(data: unknown, options?: JsonPathOptions): string;
  /**
   * The values of each piece of the template, in order (client-go's `FindResults`): one list per
   * text, action, and action inside each iteration of a range. A printer column reads the first.
   */
  findResults(data: unknown, options?: JsonPathOptions): unknown[][];
}

interface SliceParam {
  value: number;
  known: boolean;
  /** The end of `[n]`, which is `[n:n+1]`. */
  derived: boolean;
}
type SliceParams = readonly [SliceParam, SliceParam, SliceParam];

type PathNode =
  | { kind: "text"; value: string }
  | { kind: "field"; name: string }
  | { kind: "wildcard" }
  | { kind: "recursive" }
  | { kind: "slice"; params: SliceParams }
  | { kind: "union"; branches: PathNode[][] }
  | { kind: "filter"; left: PathNode[]; operator: string; right: PathNode[] }
  | { kind: "int" | "float"; value: number }
  | { kind: "bool"; value: boolean }
  | { kind: "identifier"; name: string };

/** Literal text or an action; with a body, a range block run for each value its path yields. */
interface Piece {
  nodes: PathNode[];
  body?: Piece[];
}

// ---- parsing --------------------------------------------------------------------------------

interface Cursor {
  input: string;
  pos: number;
}

const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const QUOTED_KEY = /^'([^']*)'$/;
const COMPARISON = /^([^!<>=]+)([!<>=]+)(.+?)$/;

const isTerminator = (ch: string | undefined): boolean => ch === undefined || " \t\r\n.,[]$@{}".includes(ch);
const isAlphaNumeric = (ch: string | undefined): boolean => ch !== undefined && /^[\p{L}\p{Nd}_]$/u.test(ch);
const isDigit = (ch: string | undefined): boolean => ch !== undefined && ch >= "0" && ch <= "9";

export function parseJsonPath(template: string): JsonPathTemplate {
  const cur: Cursor = { input: template, pos: 0 };
  const root: Piece[] = [];
  const blocks = [root];
  while (cur.pos < template.length) {
    const block = blocks.at(-1) as Piece[];
    const open = template.indexOf("{", cur.pos);
    const textEnd = open < 0 ? template.length : open;
    if (textEnd > cur.pos) block.push({ nodes: [{ kind: "text", value: template.slice(cur.pos, textEnd) }] });
    if (open < 0) break;
    cur.pos = open + 1;
    const nodes = parseAction(cur);
    const first = nodes[0]?.kind === "identifier" ? nodes[0].name : undefined;
    if (first === "end" && nodes.length === 1) {
      if (blocks.length === 1) throw new JsonPathError("not in range, nothing to end");
      blocks.pop();
    } else if (first === "range") {
      const body: Piece[] = [];
      block.push({ nodes: nodes.slice(1), body });
      blocks.push(body);
    } else {
      block.push({ nodes });
    }
  }
  if (blocks.length > 1) throw new JsonPathError("unclosed range: missing {end}");
  const findResults = (data: unknown, options: JsonPathOptions = {}): unknown[][] => {
    const ctx = { allowMissingKeys: !!options.allowMissingKeys, goNumberKinds: !!options.goNumberKinds };
    const out: unknown[][] = [];
    run(root, data, ctx, out);
    return out;
  };
  return {
    findResults,
    execute: (data, options) =>
      findResults(data, options)
        .map((values) => values.map((v) => printed(v, "<nil>")).join(" "))
        .join(""),
  };
}

/** The nodes of a path written without braces (inside a union, a filter, a quoted key). */
function parsePath(path: string): PathNode[] {
  return parseAction({ input: `${path}}`, pos: 0 });
}

/** The inside of an action, up to and including its closing brace. */
function parseAction(cur: Cursor): PathNode[] {
  const nodes: PathNode[] = [];
  for (;;) {
    const rest = cur.input.slice(cur.pos);
    if (rest.startsWith("}")) {
      cur.pos++;
      return nodes;
    }
    if (rest.startsWith("[?(")) {
      nodes.push(parseFilter(cur));
    } else if (rest.startsWith("..")) {
      if (nodes.at(-1)?.kind === "recursive") throw new JsonPathError("invalid multiple recursive descent");
      cur.pos += 2;
      nodes.push({ kind: "recursive" });
      if (isAlphaNumeric(cur.input[cur.pos])) nodes.push(...parseField(cur));
    } else {
      nodes.push(...parseToken(cur));
    }
  }
}

/** One token, chosen by its first character; spaces, `@` and `$` yield nothing. */
function parseToken(cur: Cursor): PathNode[] {
  const ch = cur.input[cur.pos];
  if (ch === undefined || ch === "\r" || ch === "\n") throw new JsonPathError("unclosed action");
  if (ch === " " || ch === "@" || ch === "$") {
    cur.pos++;
    return [];
  }
  if (ch === "[") return parseBrackets(cur);
  if (ch === '"' || ch === "'") return [parseQuote(cur, ch)];
  if (ch === ".") {
    cur.pos++;
    return parseField(cur);
  }
  if (ch === "+" || ch === "-" || isDigit(ch)) return [parseNumber(cur)];
  if (isAlphaNumeric(ch)) return [parseIdentifier(cur)];
  throw new JsonPathError(`unrecognized character in action: ${JSON.stringify(ch)}`);
}

/** A field name up to the next unescaped terminator; no name (`{.}`) is the current object. */
function parseField(cur: Cursor): PathNode[] {
  const start = cur.pos;
  while (cur.pos < cur.input.length) {
    const ch = cur.input[cur.pos];
    if (ch === "\\") cur.pos = Math.min(cur.pos + 2, cur.input.length);
    else if (isTerminator(ch)) break;
    else cur.pos++;
  }
  const text = cur.input.slice(start, cur.pos);
  if (text === "") return [];
  return [text === "*" ? { kind: "wildcard" } : { kind: "field", name: text.replaceAll("\\", "") }];
}

function parseNumber(cur: Cursor): PathNode {
  const start = cur.pos;
  if (cur.input[cur.pos] === "+" || cur.input[cur.pos] === "-") cur.pos++;
  while (isDigit(cur.input[cur.pos]) || cur.input[cur.pos] === ".") cur.pos++;
  const text = cur.input.slice(start, cur.pos);
  if (/^[+-]?\d+$/.test(text)) return { kind: "int", value: Number(text) };
  if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text)) return { kind: "float", value: Number(text) };
  throw new JsonPathError(`cannot parse number ${text}`);
}

/** `true`, `false`, or a word such as `range` and `end`. */
function parseIdentifier(cur: Cursor): PathNode {
  const start = cur.pos;
  while (!isTerminator(cur.input[cur.pos])) cur.pos++;
  const text = cur.input.slice(start, cur.pos);
  if (text === "true" || text === "false") return { kind: "bool", value: text === "true" };
  return { kind: "identifier", name: text };
}

/** `[...]`: a union (`[0,2]`), a quoted key (`['name']`), an index or a slice (`[-1]`, `[1:3]`, `[*]`). */
function parseBrackets(cur: Cursor): PathNode[] {
  const close = cur.input.indexOf("]", cur.pos);
  const newline = cur.input.indexOf("\n", cur.pos);
  if (close < 0 || (newline >= 0 && newline < close)) throw new JsonPathError("unterminated array");
  const text = cur.input.slice(cur.pos + 1, close);
  cur.pos = close + 1;
  const parts = text.split(",");
  if (parts.length > 1)
    return [{ kind: "union", branches: parts.map((part) => parsePath(`[${part.trim()}]`)) }];
  const key = QUOTED_KEY.exec(text);
  if (key) return parsePath(`.${key[1]}`);

  const m = SLICE.exec(text === "*" ? ":" : text);
  if (!m) throw new JsonPathError(`invalid array index ${text}`);
  const [, first, second, third] = m;
  const start = sliceParam(first);
  // `[n]` is the slice `[n:n+1]`.
  const end =
    second === undefined
      ? { value: start.value + 1, known: true, derived: true }
      : sliceParam(second.slice(1));
  return [{ kind: "slice", params: [start, end, sliceParam(third?.slice(1))] }];
}

function sliceParam(digits: string | undefined): SliceParam {
  if (digits === undefined || digits === "") return { value: 0, known: false, derived: false };
  if (!/^-?\d+$/.test(digits)) throw new JsonPathError(`array index ${digits} is not a number`);
  return { value: Number(digits), known: true, derived: false };
}

/** `[?(left op right)]`, or `[?(path)]`: the path yields something. */
function parseFilter(cur: Cursor): PathNode {
  cur.pos += 3;
  const start = cur.pos;
  // Upstream's scan: the first `)` outside the first quoted string ends the filter.
  let quote = "";
  let closed = false;
  for (;;) {
    const ch = cur.input[cur.pos++];
    if (ch === undefined || ch === "\n") throw new JsonPathError("unclosed filter: expected )]");
    if (ch === '"' || ch === "'") {
      if (quote === "") quote = ch;
      else if (ch === quote && cur.input[cur.pos - 2] !== "\\") closed = true;
    } else if (ch === ")" && (quote === "" || closed)) {
      break;
    }
  }
  if (cur.input[cur.pos] !== "]") throw new JsonPathError("unclosed filter: expected )]");
  const inner = cur.input.slice(start, cur.pos - 1);
  cur.pos++;
  const m = COMPARISON.exec(inner);
  if (!m) return { kind: "filter", left: parsePath(inner), operator: "exists", right: [] };
  return { kind: "filter", left: parsePath(m[1] ?? ""), operator: m[2] ?? "", right: parsePath(m[3] ?? "") };
}

/** A quoted string, unquoted as Go's strconv.Unquote does. */
function parseQuote(cur: Cursor, quote: string): PathNode {
  const start = ++cur.pos;
  for (;;) {
    const ch = cur.input[cur.pos++];
    if (ch === undefined || ch === "\n") throw new JsonPathError("unterminated quoted string");
    // As upstream: a quote right after a backslash does not end the string, even after `\\`.
    if (ch === quote && cur.input[cur.pos - 2] !== "\\") break;
  }
  return { kind: "text", value: unquote(cur.input.slice(start, cur.pos - 1), quote) };
}

const ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
};
const HEX_WIDTH: Record<string, number> = { x: 2, u: 4, U: 8 };

/** Go escapes: `\n` and the like, the quote, `\xHH`, `\uHHHH`, `\UHHHHHHHH`, octal `\NNN`. */
function unquote(raw: string, quote: string): string {
  let out = "";
  for (let i = 0; i < raw.length; ) {
    const ch = raw[i] as string;
    if (ch === quote) throw new JsonPathError(`unquote string ${quote}${raw}${quote} error invalid syntax`);
    if (ch !== "\\") {
      out += ch;
      i++;
      continue;
    }
    const code = raw[i + 1] ?? "";
    const width = HEX_WIDTH[code];
    const octal = raw.slice(i + 1, i + 4);
    if (ESCAPES[code] !== undefined || code === quote) {
      out += ESCAPES[code] ?? code;
      i += 2;
    } else if (width !== undefined) {
      const hex = raw.slice(i + 2, i + 2 + width);
      if (hex.length !== width || !/^[0-9a-fA-F]+$/.test(hex)) throw new JsonPathError("invalid escape");
      out += String.fromCodePoint(Number.parseInt(hex, 16));
      i += 2 + width;
    } else if (/^[0-7]{3}$/.test(octal)) {
      out += String.fromCharCode(Number.parseInt(octal, 8));
      i += 4;
    } else {
      throw new JsonPathError(`invalid escape \\${code}`);
    }
  }
  return out;
}

// ---- evaluation -----------------------------------------------------------------------------

interface Context {
  allowMissingKeys: boolean;
  goNumberKinds: boolean;
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isNil = (v: unknown): v is null | undefined => v === null || v === undefined;
const isInt64 = (n: number): boolean => Number.isInteger(n) && Math.abs(n) < 2 ** 63;

function goType(v: unknown, ctx: Context): string {
  if (Array.isArray(v)) return "[]interface {}";
  if (isMap(v)) return "map[string]interface {}";
  if (typeof v === "number") return ctx.goNumberKinds && isInt64(v) ? "int64" : "float64";
  return typeof v;
}

function run(pieces: readonly Piece[], current: unknown, ctx: Context, out: unknown[][]): void {
  for (const piece of pieces) {
    const values = walk([current], piece.nodes, ctx);
    if (piece.body) for (const value of values) run(piece.body, value, ctx, out);
    else out.push(values);
  }
}

function walk(input: unknown[], nodes: readonly PathNode[], ctx: Context): unknown[] {
  let values = input;
  for (const node of nodes) values = step(values, node, ctx);
  return values;
}

function step(input: unknown[], node: PathNode, ctx: Context): unknown[] {
  switch (node.kind) {
    case "text":
      return [node.value];
    case "int":
    case "float":
    case "bool":
      return input.map(() => node.value);
    case "field":
      return evalField(input, node.name, ctx);
    case "slice":
      return evalSlice(input, node.params, ctx);
    case "union":
      return node.branches.flatMap((branch) => walk(input, branch, ctx));
    case "wildcard":
      return input.flatMap(childrenOf);
    case "recursive":
      return descendants(input);
    case "filter":
      return evalFilter(input, node, ctx);
    case "identifier":
      throw new JsonPathError(`unrecognized identifier ${node.name}`);
  }
}

function evalField(input: unknown[], name: string, ctx: Context): unknown[] {
  if (input.length === 0) return [];
  const out: unknown[] = [];
  for (const v of input) if (isMap(v) && Object.hasOwn(v, name)) out.push(v[name]);
  if (out.length === 0 && !ctx.allowMissingKeys) throw new JsonPathError(`${name} is not found`);
  return out;
}

/** The indexes [start, end) a slice selects in a list of the given length; start = end when none. */
function sliceBounds([from, to]: SliceParams, length: number): [start: number, end: number] {
  let start = from.known ? from.value : 0;
  if (start < 0) start += length;
  let end = to.known ? to.value : length;
  if (end < 0 || (end === 0 && to.derived)) end += length;
  if (start === end) return [start, end];
  if (start >= length || start < 0)
    throw new JsonPathError(`array index out of bounds: index ${start}, length ${length}`);
  if (end > length || end < 0)
    throw new JsonPathError(`array index out of bounds: index ${end - 1}, length ${length}`);
  if (start > end) throw new JsonPathError(`starting index ${start} is greater than ending index ${end}`);
  return [start, end];
}

function evalSlice(input: unknown[], params: SliceParams, ctx: Context): unknown[] {
  const out: unknown[] = [];
  const by = params[2];
  for (const value of input) {
    if (isNil(value)) continue;
    if (!Array.isArray(value)) throw new JsonPathError(`${goType(value, ctx)} is not array or slice`);
    const [start, end] = sliceBounds(params, value.length);
    // Asking for no element ends the whole step, as upstream does.
    if (start === end) return out;
    if (by.known && by.value <= 0) throw new JsonPathError("step must be > 0");
    for (let i = start; i < end; i += by.known ? by.value : 1) out.push(value[i]);
  }
  return out;
}

/** What `*` yields: map values by sorted key, list items, or the UTF-8 bytes of a string. */
function childrenOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (isMap(value))
    return Object.keys(value)
      .sort()
      .map((k) => value[k]);
  if (typeof value === "string") return [...new TextEncoder().encode(value)];
  return [];
}

/** What `..` yields: every value with children, followed by its descendants. */
function descendants(input: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const value of input) {
    const children = childrenOf(value);
    if (children.length > 0) out.push(value, ...descendants(children));
  }
  return out;
}

type FilterNode = Extract<PathNode, { kind: "filter" }>;

function evalFilter(input: unknown[], node: FilterNode, ctx: Context): unknown[] {
  const out: unknown[] = [];
  for (const value of input) {
    if (!Array.isArray(value))
      throw new JsonPathError(`${JSON.stringify(value)} is not array or slice and cannot be filtered`);
    for (const item of value) if (matches(item, node, ctx)) out.push(item);
  }
  return out;
}

function matches(item: unknown, node: FilterNode, ctx: Context): boolean {
  if (node.operator === "exists") {
    try {
      return walk([item], node.left, ctx).length > 0;
    } catch {
      return false;
    }
  }
  const left = operand(item, node.left, ctx);
  if (left === undefined) return false;
  const right = operand(item, node.right, ctx);
  if (right === undefined) return false;
  return compare(left, node.operator, right, ctx);
}

interface Operand {
  value: unknown;
  nodes: readonly PathNode[];
}

/** The single value one side of a comparison yields for an item, with the nodes that wrote it. */
function operand(item: unknown, nodes: readonly PathNode[], ctx: Context): Operand | undefined {
  const values = walk([item], nodes, ctx);
  if (values.length === 0) return undefined;
  if (values.length > 1) throw new JsonPathError("can only compare one element at a time");
  return { value: values[0], nodes };
}

/** Go's comparison kinds; with `goNumberKinds`, a number literal keeps how it was written. */
function kindOf({ value, nodes }: Operand, ctx: Context): string {
  switch (typeof value) {
    case "boolean":
    case "string":
      return typeof value;
    case "number": {
      if (!ctx.goNumberKinds) return "number";
      const literal = nodes.length === 1 ? nodes[0]?.kind : undefined;
      if (literal === "int" || literal === "float") return literal;
      return isInt64(value) ? "int" : "float";
    }
    default:
      throw new JsonPathError("invalid type for comparison");
  }
}

function compare(left: Operand, operator: string, right: Operand, ctx: Context): boolean {
  const kind = kindOf(left, ctx);
  if (kind !== kindOf(right, ctx)) throw new JsonPathError("incompatible types for comparison");
  const [a, b] = [left.value as number | string, right.value as number | string];
  if (operator === "==") return a === b;
  if (operator === "!=") return a !== b;
  if (!["<", ">", "<=", ">="].includes(operator))
    throw new JsonPathError(`unrecognized filter operator ${operator}`);
  if (kind === "boolean") throw new JsonPathError("invalid type for comparison");
  if (operator === "<") return a < b;
  if (operator === ">") return a > b;
  return operator === "<=" ? a <= b : a >= b;
}

/**
 * The values a path written without braces (a printer column's `jsonPath`) matches in data, in
 * order. Throws JsonPathError for a malformed path or a step that does not apply.
 */
export function evaluateJsonPath(path: string, data: unknown, options: JsonPathOptions = {}): unknown[] {
  return parseJsonPath(`{${path}}`).findResults(data, options)[0] ?? [];
}

// ---- printing -------------------------------------------------------------------------------

/** Go's `%v` of a float64: shortest digits, in exponent form below 1e-4 and from 1e6 on (`1.5e+06`). */
function goFloat(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (!Number.isFinite(n)) return n > 0 ? "+Inf" : "-Inf";
  if (n === 0) return Object.is(n, -0) ? "-0" : "0";
  const [mantissa = "", exponent = "0"] = n.toExponential().split("e");
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) {
    return `${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  return String(n);
}

/** A JSON number as Go prints what kubectl decodes it to: int64 for integers, float64 otherwise. */
export function goNumberText(n: number): string {
  return isInt64(n) ? BigInt(n).toString() : goFloat(n);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isMap(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys(value[k])]),
  );
}

/** Go's `json.Marshal`: keys sorted; `<`, `>`, `&`, U+2028 and U+2029 escaped. */
export function goJson(value: unknown): string {
  return String(JSON.stringify(sortKeys(value)))
    .replaceAll("<", "\\u003c")
    .replaceAll(">", "\\u003e")
    .replaceAll("&", "\\u0026")
    .replaceAll("\u2028", "\\u2028")
    .replaceAll("\u2029", "\\u2029");
}

function printed(value: unknown, nil: string): string {
  if (Array.isArray(value) || isMap(value)) return goJson(value);
  if (isNil(value)) return nil;
  if (typeof value === "number") return goNumberText(value);
  return String(value);
}

/**
 * One value as a printer column of type string shows it: as a template prints it, except null,
 * which reaches upstream's printer as an untyped nil and prints `<no value>`.
 */
export function resultText(value: unknown): string {
  return printed(value, "<no value>");
}
