/**
 * YAML text exactly as go-yaml v2's Marshal writes a decoded JSON value (sigs.k8s.io/yaml's
 * JSONToYAML, the last step of a YAML fieldOverrider): block style, map keys in go-yaml's
 * "natural" order, sequences under a key not indented, strings quoted only when they would
 * read back as something else, multi-line strings as literal blocks, and long lines folded
 * after column 80. The rules are libyaml's emitter (scalar analysis, style choice, writers).
 */
import { formatGoFloat, isBase60Float, resolveScalar, TAG, type YamlScalar } from "./yaml-v2-resolve.ts";

export type YamlValue = YamlScalar | YamlValue[] | Map<string, YamlValue>;

const BEST_INDENT = 2;
const BEST_WIDTH = 80;

type Style = "plain" | "single" | "double" | "literal";

interface Context {
  mapping: boolean;
  simpleKey: boolean;
}

function isSpace(c: number | undefined): boolean {
  return c === 0x20;
}
function isBreak(c: number | undefined): boolean {
  return c === 0x0d || c === 0x0a || c === 0x85 || c === 0x2028 || c === 0x2029;
}
function isBlank(c: number | undefined): boolean {
  return c === 0x20 || c === 0x09;
}
function isBlankOrEnd(c: number | undefined): boolean {
  return c === undefined || isBlank(c) || isBreak(c) || c === 0;
}
/** libyaml's printable set; characters outside the BMP are not in it. */
function isPrintable(c: number): boolean {
  return (
    c === 0x0a ||
    (c >= 0x20 && c <= 0x7e) ||
    (c >= 0xa0 && c <= 0xd7ff) ||
    (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff)
  );
}

interface Analysis {
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

/** Whether an indicator keeps the text from being a plain scalar in block context. */
function hasBlockIndicator(chars: number[]): boolean {
  const start = String.fromCodePoint(...chars.slice(0, 3));
  if (start === "---" || start === "...") return true;
  return chars.some((c, i) => {
    const followedByWhitespace = i === chars.length - 1 || isBlank(chars[i + 1]);
    if (i === 0) {
      return (
        "#,[]{}&*!|>'\"%@`".includes(String.fromCodePoint(c)) ||
        ((c === 0x3f || c === 0x3a || c === 0x2d) && followedByWhitespace)
      );
    }
    return (c === 0x3a && followedByWhitespace) || (c === 0x23 && isBlankOrEnd(chars[i - 1]));
  });
}

/** Where spaces and line breaks sit in the text, and whether it has unprintable characters. */
function layout(chars: number[]) {
  const found = {
    lineBreaks: false,
    special: false,
    leadingSpace: isSpace(chars[0]),
    leadingBreak: isBreak(chars[0]),
    trailingSpace: isSpace(chars[chars.length - 1]),
    trailingBreak: isBreak(chars[chars.length - 1]),
    breakSpace: false,
    spaceBreak: false,
  };
  chars.forEach((c, i) => {
    if (!isPrintable(c)) found.special = true;
    if (isBreak(c)) found.lineBreaks = true;
    if (i === 0) return;
    if (isSpace(c) && isBreak(chars[i - 1])) found.breakSpace = true;
    if (isBreak(c) && isSpace(chars[i - 1])) found.spaceBreak = true;
  });
  return found;
}

function analyze(chars: number[]): Analysis {
  if (chars.length === 0) {
    return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  }
  const l = layout(chars);
  const unquotable = l.spaceBreak || l.special;
  const plain =
    !(l.leadingSpace || l.leadingBreak || l.trailingSpace || l.trailingBreak || l.lineBreaks) &&
    !(l.breakSpace || unquotable) &&
    !hasBlockIndicator(chars);
  return {
    multiline: l.lineBreaks,
    blockPlainAllowed: plain,
    singleQuotedAllowed: !(l.breakSpace || unquotable),
    blockAllowed: !(l.trailingSpace || unquotable),
  };
}

/** The text and requested style of a scalar, as go-yaml's encoder hands it to the emitter. */
function scalarEvent(value: YamlScalar): { text: string; style: Style } {
  if (value === null) return { text: "null", style: "plain" };
  switch (typeof value) {
    case "boolean":
      return { text: String(value), style: "plain" };
    case "bigint":
      return { text: value.toString(), style: "plain" };
    case "number": {
      const s = formatGoFloat(value, 64);
      const special: Record<string, string> = { "+Inf": ".inf", "-Inf": "-.inf", NaN: ".nan" };
      return { text: special[s] ?? s, style: "plain" };
    }
    default: {
      // Valid UTF-8 is all a JavaScript string can be once lone surrogates are replaced.
      const text = value.replace(
        /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
        "\ufffd",
      );
      if (text.includes("\n")) return { text, style: "literal" };
      const plain = resolveScalar("", text).tag === TAG.str && !isBase60Float(text);
      return { text, style: plain ? "plain" : "double" };
    }
  }
}

/** go-yaml v2's ordering of map keys (all strings here): runs of digits compare as numbers. */
export function compareYamlKeys(a: string, b: string): number {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]);
    const bl = isLetter(br[i]);
    if (al && bl) return ar[i]!.codePointAt(0)! - br[i]!.codePointAt(0)!;
    if (al || bl) return bl ? -1 : 1;
    const seed = continuesNumber(ar, i, br[i]) ? 1n : 0n;
    const an = digitRun(ar, i, seed);
    const bn = digitRun(br, i, seed);
    if (an.value !== bn.value) return an.value < bn.value ? -1 : 1;
    if (an.end !== bn.end) return an.end - bn.end;
    return ar[i]!.codePointAt(0)! - br[i]!.codePointAt(0)!;
  }
  return ar.length - br.length;
}

