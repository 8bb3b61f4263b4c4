/**
 * String-format checks with the messages of apimachinery's `util/validation` and
 * `api/validation/path`. Each `is*` function returns a list of problems, empty when valid.
 */

import { isIP } from "node:net";
import type { FieldError } from "../../machinery/errors.ts";
import { invalid, required } from "./field.ts";
import { byteLength } from "./json.ts";

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  // Go appends "'x', " per example and " or " between them, hence the double space.
  const ex = examples.map((e) => `'${e}', `).join(" or ");
  return `${msg} (e.g. ${ex}regex used for validation is '${fmt}')`;
}

export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

export const EMPTY_ERROR = "must be non-empty";

const QNAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QNAME_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QNAME_RE = new RegExp(`^${QNAME_FMT}$`);

export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      `a qualified name ${regexError(QNAME_ERR, QNAME_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!QNAME_RE.test(name))
    errs.push(`name part ${regexError(QNAME_ERR, QNAME_FMT, "MyName", "my.name", "123-abc")}`);
  return errs;
}

const LABEL_VALUE_FMT = `(${QNAME_FMT})?`;
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE_RE.test(value))
    errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return errs;
}

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL_RE.test(value)) {
    if (DNS1123_SUBDOMAIN_RE.test(value)) errs.push("must not contain dots");
    else errs.push(regexError(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN_RE.test(value))
    errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"));
  return errs;
}

const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_ERR =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`);

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!DNS1035_LABEL_RE.test(value))
    errs.push(regexError(DNS1035_LABEL_ERR, DNS1035_LABEL_FMT, "my-name", "abc-123"));
  return errs;
}

const WILDCARD_FMT = `\\*\\.${DNS1123_SUBDOMAIN_FMT}`;
const WILDCARD_ERR =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";
const WILDCARD_RE = new RegExp(`^${WILDCARD_FMT}$`);

export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!WILDCARD_RE.test(value)) errs.push(regexError(WILDCARD_ERR, WILDCARD_FMT, "*.example.com"));
  return errs;
}

const C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*";
const C_IDENTIFIER_RE = new RegExp(`^${C_IDENTIFIER_FMT}$`);

export function isCIdentifier(value: string): string[] {
  if (C_IDENTIFIER_RE.test(value)) return [];
  return [
    regexError(
      "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'",
      C_IDENTIFIER_FMT,
      "my_name",
      "MY_NAME",
      "MyName",
    ),
  ];
}

export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

export function isInRange(value: number, min: number, max: number): string[] {
  return value >= min && value <= max ? [] : [inclusiveRangeError(min, max)];
}

export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (byteLength(port) > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port))
    errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(port)) errs.push("must contain at least one letter (a-z)");
  if (port.includes("--")) errs.push("must not contain consecutive hyphens");
  if (port.length > 0 && (port.startsWith("-") || port.endsWith("-")))
    errs.push("must not begin or end with a hyphen");
  return errs;
}

const PERCENT_FMT = "[0-9]+%";

export function isValidPercent(percent: string): string[] {
  if (/^[0-9]+%$/.test(percent)) return [];
  return [
    regexError(
      "a valid percent string must be a numeric string followed by an ending '%'",
      PERCENT_FMT,
      "1%",
      "93%",
    ),
  ];
}

const HTTP_HEADER_FMT = "[-A-Za-z0-9]+";

export function isHTTPHeaderName(value: string): string[] {
  if (/^[-A-Za-z0-9]+$/.test(value)) return [];
  return [
    regexError(
      "a valid HTTP header must consist of alphanumeric characters or '-'",
      HTTP_HEADER_FMT,
      "X-Header-Name",
    ),
  ];
}

function hasChDirPrefix(value: string): string[] {
  if (value === ".") return ["must not be '.'"];
  if (value === "..") return ["must not be '..'"];
  if (value.startsWith("..")) return ["must not start with '..'"];
  return [];
}

const ENV_VAR_FMT = "[-._a-zA-Z][-._a-zA-Z0-9]*";

export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(value)) {
    errs.push(
      regexError(
        "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
        ENV_VAR_FMT,
        "my.env-name",
        "MY_ENV.NAME",
        "MyEnvName1",
      ),
    );
  }
  errs.push(...hasChDirPrefix(value));
  return errs;
}

