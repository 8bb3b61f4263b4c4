import { describe, expect, it } from "vitest";
import { parseGoUrl } from "./go-url.ts";

describe("parseGoUrl", () => {
  const parsed: Array<[string, Record<string, unknown>]> = [
    ["https://172.18.0.3:6443", { scheme: "https", host: "172.18.0.3:6443" }],
    ["HTTPS://Host/path?q=1#frag", { scheme: "https", host: "Host", rawQuery: "q=1", fragment: "frag" }],
    ["https://[::1]:6443", { host: "[::1]:6443" }],
    ["https://user:pw@host", { host: "host", user: "user:pw" }],
    ["example.com:6443", { scheme: "example.com", opaque: "6443", host: "" }],
    ["/just/a/path", { scheme: "", host: "" }],
    ["//host:80/x", { scheme: "", host: "host:80" }],
    ["https://host?", { host: "host", rawQuery: "" }],
  ];
  it.each(parsed)("%s", (input, expected) => {
    const result = parseGoUrl(input);
    expect("url" in result && result.url).toMatchObject(expected);
  });

  const failures: Array<[string, string]> = [
    ["://x", 'parse "://x": missing protocol scheme'],
    ["10.0.0.1:6443", 'parse "10.0.0.1:6443": first path segment in URL cannot contain colon'],
    ["https://host:abc", 'parse "https://host:abc": invalid port ":abc" after host'],
    ["https://[::1", "parse \"https://[::1\": missing ']' in host"],
    ["https://ho st", 'parse "https://ho st": invalid character " " in host name'],
    ["https://host/%zz", 'parse "https://host/%zz": invalid URL escape "%zz"'],
    ["https://a b@host", 'parse "https://a b@host": net/url: invalid userinfo'],
    ["https://host\n", 'parse "https://host\\n": net/url: invalid control character in URL'],
    ["https://host#%x", 'parse "https://host#%x": invalid URL escape "%x"'],
  ];
  it.each(failures)("refuses %j", (input, error) => {
    expect(parseGoUrl(input)).toEqual({ error });
  });
});
