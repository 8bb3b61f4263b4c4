import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KUBECTL, kubectlAvailable } from "../machinery/strategic-merge-patch.kubectl.ts";
import { marshalGoJson } from "./go-json.ts";
import { jsonToYaml, YamlV2Error, yamlToJson } from "./yaml-v2.ts";
import { compareYamlKeys } from "./yaml-v2-emit.ts";
import { formatGoFloat, isBase60Float, isYamlTimestamp, resolveScalar, TAG } from "./yaml-v2-resolve.ts";

describe("resolveScalar (go-yaml v2 resolve)", () => {
  it.each([
    ["", TAG.null, null],
    ["~", TAG.null, null],
    ["Null", TAG.null, null],
    ["yes", TAG.bool, true],
    ["Y", TAG.bool, true],
    ["on", TAG.bool, true],
    ["Off", TAG.bool, false],
    ["n", TAG.bool, false],
    ["TRUE", TAG.bool, true],
    ["tRue", TAG.str, "tRue"],
    ["nan", TAG.str, "nan"],
    ["0x1F", TAG.int, 31n],
    ["0o17", TAG.int, 15n],
    ["017", TAG.int, 15n],
    ["0b101", TAG.int, 5n],
    ["-0b101", TAG.int, -5n],
    ["1_000", TAG.int, 1000n],
    ["+5", TAG.int, 5n],
    ["-0", TAG.int, 0n],
    ["9223372036854775807", TAG.int, 9223372036854775807n],
    ["18446744073709551615", TAG.int, 18446744073709551615n],
    ["18446744073709551616", TAG.float, 2 ** 64],
    ["08", TAG.float, 8],
    ["1.", TAG.float, 1],
    [".5", TAG.float, 0.5],
    ["-.5", TAG.float, -0.5],
    ["1e3", TAG.float, 1000],
    ["1_0.5", TAG.float, 10.5],
    ["1e400", TAG.str, "1e400"],
    ["0x", TAG.str, "0x"],
    ["1:20", TAG.str, "1:20"],
    ["2001-12-14", TAG.timestamp, "2001-12-14"],
    ["2001-12-14t21:59:43.10-05:00", TAG.timestamp, "2001-12-14t21:59:43.10-05:00"],
    ["2001-02-30", TAG.str, "2001-02-30"],
    ["<<", TAG.str, "<<"],
    ["127.0.0.1", TAG.str, "127.0.0.1"],
  ])("%j", (text, tag, value) => {
    expect(resolveScalar("", text)).toEqual({ tag, value });
  });

  it("honours explicit tags", () => {
    expect(resolveScalar(TAG.str, "5")).toEqual({ tag: TAG.str, value: "5" });
    expect(resolveScalar(TAG.float, "3")).toEqual({ tag: TAG.float, value: 3 });
    expect(resolveScalar("!custom", "x")).toEqual({ tag: "!custom", value: "x" });
    expect(() => resolveScalar(TAG.int, "abc")).toThrow("yaml: cannot decode !!str `abc` as a !!int");
  });

  it.each([
    ["2001-12-14", true],
    ["2001-1-2", true],
    ["2001-12-14T21:59:43Z", true],
    ["2001-12-14 21:59:43.10", true],
    ["2001-12-14 21:59:43.10 -5", false],
    ["2000-02-29", true],
    ["1900-02-29", false],
    ["2001-12-14T24:00:00Z", false],
    ["20011-12-14", false],
  ])("timestamp %j: %s", (text, want) => {
    expect(isYamlTimestamp(text)).toBe(want);
  });

  it.each([
    ["1:20", true],
    ["-190:20:30.15", true],
    ["1:60", false],
    ["a:1", false],
  ])("base 60 %j: %s", (text, want) => {
    expect(isBase60Float(text)).toBe(want);
  });
});

