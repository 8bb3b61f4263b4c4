/**
 * Kubernetes JSONPath (client-go `util/jsonpath`), as CRD `additionalPrinterColumns` use it:
 * `.spec.replicas`, `.metadata.labels.app\.kubernetes\.io/name`, `.items[0]`, `.items[-1]`,
 * `.items[1:3]`, `.items[*].kind`, `.items[0,2]`, `['key']`, `.*`, `..name`,
 * `[?(@.type=="Ready")]`, `[?(@.port>=8000)]`, `[?(@.deleted)]`.
 *
 * The grammar follows the upstream parser, quirks included: a `['a.b']` key is split at its dots,
 * only one quoted string fits in a filter, and `range`/`end` are not supported.
 */

export class JsonPathError extends Error {
  override name = "JsonPathError";
}

interface SliceParam {
  value: number;
  known: boolean;
  derived: boolean;
}

export type JsonPathNode =
  | { kind: "text"; value: string }
  | { kind: "field"; name: string }
  | { kind: "wildcard" }
  | { kind: "recursive" }
  | { kind: "slice"; params: [SliceParam, SliceParam, SliceParam] }
  | { kind: "union"; branches: JsonPathNode[][] }
  | { kind: "filter"; left: JsonPathNode[]; operator: string; right: JsonPathNode[] }
  | { kind: "int"; value: number }
  | { kind: "float"; value: number }
  | { kind: "bool"; value: boolean }
  | { kind: "identifier"; name: string };

/** A template is literal text and `{...}` actions; the columns use a single action. */
export type JsonPathSegment = { kind: "literal"; text: string } | { kind: "action"; nodes: JsonPathNode[] };

// ---------------------------------------------------------------------------------------------
// Parsing

interface Cursor {
  input: string;
  pos: number;
}

const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const DICT_KEY = /^'([^']*)'$/;
const FILTER = /^([^!<>=]+)([!<>=]+)(.+?)$/;

function isTerminator(ch: string | undefined): boolean {
  return ch === undefined || " \t\r\n.,[]$@{}".includes(ch);
}

function isAlphaNumeric(ch: string | undefined): boolean {
  return ch !== undefined && /^[\p{L}\p{Nd}_]$/u.test(ch);
}

function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= "0" && ch <= "9";
}

/** Parses a template such as `{.spec.replicas}` or `name: {.metadata.name}`. */
export function parseJsonPathTemplate(template: string): JsonPathSegment[] {
  const cur: Cursor = { input: template, pos: 0 };
  const segments: JsonPathSegment[] = [];
  while (cur.pos < template.length) {
    const open = template.indexOf("{", cur.pos);
    if (open < 0) {
      segments.push({ kind: "literal", text: template.slice(cur.pos) });
      break;
    }
    if (open > cur.pos) segments.push({ kind: "literal", text: template.slice(cur.pos, open) });
    cur.pos = open + 1;
    segments.push({ kind: "action", nodes: parseAction(cur) });
  }
  return segments;
}

/** The nodes of a single action written without braces, as a CRD column's `jsonPath` is. */
export function parseJsonPath(path: string): JsonPathNode[] {
  const first = parseJsonPathTemplate(`{${path}}`)[0];
  if (first?.kind !== "action") throw new JsonPathError(`invalid JSONPath ${JSON.stringify(path)}`);
  return first.nodes;
}

/** Parses the inside of an action up to and including its closing brace. */
function parseAction(cur: Cursor): JsonPathNode[] {
  const nodes: JsonPathNode[] = [];
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
      if (isAlphaNumeric(cur.input[cur.pos])) nodes.push(parseField(cur));
    } else {
      nodes.push(...parseToken(cur));
    }
  }
}

/** One token of an action, chosen by its first character; spaces, `@` and `$` yield nothing. */
function parseToken(cur: Cursor): JsonPathNode[] {
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
    return [parseField(cur)];
  }
  if (ch === "+" || ch === "-" || isDigit(ch)) return [parseNumber(cur)];
  if (isAlphaNumeric(ch)) return [parseIdentifier(cur)];
  throw new JsonPathError(`unrecognized character in action: ${JSON.stringify(ch)}`);
}

