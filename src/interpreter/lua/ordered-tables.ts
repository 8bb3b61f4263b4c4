/**
 * gopher-lua, upstream's VM, walks a table with `pairs` in the order its keys were added;
 * Lua 5.4 walks string keys in hash order. Scripts that build a list from a map they filled
 * (upstream's MPIJob aggregation collects conditions this way) would return the list in
 * another order here. To keep that order we rewrite each table constructor in a script,
 * `{ a = x, b = y }` into `__karmada_ordered({ a = x, b = y }, "a", "b")`: the sandbox
 * records the constructor's keys and every key added later (through `__newindex`), and its
 * `pairs` follows that record. Only `{` tokens change, never a line break, so error line
 * numbers stay the script's own.
 *
 * The rewrite works on tokens, not a full parse: `{` only ever opens a table constructor in
 * Lua. If the tokenizer meets something it does not understand it gives up and the script
 * runs unchanged (tables then iterate in Lua's own order).
 */

export const ORDERED_HELPER = "__karmada_ordered";

type TokenKind = "name" | "string" | "number" | "symbol";

interface Token {
  kind: TokenKind;
  text: string;
  start: number;
  end: number;
}

const KEYWORDS = new Set([
  "and",
  "break",
  "do",
  "else",
  "elseif",
  "end",
  "false",
  "for",
  "function",
  "goto",
  "if",
  "in",
  "local",
  "nil",
  "not",
  "or",
  "repeat",
  "return",
  "then",
  "true",
  "until",
  "while",
]);

const SYMBOLS = ["...", "..", "==", "~=", "<=", ">=", "//", "::", "<<", ">>"];

function isNameStart(c: string): boolean {
  return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_";
}

function isNameChar(c: string): boolean {
  return isNameStart(c) || (c >= "0" && c <= "9");
}

/** `[==[` at `i`: the level (number of `=`), or -1 when this is not a long bracket. */
function longBracketLevel(src: string, i: number): number {
  if (src[i] !== "[") return -1;
  let j = i + 1;
  while (src[j] === "=") j++;
  return src[j] === "[" ? j - i - 1 : -1;
}

/** End (exclusive) of the long bracket opened at `i` with `level`, or -1 if unterminated. */
function longBracketEnd(src: string, i: number, level: number): number {
  const close = `]${"=".repeat(level)}]`;
  const at = src.indexOf(close, i + level + 2);
  return at < 0 ? -1 : at + close.length;
}

const BLANKS = new Set([" ", "\t", "\r", "\n", "\v", "\f"]);

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/** End of the comment starting at `i` (`--`), or -1 when a long comment is unterminated. */
function commentEnd(src: string, i: number): number {
  const level = longBracketLevel(src, i + 2);
  if (level >= 0) return longBracketEnd(src, i + 2, level);
  const nl = src.indexOf("\n", i);
  return nl < 0 ? src.length : nl;
}

/** End of the quoted string starting at `i`, or -1 when unterminated. */
function quotedEnd(src: string, i: number): number {
  const quote = src[i];
  let j = i + 1;
  while (j < src.length && src[j] !== quote) {
    if (src[j] === "\n") return -1;
    j += src[j] === "\\" ? 2 : 1;
  }
  return j < src.length ? j + 1 : -1;
}

/** End of the numeral starting at `i` (decimal or hex, with exponents). */
function numberEnd(src: string, i: number): number {
  const hex = src[i] === "0" && (src[i + 1] === "x" || src[i + 1] === "X");
  let j = i + (hex ? 2 : 1);
  while (j < src.length) {
    const d = src[j]!;
    const exponent = hex ? d === "p" || d === "P" : d === "e" || d === "E";
    if (exponent && (src[j + 1] === "+" || src[j + 1] === "-")) j += 2;
    else if (isNameChar(d) || d === ".") j++;
    else break;
  }
  return j;
}

/** The token starting at `i` (not a blank or comment), or undefined when it is malformed. */
function readToken(src: string, i: number): Token | undefined {
  const c = src[i]!;
  const token = (kind: TokenKind, end: number): Token | undefined =>
    end < 0 ? undefined : { kind, text: src.slice(i, end), start: i, end };
  if (c === '"' || c === "'") return token("string", quotedEnd(src, i));
  const level = longBracketLevel(src, i);
  if (level >= 0) return token("string", longBracketEnd(src, i, level));
  if (isNameStart(c)) {
    let j = i + 1;
    while (j < src.length && isNameChar(src[j]!)) j++;
    return token("name", j);
  }
  if (isDigit(c) || (c === "." && isDigit(src[i + 1]))) return token("number", numberEnd(src, i));
  const symbol = SYMBOLS.find((s) => src.startsWith(s, i)) ?? c;
  return token("symbol", i + symbol.length);
}

