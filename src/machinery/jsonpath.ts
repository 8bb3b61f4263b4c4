/**
 * Kubernetes JSONPath templates, as `kubectl -o jsonpath=...` and client-go's util/jsonpath
 * read them: text outside `{}` printed as it is, and inside: `.field` / `['field']`, `$` and
 * `@`, `..` (recursive descent), `*` and `[*]`, indexes and slices `[start:end:step]` (negative
 * from the end), unions `[a,b]` / `[0,2]`, filters `[?(@.x == "y")]` (==, !=, <, >, <=, >=, or
 * existence), quoted literals `{"\n"}`, and `{range ...}...{end}` blocks.
 *
 * Results print as client-go prints them: several results of one action joined by a space;
 * strings as they are; numbers as Go's fmt prints a float64 (integers without a fraction);
 * `null` as `<nil>`; objects and arrays as compact JSON with keys sorted (Go's encoding).
 * A missing key is an error ("<key> is not found") unless `allowMissingKeys` is set.
 *
 * Where we differ: numbers compare numerically whatever their spelling (`10` and `10.0`);
 * `.*` over an object yields its values in key order (Go's map order is random).
 */

export class JsonPathError extends Error {}

export interface JsonPathTemplate {
  /** The printed text; throws JsonPathError when a key is missing (by default) or a step does not apply. */
  execute(data: unknown, opts?: { allowMissingKeys?: boolean }): string;
}

type Json = unknown;

/** One step of a path inside `{}`. */
type Step =
  | { kind: "root" }
  | { kind: "field"; name: string }
  | { kind: "wildcard" }
  | { kind: "recursive" }
  | { kind: "slice"; start?: number; end?: number; step?: number; single: boolean }
  | { kind: "union"; paths: Step[][] }
  | { kind: "filter"; left: Step[]; op?: string; right?: Step[] }
  | { kind: "literal"; value: Json };

/** The template: text, actions (a path), and range blocks. */
type Node =
  | { kind: "text"; text: string }
  | { kind: "action"; path: Step[] }
  | { kind: "range"; path: Step[]; body: Node[] };

// ---- parsing --------------------------------------------------------------------------------

const OPERATORS = ["==", "!=", "<=", ">=", "<", ">"];

class Scanner {
  pos = 0;
  readonly src: string;
  constructor(src: string) {
    this.src = src;
  }
  get done(): boolean {
    return this.pos >= this.src.length;
  }
  peek(offset = 0): string {
    return this.src[this.pos + offset] ?? "";
  }
  startsWith(s: string): boolean {
    return this.src.startsWith(s, this.pos);
  }
  skipSpaces(): void {
    while (this.peek() === " " || this.peek() === "\t") this.pos++;
  }
  fail(why: string): never {
    throw new JsonPathError(why);
  }
}

const isIdentChar = (c: string): boolean => /[A-Za-z0-9_\-/]/.test(c);

function parseQuoted(s: Scanner): string {
  const quote = s.peek();
  s.pos++;
  let out = "";
  while (!s.done && s.peek() !== quote) {
    const c = s.peek();
    if (c === "\\" && quote === '"') {
      const n = s.peek(1);
      const map: Record<string, string> = { n: "\n", t: "\t", r: "\r", '"': '"', "\\": "\\", "/": "/" };
      if (map[n] === undefined) s.fail(`invalid escape \\${n} in quoted string`);
      out += map[n];
      s.pos += 2;
      continue;
    }
    out += c;
    s.pos++;
  }
  if (s.done) s.fail("unterminated quoted string");
  s.pos++;
  return out;
}

function parseNumber(s: Scanner): number {
  const m = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(s.src.slice(s.pos));
  if (!m) s.fail(`invalid number at ${s.src.slice(s.pos)}`);
  s.pos += m[0].length;
  return Number(m[0]);
}

