import { describe, expect, it } from "vitest";
import { fromLabelSelector, matches, parseSelector, SelectorParseError, selectorToString } from "./labels.ts";

interface Case {
  selector: string;
  labels: Record<string, string> | undefined;
  want: boolean;
}

const cases: Case[] = [
  { selector: "", labels: undefined, want: true },
  { selector: "a=b", labels: { a: "b" }, want: true },
  { selector: "a==b", labels: { a: "b" }, want: true },
  { selector: "a=b", labels: { a: "c" }, want: false },
  { selector: "a!=b", labels: {}, want: true },
  { selector: "a!=b", labels: { a: "b" }, want: false },
  { selector: "a in (b, c)", labels: { a: "c" }, want: true },
  { selector: "a in (b,c)", labels: { a: "d" }, want: false },
  { selector: "a notin (b,c)", labels: {}, want: true },
  { selector: "a notin (b,c)", labels: { a: "b" }, want: false },
  { selector: "a", labels: { a: "" }, want: true },
  { selector: "!a", labels: { a: "" }, want: false },
  { selector: "!a", labels: { b: "x" }, want: true },
  { selector: "a=b,c", labels: { a: "b" }, want: false },
  { selector: "a=b, c", labels: { a: "b", c: "1" }, want: true },
  { selector: "n>5", labels: { n: "6" }, want: true },
  { selector: "n<5", labels: { n: "6" }, want: false },
  { selector: "app.kubernetes.io/name=web", labels: { "app.kubernetes.io/name": "web" }, want: true },
  { selector: "a=", labels: { a: "" }, want: true },
];

describe("label selectors", () => {
  for (const c of cases) {
    it(`${JSON.stringify(c.selector)} on ${JSON.stringify(c.labels)} is ${c.want}`, () => {
      expect(matches(parseSelector(c.selector), c.labels)).toBe(c.want);
    });
  }

  for (const bad of ["a in b", "=b", "a=(b", "a in (b", "a,", "-a=b", "a=b c", "a/b/c=d", "n>x"]) {
    it(`rejects ${JSON.stringify(bad)}`, () => {
      expect(() => parseSelector(bad)).toThrow(SelectorParseError);
    });
  }

  it("converts structured selectors and prints them back", () => {
    const sel = fromLabelSelector({
      matchLabels: { b: "2", a: "1" },
      matchExpressions: [
        { key: "c", operator: "In", values: ["y", "x"] },
        { key: "d", operator: "DoesNotExist" },
      ],
    });
    expect(selectorToString(sel)).toBe("a=1,b=2,c in (x,y),!d");
    expect(matches(sel, { a: "1", b: "2", c: "x" })).toBe(true);
    expect(matches(sel, { a: "1", b: "2", c: "x", d: "" })).toBe(false);
    expect(() => fromLabelSelector({ matchExpressions: [{ key: "a", operator: "Bogus" }] })).toThrow();
  });
});
