/**
 * Hostile query strings, headers and paths over real HTTPS: list/watch/get/delete/
 * deletecollection/create/patch with generated labelSelector, fieldSelector, limit/continue,
 * resourceVersion(Match), watch, timeoutSeconds, dryRun, fieldManager, fieldValidation,
 * propagationPolicy, gracePeriodSeconds...; Content-Type, Accept and Content-Encoding
 * variants; mangled URL paths. Never a 5xx, a Status for errors, a refused write leaves
 * everything as it was, the server ready.
 */
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify as toYaml } from "yaml";
import { CONTENT_TYPES, edgeString, fuzzBudget, mutate, mutationOf } from "./arbitraries.ts";
import {
  expectNothingWritten,
  expectReady,
  expectUnchangedUnlessWritten,
  expectWellFormed,
  type FuzzServer,
  isDryRun,
  type RawResponse,
  withSeededFuzzServer,
} from "./harness.ts";
import { TARGETS } from "./targets.ts";

const budget = fuzzBudget(25);

let f: FuzzServer;
withSeededFuzzServer((server) => {
  f = server;
});

const labelSelector = fc.oneof(
  fc.constantFrom(
    "app=fuzz",
    "app!=fuzz",
    "app in (fuzz,other)",
    "app notin (x)",
    "!app",
    "app",
    "a=b,c!=d,!e",
    "app==fuzz",
    "app in ()",
    "in (a)",
    "a=b=c",
    "a b",
    ",",
    "=",
    "x/y/z=1",
    `${"k".repeat(70)}=v`,
    "app=",
    "app in (a",
    "app gt 1",
    "app>1",
  ),
  edgeString,
);

const fieldSelector = fc.oneof(
  fc.constantFrom(
    "metadata.name=seed",
    "metadata.namespace!=fuzz",
    "metadata.name==x",
    "spec.nodeName=",
    "status.phase=Running",
    "spec.unknownField=x",
    "metadata.name in (a)",
    "metadata.name",
    "=",
    "metadata.name=a,metadata.name=b",
    "spec.clusterName=member1",
  ),
  edgeString,
);

const number = fc.oneof(
  fc.constantFrom("0", "1", "-1", "500", "9007199254740993", "1e3", "1.5", "0x10", "", " 1", "+1", "00"),
  fc.integer().map(String),
  edgeString,
);

const resourceVersion = fc.oneof(
  fc.constantFrom("", "0", "1", "2", "-1", "999999999", "9223372036854775808", "abc", "1.0"),
  edgeString,
);

const boolText = fc.constantFrom("true", "false", "1", "0", "True", "yes", "", "t");

/** A query string: a few parameters from the whole vocabulary, some repeated. */
const query = fc
  .array(
    fc.oneof(
      fc.tuple(fc.constant("labelSelector"), labelSelector),
      fc.tuple(fc.constant("fieldSelector"), fieldSelector),
      fc.tuple(fc.constant("limit"), number),
      fc.tuple(
        fc.constant("continue"),
        fc.oneof(
          edgeString,
          fc.constantFrom("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0", "e30", "!!!"),
        ),
      ),
      fc.tuple(fc.constant("resourceVersion"), resourceVersion),
      fc.tuple(
        fc.constant("resourceVersionMatch"),
        fc.oneof(fc.constantFrom("Exact", "NotOlderThan", "exact", ""), edgeString),
      ),
      fc.tuple(fc.constant("watch"), boolText),
      fc.tuple(fc.constant("timeoutSeconds"), number),
      fc.tuple(fc.constant("allowWatchBookmarks"), boolText),
      fc.tuple(fc.constant("sendInitialEvents"), boolText),
      fc.tuple(fc.constant("dryRun"), fc.oneof(fc.constantFrom("All", "all", "", "None"), edgeString)),
      fc.tuple(
        fc.constant("fieldManager"),
        fc.oneof(fc.constantFrom("kubectl", "x".repeat(200)), edgeString),
      ),
      fc.tuple(
        fc.constant("fieldValidation"),
        fc.oneof(fc.constantFrom("Strict", "Warn", "Ignore", "strict"), edgeString),
      ),
      fc.tuple(
        fc.constant("propagationPolicy"),
        fc.oneof(fc.constantFrom("Foreground", "Background", "Orphan", "orphan"), edgeString),
      ),
      fc.tuple(fc.constant("gracePeriodSeconds"), number),
      fc.tuple(fc.constant("orphanDependents"), boolText),
      fc.tuple(fc.constant("force"), boolText),
      fc.tuple(fc.constantFrom("pretty", "exact", "export", "includeObject"), fc.oneof(boolText, edgeString)),
      fc.tuple(edgeString, edgeString),
    ),
    { maxLength: 5 },
  )
  .map((pairs) => {
    const q = new URLSearchParams();
    for (const [k, v] of pairs) q.append(k, v);
    return q.toString();
  });

