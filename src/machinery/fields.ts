/**
 * Field selectors (`metadata.name=web,status.phase!=Failed`): only `=`, `==` and `!=`,
 * comma-joined, with backslash escapes for `,`, `=` and `\` in values.
 */

export interface FieldRequirement {
  field: string;
  operator: "=" | "!=";
  value: string;
}

export class FieldSelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FieldSelectorParseError";
  }
}

export function parseFieldSelector(text: string): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  if (text.trim() === "") return out;
  for (const part of splitUnescaped(text, ",")) {
    const opIndex = operatorIndex(part);
    if (opIndex < 0)
      throw new FieldSelectorParseError(`invalid selector: '${text}'; can't understand '${part}'`);
    const op = part.startsWith("!=", opIndex) ? "!=" : part.startsWith("==", opIndex) ? "==" : "=";
    const field = part.slice(0, opIndex).trim();
    const value = unescapeValue(part.slice(opIndex + op.length));
    if (!field) throw new FieldSelectorParseError(`invalid selector: '${text}'; can't understand '${part}'`);
    out.push({ field, operator: op === "!=" ? "!=" : "=", value });
  }
  return out;
}

/** Index of the first unescaped `=` or `!=` in a requirement. */
function operatorIndex(part: string): number {
  for (let i = 0; i < part.length; i++) {
    const c = part[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "!" && part[i + 1] === "=") return i;
    if (c === "=") return i;
  }
  return -1;
}

function splitUnescaped(text: string, sep: string): string[] {
  const out: string[] = [];
  let cur = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\" && i + 1 < text.length) {
      cur += c + text[i + 1];
      i++;
    } else if (c === sep) {
      out.push(cur);
      cur = "";
    } else {
      cur += c;
    }
  }
  out.push(cur);
  return out;
}

function unescapeValue(value: string): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === "\\" && i + 1 < value.length) {
      const n = value[i + 1]!;
      if (n !== "\\" && n !== "," && n !== "=") {
        throw new FieldSelectorParseError(
          `invalid field selector value: unrecognized escape sequence \\${n}`,
        );
      }
      out += n;
      i++;
    } else {
      out += c;
    }
  }
  return out;
}

/** Whether the object's selectable field values satisfy every requirement. */
export function fieldsMatch(reqs: FieldRequirement[], values: Record<string, string>): boolean {
  for (const r of reqs) {
    const v = values[r.field] ?? "";
    if (r.operator === "=" ? v !== r.value : v === r.value) return false;
  }
  return true;
}
