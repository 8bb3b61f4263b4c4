/**
 * The parts of Go's `net/url.Parse` that Karmada's URL checks depend on: which inputs it
 * rejects (with its error text), and the scheme, host, user info, query and fragment it
 * finds. WHATWG `URL` accepts and rejects different inputs, so it would not do here.
 */

export interface GoUrl {
  scheme: string;
  /** Set for `scheme:opaque` forms such as `example.com:6443`, which have no host. */
  opaque: string;
  host: string;
  /** The user info before `@`, when present. */
  user?: string;
  rawQuery: string;
  fragment: string;
}

export type GoUrlResult = { url: GoUrl } | { error: string };

function parseError(input: string, why: string): { error: string } {
  return { error: `parse ${JSON.stringify(input)}: ${why}` };
}

function isAlpha(c: string): boolean {
  return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z");
}

function isDigit(c: string): boolean {
  return c >= "0" && c <= "9";
}

function isHex(c: string | undefined): boolean {
  return c !== undefined && /^[0-9a-fA-F]$/.test(c);
}

/** `scheme:rest`, or no scheme when the text cannot start one; an empty scheme is an error. */
function splitScheme(raw: string): { scheme: string; rest: string } | { error: string } {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (isAlpha(c)) continue;
    if (isDigit(c) || c === "+" || c === "-" || c === ".") {
      if (i === 0) return { scheme: "", rest: raw };
      continue;
    }
    if (c === ":") {
      if (i === 0) return { error: "missing protocol scheme" };
      return { scheme: raw.slice(0, i), rest: raw.slice(i + 1) };
    }
    return { scheme: "", rest: raw };
  }
  return { scheme: "", rest: raw };
}

type EscapeMode = "host" | "path" | "fragment" | "user";

// Characters a host may carry unescaped, besides letters and digits (Go's shouldEscape for hosts).
const HOST_SAFE = new Set([..."!$&'()*+,;=:[]<>\"-_.~"]);

/** Checks `%XX` escapes (and, in hosts, the characters allowed); returns Go's error text. */
function checkEscapes(s: string, mode: EscapeMode): string | undefined {
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    if (c === "%") {
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) {
        return `invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`;
      }
      // Hosts may only escape bytes of 0x80 and above, plus %25 (a literal % in IPv6 zones).
      if (mode === "host" && Number.parseInt(s[i + 1]!, 16) < 8 && s.slice(i, i + 3) !== "%25") {
        return `invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`;
      }
      i += 3;
      continue;
    }
    if (mode === "host" && c.charCodeAt(0) < 0x80 && !isAlpha(c) && !isDigit(c) && !HOST_SAFE.has(c)) {
      return `invalid character ${JSON.stringify(c)} in host name`;
    }
    i++;
  }
  return undefined;
}

function validOptionalPort(port: string): boolean {
  if (port === "") return true;
  return port.startsWith(":") && /^[0-9]*$/.test(port.slice(1));
}

function checkHost(host: string): string | undefined {
  if (host.startsWith("[")) {
    const close = host.lastIndexOf("]");
    if (close < 0) return "missing ']' in host";
    const port = host.slice(close + 1);
    if (!validOptionalPort(port)) return `invalid port ${JSON.stringify(port)} after host`;
  } else {
    const colon = host.lastIndexOf(":");
    if (colon >= 0) {
      const port = host.slice(colon);
      if (!validOptionalPort(port)) return `invalid port ${JSON.stringify(port)} after host`;
    }
  }
  return checkEscapes(host, "host");
}

const USERINFO_RE = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;

/** Takes the query off `rest` into `url.rawQuery`; a lone trailing `?` is just dropped. */
function splitQuery(rest: string, url: GoUrl): string {
  if (rest.endsWith("?") && rest.split("?").length === 2) return rest.slice(0, -1);
  const q = rest.indexOf("?");
  if (q < 0) return rest;
  url.rawQuery = rest.slice(q + 1);
  return rest.slice(0, q);
}

/** `[userinfo@]host[:port]` into `url`; returns Go's error text. */
function parseAuthority(authority: string, url: GoUrl): string | undefined {
  const at = authority.lastIndexOf("@");
  const host = at < 0 ? authority : authority.slice(at + 1);
  const hostError = checkHost(host);
  if (hostError) return hostError;
  url.host = host;
  if (at < 0) return undefined;
  const user = authority.slice(0, at);
  if (!USERINFO_RE.test(user)) return "net/url: invalid userinfo";
  const userError = checkEscapes(user, "user");
  if (userError) return userError;
  url.user = user;
  return undefined;
}

export function parseGoUrl(input: string): GoUrlResult {
  const hash = input.indexOf("#");
  const raw = hash < 0 ? input : input.slice(0, hash);
  const fragment = hash < 0 ? "" : input.slice(hash + 1);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Go rejects ASCII control bytes.
  if (/[\u0000-\u001f\u007f]/.test(raw)) return parseError(raw, "net/url: invalid control character in URL");
  const url: GoUrl = { scheme: "", opaque: "", host: "", rawQuery: "", fragment: "" };
  if (raw === "*") return { url };
  const split = splitScheme(raw);
  if ("error" in split) return parseError(raw, split.error);
  url.scheme = split.scheme.toLowerCase();
  let rest = splitQuery(split.rest, url);
  if (!rest.startsWith("/")) {
    if (url.scheme !== "") {
      url.opaque = rest;
      return withFragment(url, fragment, input);
    }
    const firstSegment = rest.split("/")[0] ?? "";
    if (firstSegment.includes(":")) return parseError(raw, "first path segment in URL cannot contain colon");
  }
  if ((url.scheme !== "" || !rest.startsWith("///")) && rest.startsWith("//")) {
    let authority = rest.slice(2);
    const slash = authority.indexOf("/");
    rest = slash < 0 ? "" : authority.slice(slash);
    if (slash >= 0) authority = authority.slice(0, slash);
    const authorityError = parseAuthority(authority, url);
    if (authorityError) return parseError(raw, authorityError);
  }
  const pathError = checkEscapes(rest, "path");
  if (pathError) return parseError(raw, pathError);
  return withFragment(url, fragment, input);
}

function withFragment(url: GoUrl, fragment: string, input: string): GoUrlResult {
  const why = checkEscapes(fragment, "fragment");
  if (why) return parseError(input, why);
  url.fragment = fragment;
  return { url };
}