/** `[...]`: a filter, a union, a quoted field, an index or a slice. */
function parseBracket(s: Scanner): Step {
  s.pos++; // [
  s.skipSpaces();
  if (s.startsWith("?(")) {
    s.pos += 2;
    const left = parsePath(s, [")", ...OPERATORS]);
    s.skipSpaces();
    const op = OPERATORS.find((o) => s.startsWith(o));
    let right: Step[] | undefined;
    if (op) {
      s.pos += op.length;
      right = parsePath(s, [")", "]"]);
    }
    s.skipSpaces();
    if (!s.startsWith(")]")) s.fail("unclosed filter: expected )]");
    s.pos += 2;
    return { kind: "filter", left, ...(op ? { op, right: right! } : {}) };
  }
  const parts: string[] = [];
  let depth = 0;
  let part = "";
  for (;;) {
    if (s.done) s.fail("unterminated array");
    const c = s.peek();
    if ((c === '"' || c === "'") && depth === 0) {
      const start = s.pos;
      parseQuoted(s);
      part += s.src.slice(start, s.pos);
      continue;
    }
    s.pos++;
    if (c === "[") depth++;
    if (c === "]" && depth-- === 0) break;
    if (c === "," && depth === 0) {
      parts.push(part);
      part = "";
      continue;
    }
    part += c;
  }
  parts.push(part);
  if (parts.length > 1) {
    return { kind: "union", paths: parts.map((p) => bracketSteps(p.trim())) };
  }
  const [only] = bracketSteps(parts[0]!.trim());
  return only!;
}

/** One member of a bracket: a quoted field, `*`, an index, a slice, or a path (in a union). */
function bracketSteps(text: string): Step[] {
  if (text === "*") return [{ kind: "slice", single: false }];
  if (/^'.*'$|^".*"$/s.test(text)) return [{ kind: "field", name: parseQuoted(new Scanner(text)) }];
  if (/^-?\d*(:-?\d*){0,2}$/.test(text) && text !== "") {
    const nums = text.split(":").map((x) => (x.trim() === "" ? undefined : Number(x)));
    if (nums.length === 1) return [{ kind: "slice", start: nums[0]!, single: true }];
    return [
      {
        kind: "slice",
        ...(nums[0] !== undefined ? { start: nums[0] } : {}),
        ...(nums[1] !== undefined ? { end: nums[1] } : {}),
        ...(nums[2] !== undefined ? { step: nums[2] } : {}),
        single: false,
      },
    ];
  }
  if (text.startsWith(".") || text.startsWith("@") || text.startsWith("$"))
    return parsePath(new Scanner(text), []);
  throw new JsonPathError(`invalid array index ${text}`);
}

/** A path until one of `stops` (or the end of the source); spaces around steps are skipped. */
function parsePath(s: Scanner, stops: string[]): Step[] {
  const steps: Step[] = [];
  for (;;) {
    s.skipSpaces();
    if (s.done || stops.some((x) => s.startsWith(x))) return steps;
    const c = s.peek();
    if (c === "@") {
      s.pos++;
    } else if (c === "$") {
      s.pos++;
      steps.push({ kind: "root" });
    } else if (s.startsWith("..")) {
      s.pos += 1; // the second dot starts the field that follows
      steps.push({ kind: "recursive" });
    } else if (c === ".") {
      s.pos++;
      if (s.peek() === "*") {
        s.pos++;
        steps.push({ kind: "wildcard" });
        continue;
      }
      const start = s.pos;
      while (!s.done && isIdentChar(s.peek())) s.pos++;
      const name = s.src.slice(start, s.pos);
      // `{.}`: the current object itself.
      if (name !== "") steps.push({ kind: "field", name });
    } else if (c === "*") {
      s.pos++;
      steps.push({ kind: "wildcard" });
    } else if (c === "[") {
      steps.push(parseBracket(s));
    } else if (c === '"' || c === "'") {
      steps.push({ kind: "literal", value: parseQuoted(s) });
    } else if (c === "-" || /\d/.test(c)) {
      steps.push({ kind: "literal", value: parseNumber(s) });
    } else if (s.startsWith("true") || s.startsWith("false")) {
      const value = s.startsWith("true");
      s.pos += value ? 4 : 5;
      steps.push({ kind: "literal", value });
    } else {
      s.fail(`unrecognized character in action: ${JSON.stringify(c)}`);
    }
  }
}