/** A field name up to the next unescaped terminator; `\.` escapes a dot inside a key. */
function parseField(cur: Cursor): JsonPathNode {
  const start = cur.pos;
  while (cur.pos < cur.input.length) {
    const ch = cur.input[cur.pos];
    if (ch === "\\") cur.pos = Math.min(cur.pos + 2, cur.input.length);
    else if (isTerminator(ch)) break;
    else cur.pos++;
  }
  const text = cur.input.slice(start, cur.pos);
  return text === "*" ? { kind: "wildcard" } : { kind: "field", name: text.replaceAll("\\", "") };
}

function parseNumber(cur: Cursor): JsonPathNode {
  const start = cur.pos;
  if (cur.input[cur.pos] === "+" || cur.input[cur.pos] === "-") cur.pos++;
  while (isDigit(cur.input[cur.pos]) || cur.input[cur.pos] === ".") cur.pos++;
  const text = cur.input.slice(start, cur.pos);
  if (/^[+-]?\d+$/.test(text)) return { kind: "int", value: Number(text) };
  if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text)) return { kind: "float", value: Number(text) };
  throw new JsonPathError(`cannot parse number ${text}`);
}

function parseIdentifier(cur: Cursor): JsonPathNode {
  const start = cur.pos;
  while (!isTerminator(cur.input[cur.pos])) cur.pos++;
  const text = cur.input.slice(start, cur.pos);
  if (text === "true" || text === "false") return { kind: "bool", value: text === "true" };
  return { kind: "identifier", name: text };
}

/** `[...]`: a union (`[0,2]`), a quoted key (`['name']`), or an index or slice (`[0]`, `[-1]`, `[1:3]`, `[*]`). */
function parseBrackets(cur: Cursor): JsonPathNode[] {
  const close = cur.input.indexOf("]", cur.pos);
  const newline = cur.input.indexOf("\n", cur.pos);
  if (close < 0 || (newline >= 0 && newline < close)) throw new JsonPathError("unterminated array");
  let text = cur.input.slice(cur.pos + 1, close);
  cur.pos = close + 1;
  if (text === "*") text = ":";

  const parts = text.split(",");
  if (parts.length > 1) {
    return [{ kind: "union", branches: parts.map((part) => parseJsonPath(`[${part.trim()}]`)) }];
  }
  const key = DICT_KEY.exec(text);
  if (key) return parseJsonPath(`.${key[1]}`);

  const m = SLICE.exec(text);
  if (!m) throw new JsonPathError(`invalid array index ${text}`);
  const params: [SliceParam, SliceParam, SliceParam] = [
    { value: 0, known: false, derived: false },
    { value: 0, known: false, derived: false },
    { value: 0, known: false, derived: false },
  ];
  for (let i = 0; i < 3; i++) {
    const group = m[i + 1] ?? "";
    const param = params[i] as SliceParam;
    if (group !== "") {
      const digits = i > 0 ? group.slice(1) : group;
      if (i > 0 && digits === "") continue;
      if (!/^-?\d+$/.test(digits)) throw new JsonPathError(`array index ${digits} is not a number`);
      param.known = true;
      param.value = Number(digits);
    } else if (i === 1) {
      // `[n]` is the slice `[n:n+1]`.
      param.known = true;
      param.value = params[0].value + 1;
      param.derived = true;
    }
  }
  return [{ kind: "slice", params }];
}