const targetArb = fc.constantFrom(...TARGETS);

describe("query strings", () => {
  it("list, watch and get: never a 5xx, a Status for errors", async () => {
    await fc.assert(
      fc.asyncProperty(
        targetArb,
        fc.constantFrom("list", "watch", "get", "watch-path"),
        query,
        async (t, verb, q) => {
          let path = verb === "get" ? `${t.collection}/${t.seedName}` : t.collection;
          if (verb === "watch") path += `?watch=true&${q}`;
          else if (verb === "watch-path") path = `${path.replace(/^\/(apis?)\//, "/$1/")}?${q}`;
          else path += `?${q}`;
          if (verb === "watch-path") {
            const parts = path.split("/");
            // /apis/<group>/<version>/watch/... or /api/v1/watch/...
            parts.splice(parts[1] === "api" ? 3 : 4, 0, "watch");
            path = parts.join("/");
          }
          const res = await f.send("GET", path);
          expectWellFormed(res, `GET ${path}`);
          await expectReady(f);
        },
      ),
      budget,
    );
  });

  it("create with a valid body: never a 5xx, nothing written when refused", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(targetArb, query, async (t, q) => {
        const name = `q${++n}-${Math.random().toString(36).slice(2, 7)}`;
        const path = `${t.collection}/${name}`;
        const before = await f.snapshot(path);
        const res = await f.send("POST", `${t.collection}?${q}`, JSON.stringify(t.base(name)), {
          "Content-Type": "application/json",
        });
        expectWellFormed(res, `POST ${t.collection}?${q}`);
        if (res.status >= 400) await expectUnchangedUnlessWritten(f, path, before, res, `POST ?${q}`);
        else if (isDryRun(q)) await expectNothingWritten(f, path, before, `POST ?${q}`);
        await expectReady(f);
      }),
      budget,
    );
  });

  it("patch the seed: never a 5xx, unchanged when refused", async () => {
    await fc.assert(
      fc.asyncProperty(targetArb, query, async (t, q) => {
        const path = `${t.collection}/${t.seedName}`;
        const before = await f.snapshot(path);
        const res = await f.send("PATCH", `${path}?${q}`, '{"metadata":{"labels":{"touched":"yes"}}}', {
          "Content-Type": "application/merge-patch+json",
        });
        expectWellFormed(res, `PATCH ${path}?${q}`);
        await expectUnchangedUnlessWritten(f, path, before, res, `PATCH ?${q}`);
        if (isDryRun(q)) await expectNothingWritten(f, path, before, `PATCH ?${q}`);
        await expectReady(f);
      }),
      budget,
    );
  });

  it("delete a fresh object: never a 5xx, the object intact when refused", async () => {
    let n = 0;
    const cms = TARGETS.find((t) => t.kind === "ConfigMap")!;
    await fc.assert(
      fc.asyncProperty(
        query,
        fc.option(
          fc.record(
            {
              propagationPolicy: fc.oneof(fc.constantFrom("Foreground", "Orphan"), edgeString),
              gracePeriodSeconds: fc.oneof(fc.integer(), fc.constant(1.5), edgeString),
              dryRun: fc.oneof(fc.constant(["All"]), fc.array(edgeString, { maxLength: 2 })),
              preconditions: fc.record(
                { uid: edgeString, resourceVersion: edgeString },
                { requiredKeys: [] },
              ),
              orphanDependents: fc.oneof(fc.boolean(), edgeString),
              kind: fc.constantFrom("DeleteOptions", "Pod"),
              apiVersion: fc.constantFrom("v1", "meta.k8s.io/v1", "bogus/v9"),
            },
            { requiredKeys: [] },
          ),
        ),
        fc.constantFrom("json", "yaml", "protobuf"),
        fc.uint8Array({ maxLength: 60 }),
        async (q, options, format, random) => {
          const name = `del${++n}`;
          const path = `${cms.collection}/${name}`;
          const created = await f.send("POST", cms.collection, JSON.stringify(cms.base(name)), {
            "Content-Type": "application/json",
          });
          expect(created.status, created.text).toBe(201);
          const before = await f.snapshot(path);
          // DeleteOptions as JSON, YAML, or a protobuf frame of random bytes.
          const body =
            options === null
              ? undefined
              : format === "protobuf"
                ? Buffer.concat([Buffer.from("k8s\0"), Buffer.from(random)])
                : format === "yaml"
                  ? toYaml(options)
                  : JSON.stringify(options);
          const res = await f.send(
            "DELETE",
            `${path}?${q}`,
            body,
            options === null ? {} : { "Content-Type": CONTENT_TYPES[format] },
          );
          const what = `DELETE ${path}?${q} ${format} ${JSON.stringify(options)}`;
          expectWellFormed(res, what);
          if (res.status >= 400) await expectUnchangedUnlessWritten(f, path, before, res, what);
          else if (isDryRun(q) && (options === null || options.dryRun === undefined)) {
            await expectNothingWritten(f, path, before, what);
          }
          await expectReady(f);
        },
      ),
      budget,
    );
  });

  it("deletecollection: never a 5xx, nothing deleted when refused", async () => {
    const ns = "/api/v1/namespaces/fuzz-dc";
    const made = await f.send("POST", "/api/v1/namespaces", '{"metadata":{"name":"fuzz-dc"}}', {
      "Content-Type": "application/json",
    });
    expect(made.status, made.text).toBe(201);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        for (let i = 0; i < 2; i++) {
          await f.send(
            "POST",
            `${ns}/configmaps`,
            JSON.stringify({
              metadata: { name: `dc${++n}`, labels: { app: "fuzz" } },
              data: { i: String(i) },
            }),
            { "Content-Type": "application/json" },
          );
        }
        const before = await f.snapshot(`${ns}/configmaps`);
        const res = await f.send("DELETE", `${ns}/configmaps?${q}`);
        expectWellFormed(res, `DELETE ${ns}/configmaps?${q}`);
        if (res.status >= 400 || isDryRun(q)) {
          // The items, not the list's resourceVersion: the server's own controllers write elsewhere meanwhile.
          const items = (r: RawResponse) =>
            JSON.stringify((JSON.parse(r.text) as { items: unknown[] }).items);
          const after = await f.snapshot(`${ns}/configmaps`);
          expect(items(after), `DELETE ?${q} answered ${res.status} but the collection changed`).toBe(
            items(before),
          );
        }
        await expectReady(f);
      }),
      budget,
    );
  });
});

