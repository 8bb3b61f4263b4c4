/**
 * JSON text exactly as Go's encoding/json writes it, because override results and the
 * applied-overrides annotations are compared byte for byte with upstream's:
 * - object members sorted by key in UTF-8 byte order (Go marshals maps that way);
 * - `<`, `>`, `&`, U+2028 and U+2029 escaped as `\u003c`-style sequences (HTML-safe output);
 * - numbers formatted like Go's float64 encoder, which happens to be JavaScript's shortest
 *   round-trip form, except that negative zero stays `-0`;
 * - `bigint` stands for a Go integer, printed in full.
 *
 * Also the "compact" pass Go applies to raw JSON it embeds (json.RawMessage), and the lossless
 * scanning the JSON patch engine needs to keep untouched values as they were written.
 */

/** Go's encoding/json cannot encode this value (NaN, infinities). */
export class GoJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GoJsonError";
  }
}

const HEX = "0123456789abcdef";

/**
 * A JSON string literal as Go writes it. Go 1.22+ writes `\b` and `\f`; the fork of
 * encoding/json inside evanphx/json-patch v5 still writes them as `\u0008` and `\u000c`
 * (`legacyControlEscapes`).
 */
export function quoteGoJsonString(s: string, legacyControlEscapes = false): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = s.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        out += s[i]! + s[i + 1]!;
        i++;
      } else {
        // A lone surrogate is invalid UTF-8 to Go, which writes the replacement character.
        out += "\\ufffd";
      }
      continue;
    }
    switch (c) {
      case 0x22:
        out += '\\"';
        continue;
      case 0x5c:
        out += "\\\\";
        continue;
      case 0x0a:
        out += "\\n";
        continue;
      case 0x0d:
        out += "\\r";
        continue;
      case 0x09:
        out += "\\t";
        continue;
      case 0x08:
        out += legacyControlEscapes ? "\\u0008" : "\\b";
        continue;
      case 0x0c:
        out += legacyControlEscapes ? "\\u000c" : "\\f";
        continue;
      case 0x3c:
      case 0x3e:
      case 0x26:
      case 0x2028:
      case 0x2029:
        out += `\\u${c.toString(16).padStart(4, "0")}`;
        continue;
    }
    out += c < 0x20 ? `\\u00${HEX[c >> 4]}${HEX[c & 0xf]}` : s[i]!;
  }
  return `${out}"`;
}

/** A float64 the way Go's encoding/json writes it. */
export function formatGoJsonNumber(n: number): string {
  if (!Number.isFinite(n)) {
    throw new GoJsonError(`json: unsupported value: ${Number.isNaN(n) ? "NaN" : n > 0 ? "+Inf" : "-Inf"}`);
  }
  return Object.is(n, -0) ? "-0" : String(n);
}

/** Go's map key order: byte order of the UTF-8 encodings. */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/**
 * Go's json.Marshal of an unstructured value: plain objects and Maps become objects with
 * sorted keys, `bigint` is an integer, `undefined` members are left out (as JSON.stringify
 * does).
 */
export function marshalGoJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      return formatGoJsonNumber(value);
    case "bigint":
      return value.toString();
    case "string":
      return quoteGoJsonString(value);
    case "object":
      break;
    default:
      throw new GoJsonError(`json: unsupported type: ${typeof value}`);
  }
  if (Array.isArray(value)) return `[${value.map((v) => marshalGoJson(v ?? null)).join(",")}]`;
  const entries: Array<[string, unknown]> =
    value instanceof Map ? [...value.entries()] : Object.entries(value as Record<string, unknown>);
  const members = entries
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => compareUtf8(a, b))
    .map(([k, v]) => `${quoteGoJsonString(k)}:${marshalGoJson(v)}`);
  return `{${members.join(",")}}`;
}

// ---- raw JSON text ---------------------------------------------------------------------------

function isJsonSpace(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r";
}

function skipSpace(text: string, i: number): number {
  while (isJsonSpace(text[i])) i++;
  return i;
}

/** Whether `text` is one valid JSON value (Go's json.Valid). */
export function isValidJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The first character of a JSON value's text that is not whitespace. */
export function firstJsonChar(raw: string): string {
  return raw[skipSpace(raw, 0)] ?? "";
}

/** The index just past the JSON value starting at `i` (which must be valid JSON). */
function valueEnd(text: string, i: number): number {
  const c = text[i];
  if (c === '"') {
    for (i++; text[i] !== '"'; i++) if (text[i] === "\\") i++;
    return i + 1;
  }
  if (c === "{" || c === "[") {
    let depth = 0;
    for (; i < text.length; i++) {
      const ch = text[i];
      if (ch === '"') {
        i = valueEnd(text, i) - 1;
      } else if (ch === "{" || ch === "[") {
        depth++;
      } else if (ch === "}" || ch === "]") {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return i;
  }
  while (i < text.length && !/[\s,\]}]/.test(text[i]!)) i++;
  return i;
}

/** The members of a (valid) JSON object text, each value as its own source text. */
export function rawObjectMembers(raw: string): Array<{ key: string; keyRaw: string; raw: string }> {
  const members: Array<{ key: string; keyRaw: string; raw: string }> = [];
  let i = skipSpace(raw, skipSpace(raw, 0) + 1);
  while (raw[i] === '"') {
    const keyEnd = valueEnd(raw, i);
    const keyRaw = raw.slice(i, keyEnd);
    const key = JSON.parse(keyRaw) as string;
    const start = skipSpace(raw, skipSpace(raw, keyEnd) + 1);
    const end = valueEnd(raw, start);
    members.push({ key, keyRaw, raw: raw.slice(start, end) });
    i = skipSpace(raw, end);
    if (raw[i] === ",") i = skipSpace(raw, i + 1);
  }
  return members;
}

/** The elements of a (valid) JSON array text, each as its own source text. */
export function rawArrayItems(raw: string): string[] {
  const items: string[] = [];
  let i = skipSpace(raw, skipSpace(raw, 0) + 1);
  while (i < raw.length && raw[i] !== "]") {
    const end = valueEnd(raw, i);
    items.push(raw.slice(i, end));
    i = skipSpace(raw, end);
    if (raw[i] === ",") i = skipSpace(raw, i + 1);
  }
  return items;
}

/**
 * Go's compaction of embedded raw JSON: whitespace between tokens goes, and with HTML
 * escaping `<`, `>`, `&`, U+2028 and U+2029 are escaped; everything else (number spellings,
 * existing escapes, member order) is kept verbatim.
 */
export function compactGoJson(raw: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (!inString) {
      if (isJsonSpace(c)) continue;
      if (c === '"') inString = true;
      out += c;
      continue;
    }
    if (c === "\\") {
      out += c + raw[i + 1]!;
      i++;
      continue;
    }
    if (c === '"') inString = false;
    const code = c.charCodeAt(0);
    out +=
      code === 0x3c || code === 0x3e || code === 0x26 || code === 0x2028 || code === 0x2029
        ? `\\u${code.toString(16).padStart(4, "0")}`
        : c;
  }
  return out;
}