/** The text between `{` and its `}` (quotes and brackets may hold braces). */
function actionText(src: string, open: number): { text: string; end: number } {
  let depth = 0;
  let quote = "";
  for (let i = open + 1; i < src.length; i++) {
    const c = src[i]!;
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = "";
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === "[") depth++;
    else if (c === "]") depth--;
    else if (c === "}" && depth <= 0) return { text: src.slice(open + 1, i), end: i + 1 };
  }
  throw new JsonPathError(`unclosed action`);
}

export function parseJsonPath(template: string): JsonPathTemplate {
  const root: Node[] = [];
  const blocks: Node[][] = [root];
  let pos = 0;
  while (pos < template.length) {
    const open = template.indexOf("{", pos);
    const current = blocks.at(-1)!;
    if (open < 0) {
      current.push({ kind: "text", text: template.slice(pos) });
      break;
    }
    if (open > pos) current.push({ kind: "text", text: template.slice(pos, open) });
    const { text, end } = actionText(template, open);
    pos = end;
    const trimmed = text.trim();
    if (trimmed === "end") {
      if (blocks.length === 1) throw new JsonPathError("not in range, nothing to end");
      blocks.pop();
      continue;
    }
    if (/^range\s/.test(trimmed)) {
      const body: Node[] = [];
      current.push({ kind: "range", path: parsePath(new Scanner(trimmed.slice(5)), []), body });
      blocks.push(body);
      continue;
    }
    current.push({ kind: "action", path: parsePath(new Scanner(text), []) });
  }
  if (blocks.length > 1) throw new JsonPathError("unclosed range: missing {end}");
  return {
    execute: (data, opts = {}) => {
      const out: string[] = [];
      run(root, data, data, !!opts.allowMissingKeys, out);
      return out.join("");
    },
  };
}

// ---- evaluation -----------------------------------------------------------------------------

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function goType(v: unknown): string {
  if (Array.isArray(v)) return "[]interface {}";
  if (isObj(v)) return "map[string]interface {}";
  if (typeof v === "number") return "float64";
  return typeof v;
}

interface Ctx {
  root: Json;
  allowMissing: boolean;
}

function evalPath(steps: readonly Step[], input: Json[], ctx: Ctx): Json[] {
  let cur = input;
  for (const step of steps) cur = evalStep(step, cur, ctx);
  return cur;
}

function evalField(name: string, input: Json[], ctx: Ctx): Json[] {
  if (input.length === 0) return [];
  const out: Json[] = [];
  for (const v of input) if (isObj(v) && Object.hasOwn(v, name)) out.push(v[name]);
  if (out.length === 0 && !ctx.allowMissing) throw new JsonPathError(`${name} is not found`);
  return out;
}

function evalSlice(step: Extract<Step, { kind: "slice" }>, input: Json[]): Json[] {
  const out: Json[] = [];
  for (const v of input) {
    if (v === null || v === undefined) continue;
    if (!Array.isArray(v)) throw new JsonPathError(`${goType(v)} is not array or slice`);
    const len = v.length;
    let start = step.start ?? 0;
    if (start < 0) start += len;
    let end = step.single ? start + 1 : (step.end ?? len);
    if (!step.single && end < 0) end += len;
    if (end === start) continue;
    if (start >= len || start < 0)
      throw new JsonPathError(`array index out of bounds: index ${start}, length ${len}`);
    if (end > len || end < 0)
      throw new JsonPathError(`array index out of bounds: index ${end - 1}, length ${len}`);
    if (start > end) throw new JsonPathError(`starting index ${start} is greater than ending index ${end}`);
    const by = step.step ?? 1;
    if (by <= 0) throw new JsonPathError("step must be > 0");
    for (let i = start; i < end; i += by) out.push(v[i]);
  }
  return out;
}