describe("formatGoFloat (strconv 'g', shortest)", () => {
  it.each([
    [1.5, 64, "1.5"],
    [100.5, 64, "100.5"],
    [1234567.5, 64, "1.2345675e+06"],
    [123456, 64, "123456"],
    [1e20, 64, "1e+20"],
    [0.0001, 64, "0.0001"],
    [0.00001, 64, "1e-05"],
    [1.2345678901234569e23, 64, "1.2345678901234569e+23"],
    [-0, 64, "-0"],
    [0.1, 32, "0.1"],
    [1000, 32, "1000"],
    [Number.POSITIVE_INFINITY, 64, "+Inf"],
  ] as const)("%d (%d bits) -> %s", (x, bits, want) => {
    expect(formatGoFloat(x, bits)).toBe(want);
  });
});

describe("compareYamlKeys (go-yaml v2 key order)", () => {
  it("sorts letters before other characters and numbers by value", () => {
    const keys = ["b", "a10", "a9", "A", "_x", "a09", "1", "10", "2", "é", "a"];
    expect([...keys].sort(compareYamlKeys)).toEqual([
      "_x",
      "1",
      "2",
      "10",
      "A",
      "a",
      "a9",
      "a09",
      "a10",
      "b",
      "é",
    ]);
  });
});

describe("yamlToJson (sigs.k8s.io/yaml YAMLToJSON)", () => {
  it.each([
    {
      name: "upstream's unit test input",
      yaml: "\nkey: \n  key1: value\n",
      json: '{"key":{"key1":"value"}}',
    },
    {
      name: "YAML 1.1 scalars",
      yaml: "b: yes\nc: off\nnil: ~\ni: 0x10\nf: 1.0\ns: '1'\nt: 2001-12-14\nq: \"a<b\"\n",
      json: '{"b":true,"c":false,"f":1,"i":16,"nil":null,"q":"a\\u003cb","s":"1","t":"2001-12-14"}',
    },
    {
      name: "non-string keys become strings",
      yaml: "1: a\n1.5: b\ntrue: c\non: d\n0x10: e\n1e3: f\n",
      json: '{"1":"a","1.5":"b","1000":"f","16":"e","true":"d"}',
    },
    {
      name: "anchors, aliases and merge keys",
      yaml: "base: &b {x: 1, v: 2}\nm:\n  <<: *b\n  v: 3\nm2:\n  z: 0\n  <<: [*b, {w: 9, x: 8}]\n",
      json: '{"base":{"v":2,"x":1},"m":{"v":3,"x":1},"m2":{"v":2,"w":9,"x":1,"z":0}}',
    },
    {
      name: "explicit tags",
      yaml: "a: !!str 5\nb: !!float 3\nc: !!binary aGVsbG8=\n",
      json: '{"a":"5","b":3,"c":"hello"}',
    },
    {
      name: "block scalars",
      yaml: "l: |\n  a\n   b\nf: >\n  x\n  y\n",
      json: '{"f":"x y\\n","l":"a\\n b\\n"}',
    },
    { name: "only the first document", yaml: "a: 1\n---\nb: 2\n", json: '{"a":1}' },
    { name: "an empty document is null", yaml: "# nothing\n", json: "null" },
    {
      name: "big integers stay exact",
      yaml: "big: 12345678901234567890\n",
      json: '{"big":12345678901234567890}',
    },
    {
      name: "keys y and n are booleans too",
      yaml: "y: 1\nn: 2\nname: 3\n",
      json: '{"false":2,"name":3,"true":1}',
    },
  ])("$name", ({ yaml, json }) => {
    expect(yamlToJson(yaml)).toBe(json);
  });

  it.each([
    { name: "control characters", yaml: "a: \u007f\n", error: "yaml: control characters are not allowed" },
    { name: "a null key", yaml: "~: a\n", error: "yaml: unsupported map key of type: <nil>" },
    {
      name: "a merge of a scalar",
      yaml: "a:\n  <<: 1\n",
      error: "yaml: map merge requires map or sequence of maps",
    },
    {
      name: "a tag that does not fit",
      yaml: "a: !!int x\n",
      error: "yaml: cannot decode !!str `x` as a !!int",
    },
    { name: "NaN has no JSON form", yaml: "a: .nan\n", error: "json: unsupported value: NaN" },
    { name: "bad syntax", yaml: "a: [1\n", error: "yaml: line" },
  ])("fails on $name", ({ yaml, error }) => {
    expect(() => yamlToJson(yaml)).toThrow(error);
  });

  it("reports go-yaml errors as YamlV2Error", () => {
    expect(() => yamlToJson("a: !!int x\n")).toThrow(YamlV2Error);
  });
});