/** `[?(left op right)]` or `[?(path)]` (exists). */
function parseFilter(cur: Cursor): JsonPathNode {
  cur.pos += 3;
  const start = cur.pos;
  let begin = false;
  let end = false;
  let pair = "";
  for (;;) {
    const ch = cur.input[cur.pos];
    cur.pos++;
    if (ch === undefined || ch === "\n") throw new JsonPathError("unterminated filter");
    if (ch === '"' || ch === "'") {
      if (!begin) {
        begin = true;
        pair = ch;
      } else if (cur.input[cur.pos - 2] !== "\\" && ch === pair) {
        end = true;
      }
    } else if (ch === ")" && begin === end) {
      break;
    }
  }
  if (cur.input[cur.pos] !== "]") throw new JsonPathError("unclosed array expect ]");
  const inner = cur.input.slice(start, cur.pos - 1);
  cur.pos++;
  const m = FILTER.exec(inner);
  if (!m) return { kind: "filter", left: parseJsonPath(inner), operator: "exists", right: [] };
  return {
    kind: "filter",
    left: parseJsonPath(m[1] ?? ""),
    operator: m[2] ?? "",
    right: parseJsonPath(m[3] ?? ""),
  };
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

const HEX_ESCAPE_WIDTH: Record<string, number> = { x: 2, u: 4, U: 8 };

/** A quoted literal with Go escapes (`\n`, `\"`, `\'`, `\xHH`, `\uHHHH`, `\UHHHHHHHH`, octal). */
function parseQuote(cur: Cursor, quote: string): JsonPathNode {
  const start = cur.pos;
  cur.pos++;
  for (;;) {
    const ch = cur.input[cur.pos];
    cur.pos++;
    if (ch === undefined || ch === "\n") throw new JsonPathError("unterminated quoted string");
    if (ch === quote && cur.input[cur.pos - 2] !== "\\") break;
  }
  const raw = cur.input.slice(start + 1, cur.pos - 1);
  return { kind: "text", value: unquote(raw, quote) };
}

function unquote(raw: string, quote: string): string {
  let out = "";
  let i = 0;
  while (i < raw.length) {
    const ch = raw[i] as string;
    if (ch === quote) throw new JsonPathError(`unquote string ${quote}${raw}${quote} error invalid syntax`);
    if (ch === "\\") {
      const [text, next] = escapeSequence(raw, i + 1, quote);
      out += text;
      i = next;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

/** The character an escape sequence starting at `raw[i]` (after the backslash) stands for, and where it ends. */
function escapeSequence(raw: string, i: number, quote: string): [text: string, next: number] {
  const ch = raw[i];
  if (ch === undefined) throw new JsonPathError("invalid escape at end of string");
  const simple = ESCAPES[ch];
  if (simple !== undefined) return [simple, i + 1];
  if (ch === quote) return [ch, i + 1];
  const width = HEX_ESCAPE_WIDTH[ch];
  if (width !== undefined) {
    const hex = raw.slice(i + 1, i + 1 + width);
    if (hex.length !== width || !/^[0-9a-fA-F]+$/.test(hex)) throw new JsonPathError("invalid escape");
    return [String.fromCodePoint(Number.parseInt(hex, 16)), i + 1 + width];
  }
  const octal = raw.slice(i, i + 3);
  if (/^[0-7]{3}$/.test(octal)) return [String.fromCharCode(Number.parseInt(octal, 8)), i + 3];
  throw new JsonPathError(`invalid escape \\${ch}`);
}

// ---------------------------------------------------------------------------------------------
// Evaluation

export interface JsonPathOptions {
  /** A missing key yields no result instead of an error. Default true, as for printer columns. */
  allowMissingKeys?: boolean;
}

type Values = unknown[];

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNil(value: unknown): boolean {
  return value === null || value === undefined;
}

/** Children for `*` and `..`: map values, array items, or the UTF-8 bytes of a string. */
function childrenOf(value: unknown): Values {
  if (Array.isArray(value)) return value;
  if (isMap(value)) return Object.values(value);
  if (typeof value === "string") return [...new TextEncoder().encode(value)];
  return [];
}

/** Evaluates one action's nodes against data, returning every matched value in order. */
export function evaluateNodes(
  nodes: readonly JsonPathNode[],
  data: unknown,
  options: JsonPathOptions = {},
): Values {
  const allowMissingKeys = options.allowMissingKeys ?? true;
  const walkList = (input: Values, list: readonly JsonPathNode[]): Values =>
    list.reduce<Values>((values, node) => walk(values, node), input);

  const walk = (input: Values, node: JsonPathNode): Values => {
    switch (node.kind) {
      case "text":
        return [node.value];
      case "int":
      case "float":
      case "bool":
        return input.map(() => node.value);
      case "field":
        return evalField(input, node.name, allowMissingKeys);
      case "slice":
        return evalSlice(input, node.params);
      case "union":
        return node.branches.flatMap((branch) => walkList(input, branch));
      case "wildcard":
        return input.flatMap((value) => (isNil(value) ? [] : childrenOf(value)));
      case "recursive":
        return evalRecursive(input);
      case "filter":
        return evalFilter(input, node, walkList);
      case "identifier":
        throw new JsonPathError(`unsupported identifier ${node.name}`);
    }
  };
  return walkList([data], nodes);
}

function evalField(input: Values, name: string, allowMissingKeys: boolean): Values {
  if (input.length === 0) return [];
  const results: Values = [];
  for (const value of input) {
    if (isMap(value) && Object.hasOwn(value, name)) results.push(value[name]);
  }
  if (results.length === 0 && !allowMissingKeys) throw new JsonPathError(`${name} is not found`);
  return results;
}

/** The [start, end) bounds of a slice of an array of the given length; undefined when it selects nothing. */
function sliceBounds(
  params: readonly [SliceParam, SliceParam, SliceParam],
  length: number,
): [number, number] | undefined {
  let start = params[0].known ? params[0].value : 0;
  if (start < 0) start += length;
  let end = params[1].known ? params[1].value : length;
  if (end < 0 || (end === 0 && params[1].derived)) end += length;
  if (start === end) return undefined;
  if (start >= length || start < 0) {
    throw new JsonPathError(`array index out of bounds: index ${start}, length ${length}`);
  }
  if (end > length || end < 0)
    throw new JsonPathError(`array index out of bounds: index ${end - 1}, length ${length}`);
  if (start > end) throw new JsonPathError(`starting index ${start} is greater than ending index ${end}`);
  return [start, end];
}

function evalSlice(input: Values, params: readonly [SliceParam, SliceParam, SliceParam]): Values {
  const result: Values = [];
  for (const value of input) {
    if (isNil(value)) continue;
    if (!Array.isArray(value)) throw new JsonPathError(`${typeof value} is not array or slice`);
    const bounds = sliceBounds(params, value.length);
    // Asking for no element ends the whole evaluation of this step, as upstream does.
    if (bounds === undefined) return result;
    let step = 1;
    if (params[2].known) {
      if (params[2].value <= 0) throw new JsonPathError("step must be > 0");
      step = params[2].value;
    }
    for (let i = bounds[0]; i < bounds[1]; i += step) result.push(value[i]);
  }
  return result;
}

function evalRecursive(input: Values): Values {
  const result: Values = [];
  for (const value of input) {
    if (isNil(value)) continue;
    const children = childrenOf(value);
    if (children.length === 0) continue;
    result.push(value, ...evalRecursive(children));
  }
  return result;
}

type Kind = "bool" | "int" | "float" | "string";

/** Go's comparison kinds: JSON integers decode as int64, other numbers as float64. */
function kindOf(value: unknown, nodes: readonly JsonPathNode[]): Kind {
  const literal = nodes.length === 1 ? nodes[0] : undefined;
  if (literal?.kind === "float") return "float";
  if (literal?.kind === "int") return "int";
  switch (typeof value) {
    case "boolean":
      return "bool";
    case "string":
      return "string";
    case "number":
      return Number.isInteger(value) && Math.abs(value) < 2 ** 63 ? "int" : "float";
    default:
      throw new JsonPathError("invalid type for comparison");
  }
}

function compare(
  left: unknown,
  leftNodes: readonly JsonPathNode[],
  operator: string,
  right: unknown,
  rightNodes: readonly JsonPathNode[],
): boolean {
  const leftKind = kindOf(left, leftNodes);
  const rightKind = kindOf(right, rightNodes);
  if (leftKind !== rightKind) throw new JsonPathError("incompatible types for comparison");
  const equal = left === right;
  if (operator === "==") return equal;
  if (operator === "!=") return !equal;
  if (!["<", ">", "<=", ">="].includes(operator))
    throw new JsonPathError(`unrecognized filter operator ${operator}`);
  if (leftKind === "bool") throw new JsonPathError("invalid type for comparison");
  const less = (left as number | string) < (right as number | string);
  switch (operator) {
    case "<":
      return less;
    case ">":
      return !less && !equal;
    case "<=":
      return less || equal;
    default:
      return !less;
  }
}

type WalkList = (input: Values, list: readonly JsonPathNode[]) => Values;
type FilterNode = Extract<JsonPathNode, { kind: "filter" }>;

/** The single value one side of a comparison yields for an item; undefined when it yields none. */
function operand(
  item: unknown,
  nodes: readonly JsonPathNode[],
  walkList: WalkList,
): { value: unknown } | undefined {
  const values = walkList([item], nodes);
  if (values.length === 0) return undefined;
  if (values.length > 1) throw new JsonPathError("can only compare one element at a time");
  return { value: values[0] };
}

function matchesFilter(item: unknown, node: FilterNode, walkList: WalkList): boolean {
  if (node.operator === "exists") {
    try {
      return walkList([item], node.left).length > 0;
    } catch {
      return false;
    }
  }
  const left = operand(item, node.left, walkList);
  if (left === undefined) return false;
  const right = operand(item, node.right, walkList);
  if (right === undefined) return false;
  return compare(left.value, node.left, node.operator, right.value, node.right);
}

function evalFilter(input: Values, node: FilterNode, walkList: WalkList): Values {
  const results: Values = [];
  for (const value of input) {
    if (!Array.isArray(value)) {
      throw new JsonPathError(`${JSON.stringify(value)} is not array or slice and cannot be filtered`);
    }
    for (const item of value) {
      if (matchesFilter(item, node, walkList)) results.push(item);
    }
  }
  return results;
}

/**
 * The values a JSONPath (written without braces, like a CRD column's) matches in data, in order.
 * Throws JsonPathError for a malformed path or an evaluation error (index out of range, filter on a
 * non-list, comparison of different types).
 */
export function evaluateJsonPath(path: string, data: unknown, options: JsonPathOptions = {}): unknown[] {
  return evaluateNodes(parseJsonPath(path), data, options);
}

// ---------------------------------------------------------------------------------------------
// Printing results as text, the way `PrintResults` does

/** Go's `%v` of a float64: shortest digits, in exponent form below 1e-4 and from 1e6 on (`1.5e+06`). */
function goFloat(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (!Number.isFinite(n)) return n > 0 ? "+Inf" : "-Inf";
  if (n === 0) return Object.is(n, -0) ? "-0" : "0";
  const [mantissa = "", exponent = "0"] = n.toExponential().split("e");
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? "-" : "+";
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  return String(n);
}

/** A JSON number as Go prints the value it decodes to: int64 for integers, float64 otherwise. */
export function goNumberText(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 2 ** 63 ? BigInt(n).toString() : goFloat(n);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isMap(value)) {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) sorted[key] = sortKeys(value[key]);
    return sorted;
  }
  return value;
}

/** `json.Marshal`: keys sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped. */
export function goJson(value: unknown): string {
  return JSON.stringify(sortKeys(value))
    .replaceAll("<", "\\u003c")
    .replaceAll(">", "\\u003e")
    .replaceAll("&", "\\u0026")
    .replaceAll("\u2028", "\\u2028")
    .replaceAll("\u2029", "\\u2029");
}

/** One result as text: lists and maps as JSON, null as `<no value>`, scalars as Go prints them. */
export function resultText(value: unknown): string {
  if (Array.isArray(value) || isMap(value)) return goJson(value);
  if (value === null || value === undefined) return "<no value>";
  if (typeof value === "number") return goNumberText(value);
  return String(value);
}
