/**
 * How go-yaml v2 (the YAML library behind sigs.k8s.io/yaml, which the fieldOverrider uses)
 * decides what a plain scalar is: YAML 1.1 booleans (`yes`, `on`, `y`...), Go integer
 * syntax (`0x1F`, `0o17`, `017`, `1_000`), floats, and timestamps (which stay strings but
 * make the encoder quote them). Also Go's `%g` float formatting, which the encoder uses.
 *
 * Decoded values: `bigint` for integers, `number` for floats, so that an integer never turns
 * into a float on the way through.
 */

export const TAG = {
  str: "tag:yaml.org,2002:str",
  bool: "tag:yaml.org,2002:bool",
  int: "tag:yaml.org,2002:int",
  float: "tag:yaml.org,2002:float",
  null: "tag:yaml.org,2002:null",
  timestamp: "tag:yaml.org,2002:timestamp",
  binary: "tag:yaml.org,2002:binary",
  merge: "tag:yaml.org,2002:merge",
} as const;

export type YamlScalar = null | boolean | string | bigint | number;

export interface Resolved {
  tag: string;
  value: YamlScalar;
}

/** A decoding problem; the message follows go-yaml's. */
export class YamlV2Error extends Error {
  constructor(message: string) {
    super(`yaml: ${message}`);
    this.name = "YamlV2Error";
  }
}

const WORDS = new Map<string, Resolved>();
for (const [value, tag, words] of [
  [true, TAG.bool, "y Y yes Yes YES true True TRUE on On ON"],
  [false, TAG.bool, "n N no No NO false False FALSE off Off OFF"],
  [null, TAG.null, "~ null Null NULL"],
  [Number.NaN, TAG.float, ".nan .NaN .NAN"],
  [Number.POSITIVE_INFINITY, TAG.float, ".inf .Inf .INF +.inf +.Inf +.INF"],
  [Number.NEGATIVE_INFINITY, TAG.float, "-.inf -.Inf -.INF"],
] as const) {
  for (const w of words.split(" ")) WORDS.set(w, { tag, value });
}
WORDS.set("", { tag: TAG.null, value: null });

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** Go's strconv.ParseUint(s, 0, 64) without underscores. */
function parseGoUint(s: string): bigint | undefined {
  let digits = s;
  let pattern = /^[0-9]+$/;
  let prefix = "";
  if (s.startsWith("0")) {
    const p = s[1]?.toLowerCase();
    if (s.length >= 3 && (p === "b" || p === "o" || p === "x")) {
      digits = s.slice(2);
      prefix = `0${p}`;
      pattern = p === "b" ? /^[01]+$/ : p === "o" ? /^[0-7]+$/ : /^[0-9a-fA-F]+$/;
    } else {
      digits = s.slice(1);
      prefix = "0o";
      pattern = /^[0-7]*$/;
    }
  }
  if (!pattern.test(digits)) return undefined;
  const n = digits === "" ? 0n : BigInt(prefix + digits);
  return n <= UINT64_MAX ? n : undefined;
}

/** Go's strconv.ParseInt(s, 0, 64). */
function parseGoInt(s: string): bigint | undefined {
  const negative = s.startsWith("-");
  const magnitude = parseGoUint(s.startsWith("-") || s.startsWith("+") ? s.slice(1) : s);
  if (magnitude === undefined) return undefined;
  const n = negative ? -magnitude : magnitude;
  return n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
}

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const DATE = String.raw`(\d{4})-(\d{1,2})-(\d{1,2})`;
const CLOCK = String.raw`(\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?`;
const TIMESTAMP_LAYOUTS = [
  new RegExp(`^${DATE}T${CLOCK}(Z|[+-](\\d{2}):(\\d{2}))$`),
  new RegExp(`^${DATE}t${CLOCK}(Z|[+-](\\d{2}):(\\d{2}))$`),
  new RegExp(`^${DATE} ${CLOCK}$`),
  new RegExp(`^${DATE}$`),
];

/** Whether go-yaml v2 reads `s` as a timestamp (the Go time layouts it tries). */
export function isYamlTimestamp(s: string): boolean {
  if (!/^\d{4}-/.test(s)) return false;
  return TIMESTAMP_LAYOUTS.some((layout) => {
    const m = layout.exec(s);
    if (!m) return false;
    const n = (i: number) => Number(m[i] ?? 0);
    if (n(2) < 1 || n(2) > 12 || n(3) < 1 || n(3) > daysIn(n(2), n(1))) return false;
    if (n(4) >= 24 || n(5) >= 60 || n(6) >= 60) return false;
    return n(8) <= 24 && n(9) <= 60;
  });
}