const mediaType = fc.oneof(
  fc.constantFrom(
    "application/json",
    "application/json; charset=utf-8",
    "APPLICATION/JSON",
    "application/json;charset=utf-16",
    "application/yaml",
    "application/x-yaml",
    "text/yaml",
    "application/vnd.kubernetes.protobuf",
    "application/merge-patch+json",
    "application/json-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
    "application/apply-patch+cbor",
    "application/cbor",
    "text/plain",
    "text/html",
    "*/*",
    "application/*",
    "application/json;as=Table;v=v1;g=meta.k8s.io",
    "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
    "application/json;as=PartialObjectMetadataList;v=v1beta1;g=meta.k8s.io",
    "application/json;as=Table;v=v9;g=bogus",
    "application/json;stream=watch",
    "application/vnd.kubernetes.protobuf;stream=watch",
    "application/json, */*",
    ";;;",
    "application/json; q=0",
    "",
  ),
  fc.stringMatching(/^[\x20-\x7e]{0,40}$/),
);

const headerText = fc.stringMatching(/^[\x20-\x7e]{0,30}$/);

/** Impersonation as the admin may ask it: users, groups, uids and extras, real and made up. */
const impersonation = fc.record(
  {
    "Impersonate-User": fc.oneof(
      fc.constantFrom("system:admin", "system:serviceaccount:fuzz:fuzz-sa", "system:anonymous", "alice", ""),
      headerText,
    ),
    "Impersonate-Group": fc.oneof(fc.constantFrom("system:masters", "system:authenticated", ""), headerText),
    "Impersonate-Uid": headerText,
    "Impersonate-Extra-Scopes": headerText,
    "Impersonate-Extra-%E2%9C%93": headerText,
    "Impersonate-Extra-": headerText,
  },
  { requiredKeys: [] },
) as fc.Arbitrary<Record<string, string>>;