function children(v: Json): Json[] {
  if (Array.isArray(v)) return v;
  if (isObj(v)) return Object.keys(v).map((k) => v[k]);
  return [];
}

function descendants(input: Json[]): Json[] {
  const out: Json[] = [];
  for (const v of input) {
    const kids = children(v);
    if (kids.length === 0) continue;
    out.push(v, ...descendants(kids));
  }
  return out;
}

function compare(op: string, a: Json, b: Json): boolean {
  if (typeof a === "number" && typeof b === "number") {
    return { "==": a === b, "!=": a !== b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b }[op]!;
  }
  if (typeof a === "string" && typeof b === "string") {
    return { "==": a === b, "!=": a !== b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b }[op]!;
  }
  if (typeof a === "boolean" && typeof b === "boolean" && (op === "==" || op === "!=")) {
    return op === "==" ? a === b : a !== b;
  }
  throw new JsonPathError("incompatible types for comparison");
}

function evalFilter(step: Extract<Step, { kind: "filter" }>, input: Json[], ctx: Ctx): Json[] {
  const out: Json[] = [];
  for (const v of input) {
    if (v === null || v === undefined) continue;
    if (!Array.isArray(v))
      throw new JsonPathError(`${goType(v)} is not array or slice and cannot be filtered`);
    for (const item of v) {
      if (!step.op) {
        let found: Json[] = [];
        try {
          found = evalPath(step.left, [item], ctx);
        } catch {
          found = [];
        }
        if (found.length > 0) out.push(item);
        continue;
      }
      const lefts = evalPath(step.left, [item], ctx);
      if (lefts.length === 0) continue;
      if (lefts.length > 1) throw new JsonPathError("can only compare one element at a time");
      const rights = evalPath(step.right!, [item], ctx);
      if (rights.length === 0) continue;
      if (rights.length > 1) throw new JsonPathError("can only compare one element at a time");
      if (compare(step.op, lefts[0], rights[0])) out.push(item);
    }
  }
  return out;
}

function evalStep(step: Step, input: Json[], ctx: Ctx): Json[] {
  switch (step.kind) {
    case "root":
      return [ctx.root];
    case "field":
      return evalField(step.name, input, ctx);
    case "wildcard":
      return input.flatMap((v) =>
        isObj(v)
          ? Object.keys(v)
              .sort()
              .map((k) => v[k])
          : children(v),
      );
    case "recursive":
      return descendants(input);
    case "slice":
      return evalSlice(step, input);
    case "union":
      return step.paths.flatMap((p) => evalPath(p, input, ctx));
    case "filter":
      return evalFilter(step, input, ctx);
    case "literal":
      return [step.value];
  }
}

/** Go's encoding/json: object keys sorted, no spaces. */
function goJson(v: Json): string {
  if (Array.isArray(v)) return `[${v.map(goJson).join(",")}]`;
  if (isObj(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goJson(v[k])}`)
      .join(",")}}`;
  return JSON.stringify(v) ?? "null";
}

/** Go's fmt.Print of a float64: integers plainly up to 1e21, else exponent form `1e+21`. */
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const s = String(n);
  return s.replace(/e([+-])(\d)$/, "e$10$2");
}

function print(v: Json): string {
  if (typeof v === "string") return v;
  if (typeof v === "number") return goNumber(v);
  if (typeof v === "boolean") return String(v);
  if (v === null || v === undefined) return "<nil>";
  return goJson(v);
}

function run(nodes: readonly Node[], current: Json, root: Json, allowMissing: boolean, out: string[]): void {
  const ctx: Ctx = { root, allowMissing };
  for (const node of nodes) {
    if (node.kind === "text") out.push(node.text);
    else if (node.kind === "action") out.push(evalPath(node.path, [current], ctx).map(print).join(" "));
    else
      for (const item of evalPath(node.path, [current], ctx)) run(node.body, item, root, allowMissing, out);
  }
}
