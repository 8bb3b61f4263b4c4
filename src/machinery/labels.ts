/**
 * Label selectors: the string form of list/watch queries (`a=b,c in (d,e),!f`) and the
 * structured form objects carry (`{matchLabels, matchExpressions}`), one matcher for both.
 */

export type Operator = "=" | "!=" | "in" | "notin" | "exists" | "!" | "gt" | "lt";

export interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

/** A parsed selector: every requirement must hold. An empty selector matches everything. */
export type Selector = Requirement[];

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

export class SelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SelectorParseError";
  }
}

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function validateLabelKey(key: string): string | undefined {
  const slash = key.indexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : "";
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (slash >= 0 && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    return `invalid label key "${key}": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`;
  }
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) {
    return `invalid label key "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`;
  }
  return undefined;
}

export function validateLabelValue(value: string): string | undefined {
  if (value === "") return undefined;
  if (value.length > 63 || !NAME.test(value)) {
    return `invalid label value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`;
  }
  return undefined;
}

/** Parses the query-string form. Throws SelectorParseError with a Kubernetes-like message. */
export function parseSelector(text: string): Selector {
  const lexer = new Lexer(text);
  const out: Selector = [];
  if (lexer.peek().kind === "end") return out;
  for (;;) {
    out.push(parseRequirement(lexer));
    const t = lexer.next();
    if (t.kind === "end") return out;
    if (t.kind !== ",") throw new SelectorParseError(`found '${t.text}', expected: ',' or 'end of string'`);
  }
}

function parseRequirement(lexer: Lexer): Requirement {
  let t = lexer.next();
  if (t.kind === "!") {
    const key = lexer.next();
    if (key.kind !== "id")
      throw new SelectorParseError(`found '${key.text}', expected: identifier after '!'`);
    checkKey(key.text);
    return { key: key.text, operator: "!", values: [] };
  }
  if (t.kind !== "id")
    throw new SelectorParseError(`found '${t.text}', expected: !, identifier, or 'end of string'`);
  const key = t.text;
  checkKey(key);
  const op = lexer.peek();
  if (op.kind === "," || op.kind === "end") return { key, operator: "exists", values: [] };
  lexer.next();
  switch (op.kind) {
    case "=":
    case "==":
    case "!=": {
      t = lexer.peek();
      let value = "";
      if (t.kind === "id") {
        value = lexer.next().text;
      } else if (t.kind !== "," && t.kind !== "end") {
        throw new SelectorParseError(`found '${t.text}', expected: identifier`);
      }
      checkValue(value);
      return { key, operator: op.kind === "!=" ? "!=" : "=", values: [value] };
    }
    case ">":
    case "<": {
      t = lexer.next();
      if (t.kind !== "id" || !/^-?\d+$/.test(t.text)) {
        throw new SelectorParseError(`for 'Gt', 'Lt' operators, the value must be an integer`);
      }
      return { key, operator: op.kind === ">" ? "gt" : "lt", values: [t.text] };
    }
    case "id":
      if (op.text === "in" || op.text === "notin") {
        return { key, operator: op.text, values: parseValueSet(lexer) };
      }
      throw new SelectorParseError(`found '${op.text}', expected: in, notin, =, ==, !=, gt, lt`);
    default:
      throw new SelectorParseError(`found '${op.text}', expected: in, notin, =, ==, !=, gt, lt`);
  }
}

function parseValueSet(lexer: Lexer): string[] {
  let t = lexer.next();
  if (t.kind !== "(") throw new SelectorParseError(`found '${t.text}', expected: '('`);
  const values: string[] = [];
  for (;;) {
    t = lexer.next();
    if (t.kind === ")" && values.length === 0) return values;
    let value = "";
    if (t.kind === "id") {
      value = t.text;
      t = lexer.next();
    }
    checkValue(value);
    values.push(value);
    if (t.kind === ")") return values;
    if (t.kind !== ",") throw new SelectorParseError(`found '${t.text}', expected: ',' or ')'`);
  }
}

function checkKey(key: string): void {
  const problem = validateLabelKey(key);
  if (problem) throw new SelectorParseError(problem);
}