/** The headers that were chosen (fc.option's null means "not sent"). */
function headersOf(chosen: Record<string, string | null>): Record<string, string> {
  return Object.fromEntries(Object.entries(chosen).filter((e): e is [string, string] => e[1] !== null));
}

describe("headers", () => {
  it("Content-Type, Accept, Content-Encoding and impersonation variants: never a 5xx, unchanged when refused", async () => {
    await fc.assert(
      fc.asyncProperty(
        targetArb,
        fc.constantFrom("POST", "PUT", "PATCH", "GET"),
        fc.option(mediaType),
        fc.option(mediaType),
        fc.option(fc.constantFrom("gzip", "deflate", "br", "identity", "gzip, gzip", "x-bogus")),
        fc.boolean(),
        fc.option(impersonation),
        async (t, method, contentType, accept, encoding, gzipped, impersonate) => {
          const path = `${t.collection}/${t.seedName}`;
          const url = method === "POST" ? t.collection : path;
          const name = method === "POST" ? `h${Math.random().toString(36).slice(2, 9)}` : t.seedName;
          let body: Buffer | undefined =
            method === "GET" ? undefined : Buffer.from(JSON.stringify(t.base(name)));
          if (body && gzipped) body = gzipSync(body);
          const headers = headersOf({
            "Content-Type": contentType,
            Accept: accept,
            "Content-Encoding": encoding,
            ...impersonate,
          });
          const target = `${t.collection}/${name}`;
          const before = await f.snapshot(target);
          const res = await f.send(
            method,
            method === "PATCH" ? `${url}?fieldManager=fuzzer` : url,
            body,
            headers,
          );
          const what = `${method} ${url} ${JSON.stringify(headers)} gzipped=${gzipped}`;
          expectWellFormed(res, what);
          if (method !== "GET") await expectUnchangedUnlessWritten(f, target, before, res, what);
          await expectReady(f);
        },
      ),
      budget,
    );
  });
});