// Every expected text below was produced by `kubectl ... -o yaml`, which writes through the
// same sigs.k8s.io/yaml JSONToYAML.
const emitted: Array<{ name: string; json: unknown; yaml: string }> = [
  {
    name: "sorted keys, unindented sequences under keys",
    json: { app: { database: { port: "3306", ip: "127.0.0.1" } }, list: [{ a: 1 }, [1, 2], "x"] },
    yaml: 'app:\n  database:\n    ip: 127.0.0.1\n    port: "3306"\nlist:\n- a: 1\n- - 1\n  - 2\n- x\n',
  },
  { name: "empty containers", json: { e: {}, el: [] }, yaml: "e: {}\nel: []\n" },
  {
    name: "numbers",
    json: { a: 1234567.5, b: 0.00001, c: 0.0001, d: 1e20, f: -0, j: 1.0, big: 1e21 },
    yaml: "a: 1.2345675e+06\nb: 1e-05\nbig: 1e+21\nc: 0.0001\nd: 1e+20\nf: 0\nj: 1\n",
  },
  {
    name: "strings that read as other types are double-quoted",
    json: { n: "3306", y: "yes", t: "2001-12-14", b60: "1:20", tilde: "~", hex: "0x1F", u: "1_000", e: "" },
    yaml: 'b60: "1:20"\ne: ""\nhex: "0x1F"\n"n": "3306"\nt: "2001-12-14"\ntilde: "~"\nu: "1_000"\n"y": "yes"\n',
  },
  {
    name: "strings plain YAML cannot carry are single-quoted",
    json: { s1: "  lead", s2: "trail ", s3: "a: b", s4: "- x", s5: "#c", s6: "a #c", s17: "'q", s7: "it's" },
    yaml: "s1: '  lead'\ns2: 'trail '\ns3: 'a: b'\ns4: '- x'\ns5: '#c'\ns6: 'a #c'\ns7: it's\ns17: '''q'\n",
  },
  {
    name: "strings with special characters are double-quoted with escapes",
    json: { t: "a\tb", emoji: "😀", sb: "x \ny" },
    yaml: 'emoji: "\\U0001F600"\nsb: "x \\ny"\nt: "a\\tb"\n',
  },
  {
    name: "multi-line strings are literal blocks with chomping indicators",
    json: { multi: "a\nb\n", s8: "x\n y", s9: "\n\nx", s10: "x\n\n" },
    yaml: "multi: |\n  a\n  b\ns8: |-\n  x\n   y\ns9: |2-\n\n\n  x\ns10: |+\n  x\n\n",
  },
  { name: "a multi-line key", json: { "k\nk": 1 }, yaml: "? |-\n  k\n  k\n: 1\n" },
  {
    name: "long strings are folded after column 80",
    json: { k: Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ") },
    yaml:
      "k: word0 word1 word2 word3 word4 word5 word6 word7 word8 word9 word10 word11 word12\n" +
      "  word13 word14 word15 word16 word17 word18 word19 word20 word21 word22 word23 word24\n" +
      "  word25 word26 word27 word28 word29\n",
  },
  {
    name: "other scalars",
    json: { b: true, n: null, u: "été", s14: "<<", s16: "?x" },
    yaml: 'b: true\n"n": null\ns14: <<\ns16: ?x\nu: été\n',
  },
];

describe("jsonToYaml (sigs.k8s.io/yaml JSONToYAML)", () => {
  it.each(emitted)("$name", ({ json, yaml }) => {
    expect(jsonToYaml(marshalGoJson(json))).toBe(yaml);
  });

  it("keeps integers beyond float precision exact", () => {
    expect(jsonToYaml('{"a":18446744073709551615,"b":-9223372036854775808}')).toBe(
      "a: 18446744073709551615\nb: -9223372036854775808\n",
    );
  });

  it("folds raw NEL characters the way a YAML double-quoted scalar does", () => {
    expect(jsonToYaml('{"a":"x\u0085y","b":"x \u0085\u0085 y"}')).toBe("a: x y\nb: |-\n  x\n  y\n");
  });

  it.each([
    { name: "raw DEL", json: '{"a":"\u007f"}', error: "yaml: control characters are not allowed" },
    {
      name: "a key spanning lines",
      json: '{"a\u0085b":1}',
      error: "yaml: line 1: did not find expected ',' or '}'",
    },
    {
      name: "a key over 1024 characters",
      json: `{"${"k".repeat(1023)}":1}`,
      error: "yaml: did not find expected",
    },
  ])("fails on $name", ({ json, error }) => {
    expect(() => jsonToYaml(json)).toThrow(error);
  });

  it("round-trips through yamlToJson", () => {
    const yaml = "server:\n  listen: 80\n  error_page:\n    - code: 500\n  location /:\n    root: /srv\n";
    expect(jsonToYaml(yamlToJson(yaml))).toBe(
      "server:\n  error_page:\n  - code: 500\n  listen: 80\n  location /:\n    root: /srv\n",
    );
  });
});

const run = promisify(execFile);

describe.skipIf(!kubectlAvailable)("against kubectl's sigs.k8s.io/yaml", () => {
  let dir = "";
  const env = () => ({ HOME: dir, KUBECONFIG: join(dir, "kubeconfig") });
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "karmada-ts-yaml-"));
    await writeFile(
      join(dir, "kubeconfig"),
      "apiVersion: v1\nkind: Config\nclusters: [{name: none, cluster: {server: 'https://127.0.0.1:1'}}]\n" +
        "contexts: [{name: none, context: {cluster: none, user: none}}]\nusers: [{name: none, user: {}}]\n" +
        "current-context: none\n",
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const head = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } };

  it("emits every fixture as kubectl -o yaml does", async () => {
    const object: Record<string, unknown> = { ...head };
    emitted.forEach((c, i) => {
      object[`case${i}`] = c.json;
    });
    await writeFile(join(dir, "o.json"), JSON.stringify(object));
    const args = ["patch", "--local", "-f", join(dir, "o.json"), "--type", "json", "-p", "[]", "-o", "yaml"];
    const { stdout } = await run(KUBECTL, args, { env: env() });
    expect(jsonToYaml(marshalGoJson(object))).toBe(stdout);
  });

  it("reads YAML as kubectl reads a manifest", async () => {
    const yaml =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n" +
      "s: {a: yes, b: 0o17, c: 08, d: 1_000, e: .5, f: 2001-12-14, g: 1:20, h: !!str 5, i: 017, j: Off}\n" +
      "k: {1: a, 1.5: b, true: c, 0x10: d, y: e}\nbase: &b {x: 1}\nm: {<<: *b, v: 2}\n";
    await writeFile(join(dir, "in.yaml"), yaml);
    const args = ["patch", "--local", "-f", join(dir, "in.yaml"), "--type", "json", "-p", "[]", "-o", "json"];
    const { stdout } = await run(KUBECTL, args, { env: env() });
    expect(JSON.parse(yamlToJson(yaml))).toEqual(JSON.parse(stdout));
  });
});