/**
 * go-yaml's quirk for a zero at the point of difference: when it continues a number that is
 * not all zeros, both digit runs start from 1 rather than 0.
 */
function continuesNumber(chars: string[], i: number, other: string | undefined): boolean {
  if (chars[i] !== "0" && other !== "0") return false;
  for (let j = i - 1; j >= 0 && isDigit(chars[j]); j--) if (chars[j] !== "0") return true;
  return false;
}

function isLetter(c: string | undefined): boolean {
  return c !== undefined && /\p{L}/u.test(c);
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && /\p{Nd}/u.test(c);
}

/** The value of the digits from `from` on (as Go's int64 arithmetic computes it) and where they end. */
function digitRun(chars: string[], from: number, seed: bigint): { value: bigint; end: number } {
  let value = seed;
  let end = from;
  for (; isDigit(chars[end]); end++)
    value = BigInt.asIntN(64, value * 10n + BigInt(chars[end]!.codePointAt(0)! - 48));
  return { value, end };
}

/** The emitter's state while writing one document. */
class Writer {
  out = "";
  column = 0;
  whitespace = true;
  indention = true;
  indent = -1;
  readonly indents: number[] = [];

  put(s: string): void {
    this.out += s;
    this.column += 1;
  }
  putBreak(): void {
    this.out += "\n";
    this.column = 0;
  }
  write(c: number): void {
    this.out += String.fromCodePoint(c);
    this.column += 1;
  }
  writeBreak(c: number): void {
    if (c === 0x0a) this.putBreak();
    else {
      this.write(c);
      this.column = 0;
    }
  }
  writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace))
      this.putBreak();
    while (this.column < indent) this.put(" ");
    this.whitespace = true;
    this.indention = true;
  }
  writeIndicator(
    indicator: string,
    needWhitespace: boolean,
    isWhitespace: boolean,
    isIndention: boolean,
  ): void {
    if (needWhitespace && !this.whitespace) this.put(" ");
    for (const c of indicator) this.write(c.codePointAt(0)!);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }
  increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }
  popIndent(): void {
    this.indent = this.indents.pop()!;
  }
}

function writePlain(w: Writer, chars: number[], allowBreaks: boolean): void {
  if (!w.whitespace) w.put(" ");
  let spaces = false;
  let breaks = false;
  chars.forEach((c, i) => {
    if (isSpace(c)) {
      if (allowBreaks && !spaces && w.column > BEST_WIDTH && !isSpace(chars[i + 1])) w.writeIndent();
      else w.write(c);
      spaces = true;
    } else if (isBreak(c)) {
      if (!breaks && c === 0x0a) w.putBreak();
      w.writeBreak(c);
      w.indention = true;
      breaks = true;
    } else {
      if (breaks) w.writeIndent();
      w.write(c);
      w.indention = false;
      spaces = false;
      breaks = false;
    }
  });
  w.whitespace = false;
  w.indention = false;
}

function writeSingleQuoted(w: Writer, chars: number[], allowBreaks: boolean): void {
  w.writeIndicator("'", true, false, false);
  let spaces = false;
  let breaks = false;
  chars.forEach((c, i) => {
    if (isSpace(c)) {
      const inside = i > 0 && i < chars.length - 1;
      if (allowBreaks && !spaces && w.column > BEST_WIDTH && inside && !isSpace(chars[i + 1]))
        w.writeIndent();
      else w.write(c);
      spaces = true;
    } else if (isBreak(c)) {
      if (!breaks && c === 0x0a) w.putBreak();
      w.writeBreak(c);
      w.indention = true;
      breaks = true;
    } else {
      if (breaks) w.writeIndent();
      if (c === 0x27) w.put("'");
      w.write(c);
      w.indention = false;
      spaces = false;
      breaks = false;
    }
  });
  w.writeIndicator("'", false, false, false);
  w.whitespace = false;
  w.indention = false;
}

const SHORT_ESCAPES = new Map<number, string>([
  [0x00, "0"],
  [0x07, "a"],
  [0x08, "b"],
  [0x09, "t"],
  [0x0a, "n"],
  [0x0b, "v"],
  [0x0c, "f"],
  [0x0d, "r"],
  [0x1b, "e"],
  [0x22, '"'],
  [0x5c, "\\"],
  [0x85, "N"],
  [0xa0, "_"],
  [0x2028, "L"],
  [0x2029, "P"],
]);