const CONFIG_MAP_KEY_FMT = "[-._a-zA-Z0-9]+";

export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!/^[-._a-zA-Z0-9]+$/.test(value)) {
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        CONFIG_MAP_KEY_FMT,
        "key.name",
        "KEY_NAME",
        "key-name",
      ),
    );
  }
  errs.push(...hasChDirPrefix(value));
  return errs;
}

/** Go's `net.ParseIP` is lenient about leading zeros in IPv4 octets (ParseIPSloppy). */
export function parseIPFamily(value: string): 4 | 6 | 0 {
  const family = isIP(value);
  if (family === 4 || family === 6) return family;
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(value);
  if (m?.slice(1).every((o) => Number(o) <= 255)) return 4;
  return 0;
}

export function isValidIP(field: string, value: string): FieldError[] {
  if (parseIPFamily(value) !== 0) return [];
  return [invalid(field, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")];
}

export function isValidIPv4Address(field: string, value: string): FieldError[] {
  return parseIPFamily(value) === 4 ? [] : [invalid(field, value, "must be a valid IPv4 address")];
}

export function isValidIPv6Address(field: string, value: string): FieldError[] {
  return parseIPFamily(value) === 6 ? [] : [invalid(field, value, "must be a valid IPv6 address")];
}

export function isValidCIDR(field: string, value: string): FieldError[] {
  const slash = value.indexOf("/");
  const ip = slash < 0 ? "" : value.slice(0, slash);
  const bits = slash < 0 ? "" : value.slice(slash + 1);
  const family = parseIPFamily(ip);
  const max = family === 4 ? 32 : 128;
  if (family !== 0 && /^\d{1,3}$/.test(bits) && Number(bits) <= max) return [];
  return [invalid(field, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")];
}

const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH_RE = new RegExp(`^${HTTP_PATH_FMT}$`);

export function isDomainPrefixedPath(field: string, value: string): FieldError[] {
  if (value.length === 0) return [required(field)];
  const slash = value.indexOf("/");
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? "" : value.slice(slash + 1);
  if (slash < 0 || host.length === 0 || rest.length === 0) {
    return [invalid(field, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  }
  const errs = isDNS1123Subdomain(host).map((m) => invalid(field, host, m));
  if (!HTTP_PATH_RE.test(rest)) errs.push(invalid(field, rest, regexError("Invalid path", HTTP_PATH_FMT)));
  return errs;
}

export function isFullyQualifiedDomainName(field: string, name: string): FieldError[] {
  if (name.length === 0) return [required(field)];
  const trimmed = name.endsWith(".") ? name.slice(0, -1) : name;
  const errs = isDNS1123Subdomain(trimmed);
  if (errs.length > 0) return [invalid(field, trimmed, errs.join(","))];
  const labels = trimmed.split(".");
  if (labels.length < 2)
    return [invalid(field, trimmed, "should be a domain with at least two segments separated by dots")];
  for (const label of labels) {
    const le = isDNS1123Label(label);
    if (le.length > 0) return [invalid(field, label, le.join(","))];
  }
  return [];
}

/** `api/validation/path.IsValidPathSegmentName`. */
export function isValidPathSegmentName(name: string): string[] {
  if (name === "." || name === "..") return [`may not be '${name}'`];
  return isValidPathSegmentPrefix(name);
}

export function isValidPathSegmentPrefix(name: string): string[] {
  const errs: string[] = [];
  for (const bad of ["/", "%"]) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

/**
 * The name rule of a kind. `subdomain`, `label` and `dns1035` are the DNS rules of
 * apimachinery's NameIs* functions; `path-segment` is the minimal rule every object name obeys
 * (RBAC objects, CertificateSigningRequests and core Events use only it).
 */
export type NameRule = "subdomain" | "label" | "dns1035" | "path-segment";

/** generateName prefixes may end in '-': apimachinery masks the trailing dash before checking. */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith("-") ? `${name.slice(0, -2)}a` : name;
}

export function checkName(rule: NameRule, name: string, prefix: boolean): string[] {
  switch (rule) {
    case "subdomain":
      return isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
    case "label":
      return isDNS1123Label(prefix ? maskTrailingDash(name) : name);
    case "dns1035":
      return isDNS1035Label(prefix ? maskTrailingDash(name) : name);
    case "path-segment":
      return prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name);
  }
}