describe("paths", () => {
  const segment = fc.oneof(
    fc.constantFrom(
      "api",
      "apis",
      "v1",
      "apps",
      "namespaces",
      "fuzz",
      "configmaps",
      "deployments",
      "seed",
      "status",
      "scale",
      "watch",
      "proxy",
      "log",
      "finalize",
      "..",
      ".",
      "",
      "%2F",
      "%ff",
      "%00",
      "%",
      "a%2Fb",
      "policy.karmada.io",
      "v1alpha1",
      "clusters",
      "works",
      "%E2%80%AE",
    ),
    fc.stringMatching(/^[A-Za-z0-9._~-]{1,20}$/),
  );
  it("any path: never a 5xx, a Status for errors", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { minLength: 1, maxLength: 9 }),
        fc.constantFrom("GET", "DELETE", "POST", "PUT", "PATCH", "HEAD", "OPTIONS"),
        async (segments, method) => {
          const path = `/${segments.join("/")}`;
          const res = await f.send(method, path, method === "GET" || method === "HEAD" ? undefined : "{}", {
            "Content-Type": "application/merge-patch+json",
          });
          expect(res.status, `${method} ${path}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
          // Health, metrics, version and discovery answer in their own formats; API errors are Statuses.
          if (res.status >= 400 && method !== "HEAD") expectWellFormed(res, `${method} ${path}`);
          await expectReady(f);
        },
      ),
      budget,
    );
  });
});

describe("other subresources", () => {
  it("namespaces/finalize, serviceaccounts/token and pods/log: never a 5xx, a Status for errors", async () => {
    const sa = await f.send(
      "POST",
      "/api/v1/namespaces/fuzz/serviceaccounts",
      '{"metadata":{"name":"fuzz-sa"}}',
      { "Content-Type": "application/json" },
    );
    expect(sa.status, sa.text).toBe(201);
    const finalizeBase = {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "fuzz-seed" },
      spec: { finalizers: ["kubernetes"] },
    };
    const tokenBase = {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: {
        audiences: ["https://kubernetes.default.svc"],
        expirationSeconds: 3600,
        boundObjectRef: { apiVersion: "v1", kind: "Pod", name: "seed" },
      },
    };
    const logQuery = fc
      .array(
        fc.tuple(
          fc.constantFrom(
            "container",
            "follow",
            "previous",
            "sinceSeconds",
            "sinceTime",
            "timestamps",
            "tailLines",
            "limitBytes",
            "insecureSkipTLSVerifyBackend",
          ),
          fc.oneof(fc.constantFrom("app", "true", "0", "-1", "1", "2026-01-01T00:00:00Z", "x"), edgeString),
        ),
        { maxLength: 4 },
      )
      .map((pairs) => new URLSearchParams(pairs).toString());
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc
            .array(mutationOf(finalizeBase), { maxLength: 3 })
            .map((m) => ({ kind: "finalize" as const, body: mutate(finalizeBase, m) })),
          fc
            .array(mutationOf(tokenBase), { maxLength: 3 })
            .map((m) => ({ kind: "token" as const, body: mutate(tokenBase, m) })),
          logQuery.map((q) => ({ kind: "log" as const, query: q })),
        ),
        async (c) => {
          let res: RawResponse;
          const nsPath = "/api/v1/namespaces/fuzz-seed";
          const before = await f.snapshot(nsPath);
          if (c.kind === "finalize") {
            res = await f.send("PUT", `${nsPath}/finalize`, JSON.stringify(c.body), {
              "Content-Type": "application/json",
            });
          } else if (c.kind === "token") {
            res = await f.send(
              "POST",
              "/api/v1/namespaces/fuzz/serviceaccounts/fuzz-sa/token",
              JSON.stringify(c.body),
              { "Content-Type": "application/json" },
            );
          } else {
            res = await f.send("GET", `/api/v1/namespaces/fuzz/pods/seed/log?${c.query}`);
          }
          const what = `${c.kind} ${JSON.stringify(c).slice(0, 400)}`;
          // A log is text, not a Status, when it is served.
          if (!(c.kind === "log" && res.status === 200)) expectWellFormed(res, what);
          if (c.kind === "finalize") await expectUnchangedUnlessWritten(f, nsPath, before, res, what);
          await expectReady(f);
        },
      ),
      budget,
    );
  });
});