function writeDoubleQuoted(w: Writer, chars: number[], allowBreaks: boolean): void {
  // libyaml tests for a byte order mark at the start of the value, not at each character.
  const bom = chars[0] === 0xfeff;
  w.writeIndicator('"', true, false, false);
  let spaces = false;
  chars.forEach((c, i) => {
    if (!isPrintable(c) || bom || isBreak(c) || c === 0x22 || c === 0x5c) {
      w.put("\\");
      const short = SHORT_ESCAPES.get(c);
      if (short) w.put(short);
      else {
        const [letter, width] = c <= 0xff ? ["x", 2] : c <= 0xffff ? ["u", 4] : ["U", 8];
        w.put(letter);
        for (const d of c.toString(16).toUpperCase().padStart(width, "0")) w.put(d);
      }
      spaces = false;
    } else if (isSpace(c)) {
      if (allowBreaks && !spaces && w.column > BEST_WIDTH && i > 0 && i < chars.length - 1) {
        w.writeIndent();
        if (isSpace(chars[i + 1])) w.put("\\");
      } else {
        w.write(c);
      }
      spaces = true;
    } else {
      w.write(c);
      spaces = false;
    }
  });
  w.writeIndicator('"', false, false, false);
  w.whitespace = false;
  w.indention = false;
}

function writeLiteral(w: Writer, chars: number[]): void {
  w.writeIndicator("|", true, false, false);
  if (isSpace(chars[0]) || isBreak(chars[0])) w.writeIndicator(String(BEST_INDENT), false, false, false);
  const n = chars.length;
  let chomp = "";
  if (n === 0 || !isBreak(chars[n - 1])) chomp = "-";
  else if (n === 1 || isBreak(chars[n - 2])) chomp = "+";
  if (chomp) w.writeIndicator(chomp, false, false, false);
  w.putBreak();
  w.indention = true;
  w.whitespace = true;
  let breaks = true;
  for (const c of chars) {
    if (isBreak(c)) {
      w.writeBreak(c);
      w.indention = true;
      breaks = true;
    } else {
      if (breaks) w.writeIndent();
      w.write(c);
      w.indention = false;
      breaks = false;
    }
  }
}

function emitScalar(w: Writer, value: YamlScalar, ctx: Context): void {
  const event = scalarEvent(value);
  const chars = [...event.text].map((c) => c.codePointAt(0)!);
  const a = analyze(chars);
  let style = event.style;
  if (ctx.simpleKey && a.multiline) style = "double";
  if (style === "plain" && (!a.blockPlainAllowed || (chars.length === 0 && ctx.simpleKey))) style = "single";
  if (style === "single" && !a.singleQuotedAllowed) style = "double";
  if (style === "literal" && (!a.blockAllowed || ctx.simpleKey)) style = "double";
  w.increaseIndent(true, false);
  const allowBreaks = !ctx.simpleKey;
  if (style === "plain") writePlain(w, chars, allowBreaks);
  else if (style === "single") writeSingleQuoted(w, chars, allowBreaks);
  else if (style === "double") writeDoubleQuoted(w, chars, allowBreaks);
  else writeLiteral(w, chars);
  w.popIndent();
}

/** Whether a key can be written as `key: value` rather than `? key`. */
function isSimpleKey(key: string): boolean {
  const event = scalarEvent(key);
  return (
    !analyze([...event.text].map((c) => c.codePointAt(0)!)).multiline && Buffer.byteLength(event.text) <= 128
  );
}

function emitNode(w: Writer, value: YamlValue, ctx: Context): void {
  if (value instanceof Map) {
    if (value.size === 0) {
      w.writeIndicator("{", true, true, false);
      w.writeIndicator("}", false, false, false);
      return;
    }
    w.increaseIndent(false, false);
    for (const key of [...value.keys()].sort(compareYamlKeys)) {
      w.writeIndent();
      if (isSimpleKey(key)) {
        emitScalar(w, key, { mapping: true, simpleKey: true });
        w.writeIndicator(":", false, false, false);
      } else {
        w.writeIndicator("?", true, false, true);
        emitScalar(w, key, { mapping: true, simpleKey: false });
        w.writeIndent();
        w.writeIndicator(":", true, false, true);
      }
      emitNode(w, value.get(key)!, { mapping: true, simpleKey: false });
    }
    w.popIndent();
    return;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) {
      w.writeIndicator("[", true, true, false);
      w.writeIndicator("]", false, false, false);
      return;
    }
    w.increaseIndent(false, ctx.mapping && !w.indention);
    for (const item of value) {
      w.writeIndent();
      w.writeIndicator("-", true, false, true);
      emitNode(w, item, { mapping: false, simpleKey: false });
    }
    w.popIndent();
    return;
  }
  emitScalar(w, value, ctx);
}

/** go-yaml v2's Marshal of one value: a single implicit document. */
export function emitYamlV2(value: YamlValue): string {
  const w = new Writer();
  emitNode(w, value, { mapping: false, simpleKey: false });
  w.writeIndent();
  return w.out;
}