function checkValue(value: string): void {
  const problem = validateLabelValue(value);
  if (problem) throw new SelectorParseError(problem);
}

type TokenKind = "id" | "," | "(" | ")" | "!" | "=" | "==" | "!=" | ">" | "<" | "end";
interface Token {
  kind: TokenKind;
  text: string;
}

class Lexer {
  #text: string;
  #pos = 0;
  #peeked: Token | undefined;
  constructor(text: string) {
    this.#text = text;
  }
  peek(): Token {
    this.#peeked ??= this.#scan();
    return this.#peeked;
  }
  next(): Token {
    const t = this.peek();
    this.#peeked = undefined;
    return t;
  }
  #scan(): Token {
    const s = this.#text;
    while (this.#pos < s.length && /\s/.test(s[this.#pos]!)) this.#pos++;
    if (this.#pos >= s.length) return { kind: "end", text: "end of string" };
    const c = s[this.#pos]!;
    const two = s.slice(this.#pos, this.#pos + 2);
    if (two === "==" || two === "!=") {
      this.#pos += 2;
      return { kind: two, text: two };
    }
    if (",()!=><".includes(c)) {
      this.#pos++;
      return { kind: c as TokenKind, text: c };
    }
    const start = this.#pos;
    while (this.#pos < s.length && !/[\s,()!=><]/.test(s[this.#pos]!)) this.#pos++;
    return { kind: "id", text: s.slice(start, this.#pos) };
  }
}

export function matches(selector: Selector, labels: Record<string, string> | undefined): boolean {
  for (const r of selector) {
    const has = labels !== undefined && Object.hasOwn(labels, r.key);
    const value = has ? labels![r.key]! : undefined;
    switch (r.operator) {
      case "=":
        if (value !== r.values[0]) return false;
        break;
      case "!=":
        if (has && value === r.values[0]) return false;
        break;
      case "in":
        if (!has || !r.values.includes(value!)) return false;
        break;
      case "notin":
        if (has && r.values.includes(value!)) return false;
        break;
      case "exists":
        if (!has) return false;
        break;
      case "!":
        if (has) return false;
        break;
      case "gt":
      case "lt": {
        if (!has || !/^-?\d+$/.test(value!)) return false;
        const n = Number(value);
        const bound = Number(r.values[0]);
        if (r.operator === "gt" ? !(n > bound) : !(n < bound)) return false;
        break;
      }
    }
  }
  return true;
}

/**
 * Converts the structured form (as in `spec.selector`) to requirements.
 * Invalid operators throw; an empty or absent selector yields an empty requirement list.
 */
export function fromLabelSelector(sel: LabelSelector | undefined | null): Selector {
  const out: Selector = [];
  if (!sel) return out;
  for (const [key, value] of Object.entries(sel.matchLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    out.push({ key, operator: "=", values: [value] });
  }
  for (const e of sel.matchExpressions ?? []) {
    const values = [...(e.values ?? [])];
    switch (e.operator) {
      case "In":
        out.push({ key: e.key, operator: "in", values });
        break;
      case "NotIn":
        out.push({ key: e.key, operator: "notin", values });
        break;
      case "Exists":
        out.push({ key: e.key, operator: "exists", values: [] });
        break;
      case "DoesNotExist":
        out.push({ key: e.key, operator: "!", values: [] });
        break;
      default:
        throw new SelectorParseError(`"${e.operator}" is not a valid label selector operator`);
    }
  }
  return out;
}

/** The query-string form of a selector (as `kubectl describe` and `/scale` show it). */
export function selectorToString(selector: Selector): string {
  return selector
    .map((r) => {
      switch (r.operator) {
        case "=":
          return `${r.key}=${r.values[0]}`;
        case "!=":
          return `${r.key}!=${r.values[0]}`;
        case "in":
          return `${r.key} in (${[...r.values].sort().join(",")})`;
        case "notin":
          return `${r.key} notin (${[...r.values].sort().join(",")})`;
        case "exists":
          return r.key;
        case "!":
          return `!${r.key}`;
        case "gt":
          return `${r.key}>${r.values[0]}`;
        case "lt":
          return `${r.key}<${r.values[0]}`;
        default:
          return "";
      }
    })
    .join(",");
}