const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/** YAML 1.1 sexagesimal numbers: not decoded, but quoted on the way out. */
export function isBase60Float(s: string): boolean {
  return /^[-+0-9]/.test(s) && s.includes(":") && BASE60_FLOAT.test(s);
}

/** go-yaml's first guess from the first character: sign, digit, word, float or nothing. */
function hintOf(s: string): string {
  const first = s[0];
  if (first === undefined) return "N";
  if (first === "-" || first === "+") return "S";
  if (first >= "0" && first <= "9") return "D";
  if ("yYnNtTfFoO~".includes(first)) return "M";
  return first === "." ? "." : "";
}

function floatOrUndefined(text: string): Resolved | undefined {
  const f = Number(text);
  // Go's ParseFloat fails on overflow, and the text is then a string.
  return Number.isFinite(f) ? { tag: TAG.float, value: f } : undefined;
}

/** A number (or timestamp) starting with a digit or a sign. */
function resolveNumeric(s: string, tag: string): Resolved | undefined {
  if ((tag === "" || tag === TAG.timestamp) && isYamlTimestamp(s)) return { tag: TAG.timestamp, value: s };
  const plain = s.replaceAll("_", "");
  const int = parseGoInt(plain) ?? (/^[-+]/.test(plain) ? undefined : parseGoUint(plain));
  if (int !== undefined) return { tag: TAG.int, value: int };
  return YAML_STYLE_FLOAT.test(plain) ? floatOrUndefined(plain) : undefined;
}

function resolveUntagged(s: string, tag: string): Resolved {
  const hint = hintOf(s);
  const str = { tag: TAG.str, value: s };
  if (hint === "" || tag === TAG.str || tag === TAG.binary) return str;
  const word = WORDS.get(s);
  if (word) return word;
  if (hint === ".") return (/^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s) && floatOrUndefined(s)) || str;
  if (hint === "D" || hint === "S") return resolveNumeric(s, tag) ?? str;
  return str;
}

function shortTag(tag: string): string {
  return tag.startsWith("tag:yaml.org,2002:") ? `!!${tag.slice("tag:yaml.org,2002:".length)}` : tag;
}

/**
 * What a scalar with `tag` ("" when untagged and plain) and text `s` decodes to, as go-yaml
 * v2's resolve does; a tag the text does not fit is an error.
 */
export function resolveScalar(tag: string, s: string): Resolved {
  const resolvable = ["", TAG.str, TAG.bool, TAG.int, TAG.float, TAG.null, TAG.timestamp].includes(tag);
  if (!resolvable) return { tag, value: s };
  const r = resolveUntagged(s, tag);
  if (tag === "" || tag === r.tag || tag === TAG.str) return r;
  if (tag === TAG.float && r.tag === TAG.int && typeof r.value === "bigint" && r.value <= INT64_MAX) {
    return { tag: TAG.float, value: Number(r.value) };
  }
  throw new YamlV2Error(`cannot decode ${shortTag(r.tag)} \`${s}\` as a ${shortTag(tag)}`);
}

/** Go's strconv.FormatFloat(x, 'g', -1, bits). */
export function formatGoFloat(x: number, bits: 32 | 64): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Number.POSITIVE_INFINITY) return "+Inf";
  if (x === Number.NEGATIVE_INFINITY) return "-Inf";
  const negative = x < 0 || Object.is(x, -0);
  const sign = negative ? "-" : "";
  let a = Math.abs(x);
  if (a === 0) return `${sign}0`;
  if (bits === 32) {
    a = Math.fround(a);
    for (let p = 1; p <= 9; p++) {
      const candidate = Number(a.toPrecision(p));
      if (Math.fround(candidate) === a) {
        a = candidate;
        break;
      }
    }
  }
  const [mantissa, exponent] = a.toExponential().split("e") as [string, string];
  const digits = mantissa.replace(".", "");
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : "";
    const e = Math.abs(exp).toString().padStart(2, "0");
    return `${sign}${digits[0]}${frac}e${exp < 0 ? "-" : "+"}${e}`;
  }
  const dp = exp + 1;
  if (dp <= 0) return `${sign}0.${"0".repeat(-dp)}${digits}`;
  if (dp >= digits.length) return `${sign}${digits}${"0".repeat(dp - digits.length)}`;
  return `${sign}${digits.slice(0, dp)}.${digits.slice(dp)}`;
}
