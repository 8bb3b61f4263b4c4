/**
 * The edges the fuzzers aim at, pinned down as plain examples over real HTTPS, each with the
 * answer kube-apiserver gives (or ours where we differ on purpose, said so): bodies past
 * 3 MiB, nesting past the limit, duplicate keys under each fieldValidation, numbers past
 * 2^53 and fractions where integers belong, invalid UTF-8, media types; and the failing
 * inputs the fuzzers found, kept as regressions. Then a short SQLite run of the body and
 * patch properties.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify as toYaml } from "yaml";
import { MAX_JSON_DEPTH } from "../../src/machinery/json-scan.ts";
import { SqliteStore } from "../../src/storage/sqlite/store.ts";
import { byteDamage, damage, encodeBody, fuzzBudget, mutate, mutationOf } from "./arbitraries.ts";
import {
  expectReady,
  expectUnchangedUnlessWritten,
  expectWellFormed,
  type FuzzServer,
  type RawResponse,
  seedTargets,
  startFuzzServer,
  withSeededFuzzServer,
} from "./harness.ts";
import { TARGETS } from "./targets.ts";

const J = { "Content-Type": "application/json" };
const CM = "/api/v1/namespaces/fuzz/configmaps";
const DEPLOY = "/apis/apps/v1/namespaces/fuzz/deployments";
const WIDGETS = "/apis/fuzz.example.com/v1/namespaces/fuzz/widgets";

const statusOf = (r: RawResponse) => JSON.parse(r.text) as { message: string; reason: string; code: number };
const warnings = (r: RawResponse) => Buffer.from(String(r.headers.warning ?? ""), "latin1").toString("utf8");

const deployment = (name: string, replicas: string) =>
  `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${name}"},"spec":{"replicas":${replicas},"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`;

describe("the edges, on a memory store", () => {
  let f: FuzzServer;
  withSeededFuzzServer((server) => {
    f = server;
  });

  /** Sends, checks the answer is well formed, the seed untouched if refused, and the server ready. */
  async function attempt(
    method: string,
    path: string,
    body: string | Buffer | undefined,
    headers: Record<string, string>,
    watched = `${CM}/seed`,
  ): Promise<RawResponse> {
    const before = await f.snapshot(watched);
    const res = await f.send(method, path, body, headers);
    expectWellFormed(res, `${method} ${path}`);
    if (res.status >= 400) await expectUnchangedUnlessWritten(f, watched, before, res, `${method} ${path}`);
    await expectReady(f);
    return res;
  }

  describe("size", () => {
    const big = (n: number) => JSON.stringify({ metadata: { name: "seed" }, data: { a: "x".repeat(n) } });
    it("a body past 3 MiB is a 413 for create, update and patch, and changes nothing", async () => {
      for (const [method, path, type] of [
        ["POST", CM, "application/json"],
        ["PUT", `${CM}/seed`, "application/json"],
        ["PATCH", `${CM}/seed`, "application/merge-patch+json"],
        ["PATCH", `${CM}/seed?fieldManager=x`, "application/apply-patch+yaml"],
      ] as const) {
        const res = await attempt(method, path, big(3 * 1024 * 1024 + 1), { "Content-Type": type });
        expect(res.status).toBe(413);
        expect(statusOf(res).reason).toBe("RequestEntityTooLarge");
      }
    });

    it("a body just under the limit is read and judged on its content", async () => {
      const res = await attempt("PUT", `${CM}/seed`, big(3 * 1024 * 1024 - 200), J);
      // A ConfigMap holds at most 1 MiB of data (kube-apiserver: the same 422).
      expect(res.status).toBe(422);
      expect(statusOf(res).message).toMatch(/Too long: may not be more than 1048576 bytes/);
    });

    it("a wide document (30k keys, 10k-item lists) is served, not a crash", async () => {
      const wide = Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`k${i}`, i]));
      const res = await attempt(
        "POST",
        WIDGETS,
        JSON.stringify({
          apiVersion: "fuzz.example.com/v1",
          kind: "Widget",
          metadata: { name: "wide" },
          spec: { size: "S", free: wide, tags: Array.from({ length: 10_000 }, (_, i) => `t${i}`) },
        }),
        J,
      );
      // maxItems: 20 on tags.
      expect(res.status).toBe(422);
      const ok = await attempt(
        "POST",
        WIDGETS,
        JSON.stringify({
          apiVersion: "fuzz.example.com/v1",
          kind: "Widget",
          metadata: { name: "wide" },
          spec: { size: "S", free: wide },
        }),
        J,
      );
      expect(ok.status).toBe(201);
    });
  });

  describe("nesting", () => {
    const deep = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;
    // The object's own levels (the document, spec, free) count too.
    const widget = (name: string, freeDepth: number) =>
      `{"apiVersion":"fuzz.example.com/v1","kind":"Widget","metadata":{"name":"${name}"},"spec":{"size":"M","free":${deep(freeDepth)}}}`;

    it("10000 levels are refused with 400 'exceeded max depth' on every route (kube-apiserver: the same)", async () => {
      const d = deep(10_001);
      for (const [method, path, body, type] of [
        ["POST", CM, `{"metadata":{"name":"deep"},"x":${d}}`, "application/json"],
        ["PUT", `${CM}/seed`, `{"metadata":{"name":"seed"},"x":${d}}`, "application/json"],
        ["PATCH", `${CM}/seed`, `{"x":${d}}`, "application/merge-patch+json"],
        [
          "PATCH",
          `${CM}/seed`,
          `{"metadata":{"annotations":${d}}}`,
          "application/strategic-merge-patch+json",
        ],
        ["PATCH", `${CM}/seed`, `[{"op":"add","path":"/x","value":${d}}]`, "application/json-patch+json"],
        [
          "PATCH",
          `${CM}/seed?fieldManager=x`,
          `{"metadata":{"name":"seed"},"x":${d}}`,
          "application/apply-patch+yaml",
        ],
        [
          "POST",
          CM,
          `metadata:\n  name: deep\nx: ${"[".repeat(10_001)}${"]".repeat(10_001)}\n`,
          "application/yaml",
        ],
      ] as const) {
        const res = await attempt(method, path, body, { "Content-Type": type });
        expect(res.status, `${method} ${type}: ${res.text.slice(0, 200)}`).toBe(400);
        expect(statusOf(res).message).toMatch(/nested too deeply/);
      }
    });

    it(`our limit is ${MAX_JSON_DEPTH} levels (lower than kube-apiserver's 10000, see json-scan.ts)`, async () => {
      const under = await attempt("POST", WIDGETS, widget("deep-ok", MAX_JSON_DEPTH - 4), J);
      expect(under.status, under.text.slice(0, 300)).toBe(201);
      const over = await attempt("POST", WIDGETS, widget("deep-no", MAX_JSON_DEPTH), J);
      expect(over.status).toBe(400);
    });

    it("JSON patches cannot grow an object past the limit a step at a time (found: 500s, then an out-of-memory crash)", async () => {
      const path = `${WIDGETS}/seed`;
      const start = await f.send("PATCH", path, '{"spec":{"free":{}}}', {
        "Content-Type": "application/merge-patch+json",
      });
      expect(start.status, start.text).toBe(200);
      let pointer = "/spec/free";
      for (let step = 0; step < 3; step++) {
        const res = await attempt(
          "PATCH",
          path,
          `[{"op":"add","path":"${pointer}/g","value":${deep(400)}}]`,
          { "Content-Type": "application/json-patch+json" },
          path,
        );
        if (step < 2) expect(res.status, res.text.slice(0, 300)).toBe(200);
        else expect(res.status, res.text.slice(0, 300)).toBe(400);
        pointer += `/g${"/a".repeat(400 - 1)}`;
      }
      const reset = await f.send("PATCH", path, '{"spec":{"free":null}}', {
        "Content-Type": "application/merge-patch+json",
      });
      expect(reset.status).toBe(200);
    });
  });

  describe("work a small request can ask for", () => {
    it("JSON patch copies are limited in all, as kube-apiserver's JSONPatchMaxCopyBytes (found: 10000 copies of a 500 KB map, from a 600 KB patch, held the server for minutes)", async () => {
      const path = `${CM}/copies`;
      const data = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, "v".repeat(100)]));
      expect(
        (await attempt("POST", CM, JSON.stringify({ metadata: { name: "copies" }, data }), J)).status,
      ).toBe(201);
      const ops = Array.from({ length: 10_000 }, () => ({
        op: "copy",
        from: "/data",
        path: "/metadata/annotations",
      }));
      const res = await attempt(
        "PATCH",
        path,
        JSON.stringify(ops),
        { "Content-Type": "application/json-patch+json" },
        path,
      );
      expect(res.status).toBe(422);
      expect(statusOf(res).message).toMatch(
        /accumulated size increase of copy is \d+, exceeding the limit 3145728/,
      );
    });

    it("a strategic merge patch with a 20000-element $setElementOrder is served (found: quadratic ordering held the server for minutes)", async () => {
      const path = `${DEPLOY}/seed`;
      const env = Array.from({ length: 20_000 }, (_, i) => ({ name: `E${i}`, value: "v" }));
      const patch = {
        spec: {
          template: {
            spec: {
              "$setElementOrder/containers": [{ name: "app" }],
              containers: [{ name: "app", "$setElementOrder/env": env.map((e) => ({ name: e.name })), env }],
            },
          },
        },
      };
      const res = await attempt(
        "PATCH",
        path,
        JSON.stringify(patch),
        { "Content-Type": "application/strategic-merge-patch+json" },
        path,
      );
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      const containers = JSON.parse(res.text).spec.template.spec.containers as { env: { name: string }[] }[];
      expect(containers[0]!.env.map((e) => e.name)).toEqual(env.map((e) => e.name));
      const back = await attempt(
        "PATCH",
        path,
        '{"spec":{"template":{"spec":{"containers":[{"name":"app","env":null}]}}}}',
        {
          "Content-Type": "application/strategic-merge-patch+json",
        },
        path,
      );
      expect(back.status).toBe(200);
    });
  });

  describe("duplicate keys (kube-apiserver: a warning by default, 400 under Strict, silence under Ignore)", () => {
    const body = (name: string) =>
      `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"a":"1","a":"2"},"bogus":1,"bogus":2}`;

    it("Warn (the default): created, the last value kept, each duplicate and unknown field warned of", async () => {
      const res = await attempt("POST", CM, body("dup-warn"), J);
      expect(res.status).toBe(201);
      expect(JSON.parse(res.text).data).toEqual({ a: "2" });
      expect(warnings(res)).toBe(
        '299 - "duplicate field \\"a\\"", 299 - "duplicate field \\"bogus\\"", 299 - "unknown field \\"bogus\\""',
      );
    });

    it("Strict: 400 naming the duplicates and the unknown fields, nothing written", async () => {
      const res = await attempt(
        "POST",
        `${CM}?fieldValidation=Strict`,
        body("dup-strict"),
        J,
        `${CM}/dup-strict`,
      );
      expect(res.status).toBe(400);
      expect(statusOf(res).message).toBe(
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "a", duplicate field "bogus", unknown field "bogus"',
      );
    });

    it("Ignore: created without a word", async () => {
      const res = await attempt("POST", `${CM}?fieldValidation=Ignore`, body("dup-ignore"), J);
      expect(res.status).toBe(201);
      expect(res.headers.warning).toBeUndefined();
    });

    it("YAML bodies say where, as Go's YAML parser does", async () => {
      const yaml =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup-yaml\ndata:\n  a: '1'\n  a: '2'\n";
      const res = await attempt("POST", CM, yaml, { "Content-Type": "application/yaml" });
      expect(res.status).toBe(201);
      expect(warnings(res)).toBe('299 - "line 7: key \\"a\\" already set in map"');
      const strict = await attempt(
        "POST",
        `${CM}?fieldValidation=Strict`,
        yaml.replace("dup-yaml", "dup-yaml2"),
        {
          "Content-Type": "application/yaml",
        },
      );
      expect(strict.status).toBe(400);
      expect(statusOf(strict).message).toMatch(/line 7: key "a" already set in map/);
    });

    it("patches: merge and strategic warn or refuse; JSON patch operations say 'json patch'", async () => {
      const merge = await attempt(
        "PATCH",
        `${CM}/seed?fieldValidation=Strict`,
        '{"data":{"k":"1","k":"2"}}',
        {
          "Content-Type": "application/merge-patch+json",
        },
      );
      expect(merge.status).toBe(400);
      expect(statusOf(merge).message).toMatch(/duplicate field "k"/);
      const smp = await attempt("PATCH", `${CM}/seed`, '{"data":{"k":"1","k":"2"}}', {
        "Content-Type": "application/strategic-merge-patch+json",
      });
      expect(smp.status).toBe(200);
      expect(warnings(smp)).toBe('299 - "duplicate field \\"k\\""');
      const jp = await attempt(
        "PATCH",
        `${CM}/seed`,
        '[{"op":"add","path":"/data/j","path":"/data/k","value":"v"}]',
        {
          "Content-Type": "application/json-patch+json",
        },
      );
      expect(jp.status).toBe(200);
      expect(warnings(jp)).toBe('299 - "json patch duplicate field \\"path\\""');
      expect(JSON.parse(jp.text).data.k).toBe("v");
    });
  });

  describe("subresources and delete options", () => {
    it("a status update warns of duplicate keys too", async () => {
      const path = "/api/v1/namespaces/fuzz/services/seed";
      const current = JSON.parse((await f.snapshot(path)).text) as { metadata: { resourceVersion: string } };
      const body = `{"apiVersion":"v1","kind":"Service","metadata":{"name":"seed","resourceVersion":"${current.metadata.resourceVersion}"},"status":{"loadBalancer":{}},"status":{"loadBalancer":{}}}`;
      const res = await attempt("PUT", `${path}/status`, body, J, path);
      expect(res.status, res.text).toBe(200);
      expect(warnings(res)).toBe('299 - "duplicate field \\"status\\""');
    });

    it("a negative grace period is taken as 1 second, a fractional one refused (kube-apiserver: the same)", async () => {
      await attempt("POST", CM, '{"metadata":{"name":"grace"}}', J);
      const frac = await attempt("DELETE", `${CM}/grace`, '{"gracePeriodSeconds":1.5}', J, `${CM}/grace`);
      expect(frac.status).toBe(400);
      const neg = await attempt("DELETE", `${CM}/grace?gracePeriodSeconds=-5`, undefined, {}, `${CM}/grace`);
      expect(neg.status).toBe(200);
      expect((await f.snapshot(`${CM}/grace`)).status).toBe(404);
    });
  });

  describe("metadata types", () => {
    it("labels, annotations and finalizers of the wrong type are a 400 on every kind (found: stored as sent)", async () => {
      for (const [path, meta] of [
        [CM, '{"name":"m1","labels":{"a":1}}'],
        [CM, '{"name":"m2","annotations":{"a":true}}'],
        [CM, '{"name":"m3","finalizers":"example.com/f"}'],
        [WIDGETS, '{"name":"m4","labels":{"a":{"b":"c"}}}'],
        [
          "/apis/policy.karmada.io/v1alpha1/namespaces/fuzz/propagationpolicies",
          '{"name":"m5","ownerReferences":[{"uid":5}]}',
        ],
        [CM, '{"name":"m6","deletionGracePeriodSeconds":"soon"}'],
        // Found (seed 6): a generateName that is not a string was a 500 on Karmada kinds and CRDs.
        [
          "/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member1/works",
          '{"name":null,"generateName":{}}',
        ],
        [WIDGETS, '{"name":null,"generateName":{}}'],
        [CM, '{"generateName":["a"]}'],
      ] as const) {
        const name = (JSON.parse(meta) as { name?: string | null }).name ?? "none";
        const res = await attempt(
          "POST",
          path,
          `{"metadata":${meta},"spec":{"size":"M"}}`,
          J,
          `${path}/${name}`,
        );
        expect(res.status, `${path} ${meta}: ${res.text.slice(0, 200)}`).toBe(400);
        expect(statusOf(res).message).toMatch(
          /cannot unmarshal .* into Go struct field ObjectMeta\.metadata\./,
        );
      }
      const patched = await attempt("PATCH", `${CM}/seed`, '{"metadata":{"labels":{"n":7}}}', {
        "Content-Type": "application/merge-patch+json",
      });
      expect(patched.status).toBe(400);
    });

    it("a null metadata field is Go's zero value", async () => {
      const res = await attempt("POST", CM, '{"metadata":{"name":"m7","labels":null,"finalizers":null}}', J);
      expect(res.status, res.text).toBe(201);
      expect(JSON.parse(res.text).metadata.labels).toBeUndefined();
    });
  });

  describe("numbers", () => {
    it("a fraction where a built-in kind wants an integer is 400, as Go's decoder refuses it", async () => {
      const res = await attempt("POST", DEPLOY, deployment("frac", "1.5"), J, `${DEPLOY}/frac`);
      expect(res.status).toBe(400);
      expect(statusOf(res).message).toBe(
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1.5 into Go struct field spec.replicas of type int32',
      );
      const str = await attempt("POST", DEPLOY, deployment("str", '"2"'), J, `${DEPLOY}/str`);
      expect(statusOf(str).message).toMatch(
        /cannot unmarshal string into Go struct field spec.replicas of type int32/,
      );
      const big = await attempt("POST", DEPLOY, deployment("i32", "2147483648"), J, `${DEPLOY}/i32`);
      expect(statusOf(big).message).toMatch(
        /cannot unmarshal number 2147483648 into Go struct field spec.replicas/,
      );
    });

    it("a fraction where a CRD's schema wants an integer is 422 with the field (kube-apiserver: the same)", async () => {
      const res = await attempt(
        "POST",
        WIDGETS,
        '{"apiVersion":"fuzz.example.com/v1","kind":"Widget","metadata":{"name":"frac"},"spec":{"size":"M","replicas":1.5}}',
        J,
        `${WIDGETS}/frac`,
      );
      expect(res.status).toBe(422);
      expect(JSON.parse(res.text).details.causes).toEqual([
        expect.objectContaining({ field: "spec.replicas", reason: "FieldValueTypeInvalid" }),
      ]);
    });

    it("integers up to 2^53 are stored exactly; beyond, a 400 rather than a silently rounded value", async () => {
      const exact = await attempt(
        "POST",
        WIDGETS,
        '{"apiVersion":"fuzz.example.com/v1","kind":"Widget","metadata":{"name":"big"},"spec":{"size":"M","big":9007199254740991}}',
        J,
      );
      expect(exact.status).toBe(201);
      expect((await f.snapshot(`${WIDGETS}/big`)).text).toContain('"big":9007199254740991');
      for (const literal of ["9007199254740993", "9223372036854775807", "-9223372036854775808", "1e400"]) {
        const res = await attempt(
          "PATCH",
          `${WIDGETS}/big`,
          `{"spec":{"big":${literal}}}`,
          { "Content-Type": "application/merge-patch+json" },
          `${WIDGETS}/big`,
        );
        expect(res.status, literal).toBe(400);
        expect(statusOf(res).message).toMatch(/spec\.big/);
      }
      const yaml = await attempt(
        "PATCH",
        `${WIDGETS}/big?fieldManager=y`,
        "apiVersion: fuzz.example.com/v1\nkind: Widget\nmetadata:\n  name: big\nspec:\n  big: 9223372036854775807\n",
        { "Content-Type": "application/apply-patch+yaml" },
        `${WIDGETS}/big`,
      );
      expect(yaml.status).toBe(400);
      expect(statusOf(yaml).message).toMatch(/9223372036854775807 cannot be stored exactly/);
    });
  });

  describe("encoding", () => {
    const withBadByte = (prefix: string, suffix: string) =>
      Buffer.concat([Buffer.from(prefix), Buffer.from([0xff, 0xfe]), Buffer.from(suffix)]);

    it("invalid UTF-8 in JSON becomes U+FFFD, as Go's JSON decoder does", async () => {
      const res = await attempt(
        "POST",
        CM,
        withBadByte('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"utf"},"data":{"a":"', '"}}'),
        J,
      );
      expect(res.status).toBe(201);
      expect(JSON.parse(res.text).data.a).toBe("\ufffd\ufffd");
    });

    it("invalid UTF-8 in YAML is a 400, as Go's YAML parser refuses it", async () => {
      const res = await attempt(
        "POST",
        CM,
        withBadByte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: utf2\ndata:\n  a: '", "'\n"),
        { "Content-Type": "application/yaml" },
        `${CM}/utf2`,
      );
      expect(res.status).toBe(400);
      expect(statusOf(res).message).toMatch(/invalid UTF-8/);
    });

    it("a warning naming a non-ASCII field is sent as UTF-8 (found: the server answered 500 after writing)", async () => {
      const res = await attempt(
        "POST",
        CM,
        withBadByte('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"utf3"},"', 'x":1}'),
        J,
      );
      expect(res.status).toBe(201);
      expect(warnings(res)).toBe('299 - "unknown field \\"\ufffd\ufffdx\\""');
    });
  });

  describe("media types and statuses", () => {
    it("415 for a body type the endpoint does not take", async () => {
      for (const [method, path, type] of [
        ["POST", CM, "text/plain"],
        ["PATCH", `${CM}/seed`, "application/json"],
        ["PATCH", `${WIDGETS}/seed`, "application/strategic-merge-patch+json"],
        ["POST", WIDGETS, "application/vnd.kubernetes.protobuf"],
      ] as const) {
        const res = await attempt(method, path, "{}", { "Content-Type": type });
        expect(res.status, `${method} ${type}`).toBe(415);
      }
    });

    it("406 for an Accept header we cannot satisfy (kube-apiserver: the same)", async () => {
      const res = await attempt("GET", CM, undefined, { Accept: "text/html" });
      expect(res.status).toBe(406);
      expect(statusOf(res).reason).toBe("NotAcceptable");
      const ok = await attempt("GET", CM, undefined, { Accept: "text/html, */*;q=0.1" });
      expect(ok.status).toBe(200);
    });

    it("404, 409 and 422 with causes", async () => {
      expect((await attempt("GET", `${CM}/nope`, undefined, {})).status).toBe(404);
      expect((await attempt("GET", "/apis/nope.example.com/v1/things", undefined, {})).status).toBe(404);
      const again = await attempt("POST", CM, '{"metadata":{"name":"seed"}}', J);
      expect(again.status).toBe(409);
      const bad = await attempt("POST", CM, '{"metadata":{"name":"Not_A_Name"}}', J, `${CM}/Not_A_Name`);
      expect(bad.status).toBe(422);
      expect(JSON.parse(bad.text).details.causes[0].field).toBe("metadata.name");
    });

    it("a path starting with // is a path, not a host (found: '//%/-' was a 500 with no body)", async () => {
      for (const path of ["//%/-", "//%", "//[::1/x", "//a:b@c/d"]) {
        const res = await attempt("GET", path, undefined, {});
        expect(res.status, path).toBe(404);
      }
      // Empty segments are skipped in routing, as before.
      expect((await attempt("GET", "//api/v1/namespaces", undefined, {})).status).toBe(200);
    });

    it("a URL of 100 KiB is served, as kube-apiserver's 1 MiB header limit serves it (found: node's 431 with no Status)", async () => {
      const values = Array.from({ length: 14_000 }, (_, i) => `v${i}`).join(",");
      const path = `/api/v1/namespaces/fuzz/configmaps?labelSelector=${encodeURIComponent(`app in (${values})`)}`;
      expect(path.length).toBeGreaterThan(100_000);
      const res = await attempt("GET", path, undefined, {});
      expect(res.status).toBe(200);
    });

    it("a merge patch that drops metadata is a 400 (found: a 500)", async () => {
      for (const [body, type] of [
        ['{"metadata":null}', "application/merge-patch+json"],
        ['{"apiVersion":null,"metadata":null}', "application/strategic-merge-patch+json"],
        ['[{"op":"remove","path":"/metadata"}]', "application/json-patch+json"],
        ['{"metadata":{"name":null}}', "application/merge-patch+json"],
      ] as const) {
        for (const path of [`${CM}/seed`, "/api/v1/namespaces/fuzz/services/seed/status"]) {
          const res = await attempt(
            "PATCH",
            path,
            body,
            { "Content-Type": type },
            path.replace(/\/status$/, ""),
          );
          expect(res.status, `${path} ${body}`).toBe(400);
          expect(statusOf(res).message).toMatch(/does not match the name on the URL/);
        }
      }
    });
  });
});