/** Lua 5.4 tokens, without comments and blanks; undefined when the source cannot be tokenized. */
export function tokenize(src: string): Token[] | undefined {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    if (BLANKS.has(src[i]!)) {
      i++;
    } else if (src.startsWith("--", i)) {
      i = commentEnd(src, i);
      if (i < 0) return undefined;
    } else {
      const tok = readToken(src, i);
      if (!tok) return undefined;
      tokens.push(tok);
      i = tok.end;
    }
  }
  return tokens;
}

/** An open bracket or block while rewriting. */
interface Open {
  kind: "constructor" | "paren" | "block";
  /** Constructors: keys of `name = value` fields, in order. */
  keys: string[];
  /** Constructors: the next token starts a field. */
  atField: boolean;
  /** Constructors: written as a call argument (`f{...}`), so wrapped in parentheses. */
  callArgument: boolean;
}

/** Whether a `{` after `prev` is call syntax (`f{...}`, `f"x"{...}`, `f(){...}`). */
function isCallArgument(prev: Token | undefined): boolean {
  if (!prev) return false;
  if (prev.kind === "name") return !KEYWORDS.has(prev.text);
  if (prev.kind === "string") return true;
  return prev.kind === "symbol" && (prev.text === ")" || prev.text === "]" || prev.text === "}");
}

/** Records a `name = value` field when the constructor on top of the stack expects a field. */
function noteField(top: Open | undefined, tok: Token, next: Token | undefined): void {
  if (top?.kind !== "constructor") return;
  if (top.atField && tok.kind === "name" && !KEYWORDS.has(tok.text) && next?.text === "=")
    top.keys.push(tok.text);
  top.atField = tok.text === "," || tok.text === ";";
}

/** Tokens that open a bracket or block, and what each closer must match. Blocks inside a
 * constructor (function bodies) must not be read as its fields. */
const OPENERS: Record<string, Open["kind"]> = {
  "(": "paren",
  "[": "paren",
  function: "block",
  if: "block",
  do: "block",
  repeat: "block",
};
const CLOSERS: Record<string, Open["kind"]> = { ")": "paren", "]": "paren", end: "block", until: "block" };

function opening(kind: Open["kind"], callArgument = false): Open {
  return { kind, keys: [], atField: kind === "constructor", callArgument };
}

/** The script with its table constructors wrapped; undefined when it cannot be rewritten. */
export function orderTableConstructors(src: string): string | undefined {
  const tokens = tokenize(src);
  if (!tokens) return undefined;
  const stack: Open[] = [];
  const out: string[] = [];
  let copied = 0;
  const emit = (upTo: number, text: string) => {
    out.push(src.slice(copied, upTo), text);
    copied = upTo;
  };
  for (let t = 0; t < tokens.length; t++) {
    const tok = tokens[t]!;
    noteField(stack.at(-1), tok, tokens[t + 1]);
    const text = tok.kind === "symbol" || tok.kind === "name" ? tok.text : "";
    if (text === "{") {
      const callArgument = isCallArgument(tokens[t - 1]);
      emit(tok.start, callArgument ? `(${ORDERED_HELPER}(` : `${ORDERED_HELPER}(`);
      stack.push(opening("constructor", callArgument));
    } else if (text === "}") {
      const open = stack.pop();
      if (open?.kind !== "constructor") return undefined;
      emit(tok.end, `${open.keys.map((k) => `, "${k}"`).join("")})${open.callArgument ? ")" : ""}`);
    } else if (Object.hasOwn(OPENERS, text)) {
      stack.push(opening(OPENERS[text]!));
    } else if (Object.hasOwn(CLOSERS, text) && stack.pop()?.kind !== CLOSERS[text]) {
      return undefined;
    }
  }
  if (stack.length > 0) return undefined;
  out.push(src.slice(copied));
  // The helper arrives as the chunk's argument; declared on the first line, so no line moves.
  return `local ${ORDERED_HELPER} = ...; ${out.join("")}`;
}
