/**
 * What JSON.parse does not tell about a document: keys repeated in one object (kube-apiserver
 * warns of them, or refuses them under strict field validation), nesting deeper than Go's
 * decoder accepts ("exceeded max depth"; see MAX_JSON_DEPTH), and numbers a JavaScript number
 * cannot hold (integers past 2^53 would be stored silently rounded; literals past the float
 * range would become Infinity). A single pass without recursion, so depth costs no stack.
 */

/**
 * How deeply a document and a stored object may nest. Go's decoders (and so kube-apiserver)
 * stop at 10000 levels; ours is lower because the write pipeline (pruning, validation,
 * managed fields, patches) walks objects recursively, and a few thousand levels exhaust
 * Node's stack (a 500) or, through managed fields' per-level paths, its heap. 1000 levels
 * leaves a wide margin and is far beyond any real manifest.
 */
export const MAX_JSON_DEPTH = 1000;

export interface JsonScan {
  /** Keys that appeared more than once in one object, in document order (each once). */
  duplicates: string[];
}

/** A document kube-apiserver would refuse to decode (400), with the reason. */
export class JsonDecodeLimitError extends Error {}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

/** Where the scanner stands: in an object (with the keys seen so far) or an array (with an index). */
type Frame = { keys: Set<string> | undefined; key: string; index: number };

function pathOf(stack: readonly Frame[]): string {
  let out = "";
  for (const f of stack) {
    if (f.keys) out += out === "" ? f.key : `.${f.key}`;
    else out += `[${f.index}]`;
  }
  return out || "<root>";
}

/** Checks a number literal: finite, and an integer literal exactly representable. */
function checkNumber(literal: string, fraction: boolean, stack: readonly Frame[]): void {
  const value = Number(literal);
  if (!Number.isFinite(value)) {
    throw new JsonDecodeLimitError(`the number ${literal} at ${pathOf(stack)} is out of range`);
  }
  // Past 2^53 an integer may be held exactly (2^60) and still not be written back as the same
  // literal (JSON.stringify(2 ** 60) is "1152921504606847000"), so only safe integers pass.
  if (fraction || literal.replace("-", "").length <= 15) return;
  if (!Number.isSafeInteger(value)) {
    throw new JsonDecodeLimitError(
      `the integer ${literal} at ${pathOf(stack)} cannot be stored exactly: integers beyond ±9007199254740991 are not supported`,
    );
  }
}

/** The index of the quote closing the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let j = start + 1;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === 0x22) return j;
    j += c === 0x5c ? 2 : 1;
  }
  return j;
}

const DIGIT_OR_MINUS = /[-0-9]/;

/** Checks the number literal at `start` (see checkNumber); the index of its last character. */
function numberEnd(text: string, start: number, stack: readonly Frame[]): number {
  NUMBER.lastIndex = start;
  const m = NUMBER.exec(text);
  if (!m) return start;
  checkNumber(m[0], m[1] !== undefined || m[2] !== undefined, stack);
  return start + m[0].length - 1;
}

/** Duplicate keys found so far, each reported once. */
interface Found {
  duplicates: string[];
  reported: Set<string>;
}

/** A key of the object on top of the stack: remembered, and reported if it came before. */
function noteKey(top: Frame, key: string, found: Found): void {
  if (!top.keys!.has(key)) top.keys!.add(key);
  else if (!found.reported.has(key)) {
    found.reported.add(key);
    found.duplicates.push(key);
  }
  top.key = key;
}

/**
 * Scans JSON text that JSON.parse accepted. Throws JsonDecodeLimitError past `maxDepth`
 * levels or at a number that would not survive as a JavaScript number.
 */
export function scanJson(text: string, maxDepth = MAX_JSON_DEPTH): JsonScan {
  const found: Found = { duplicates: [], reported: new Set() };
  const stack: Frame[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "{" || ch === "[") {
      if (stack.length >= maxDepth) {
        throw new JsonDecodeLimitError(
          `the document is nested too deeply: exceeded max depth of ${maxDepth}`,
        );
      }
      stack.push({ keys: ch === "{" ? new Set() : undefined, key: "", index: 0 });
      expectKey = ch === "{";
    } else if (ch === "}" || ch === "]") {
      stack.pop();
      expectKey = false;
    } else if (ch === ",") {
      const top = stack[stack.length - 1];
      if (top?.keys) expectKey = true;
      else if (top) top.index++;
    } else if (ch === '"') {
      const end = stringEnd(text, i);
      if (expectKey) noteKey(stack[stack.length - 1]!, JSON.parse(text.slice(i, end + 1)) as string, found);
      expectKey = false;
      i = end;
    } else if (DIGIT_OR_MINUS.test(ch)) {
      i = numberEnd(text, i, stack);
    }
  }
  return { duplicates: found.duplicates };
}

/** Whether a JSON value nests deeper than `maxDepth` containers (measured without recursion). */
export function nestedDeeperThan(value: unknown, maxDepth = MAX_JSON_DEPTH): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [v, depth] = pending.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth + 1 > maxDepth) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === "object") pending.push([child, depth + 1]);
    }
  }
  return false;
}