describe("a short run on SQLite", () => {
  let f: FuzzServer;
  let dir: string;
  const budget = fuzzBudget(6);
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "karmada-ts-fuzz-"));
    f = await startFuzzServer({ store: new SqliteStore(join(dir, "fuzz.db")) });
    await seedTargets(f);
  });
  afterAll(async () => {
    await f?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("updates and patches of every kind: never a 5xx, the stored object unchanged when refused", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TARGETS).chain((t) =>
          fc.record({
            t: fc.constant(t),
            mutations: fc.array(mutationOf(t.base(t.seedName)), { maxLength: 3 }),
            verb: fc.constantFrom("PUT", "merge", "apply"),
            damage: byteDamage,
          }),
        ),
        async ({ t, mutations, verb, damage: d }) => {
          const path = `${t.collection}/${t.seedName}`;
          const doc = mutate(t.base(t.seedName), mutations);
          const body =
            verb === "apply"
              ? Buffer.from(toYaml(doc))
              : damage(encodeBody(doc, "json") ?? Buffer.alloc(0), d);
          const before = await f.snapshot(path);
          const res =
            verb === "PUT"
              ? await f.send("PUT", path, body, J)
              : await f.send("PATCH", `${path}?fieldManager=fuzzer`, body, {
                  "Content-Type":
                    verb === "apply" ? "application/apply-patch+yaml" : "application/merge-patch+json",
                });
          expectWellFormed(res, `${verb} ${path}`);
          await expectUnchangedUnlessWritten(f, path, before, res, `${verb} ${path}`);
          await expectReady(f);
        },
      ),
      { ...budget, numRuns: budget.numRuns * TARGETS.length },
    );
  });
});
