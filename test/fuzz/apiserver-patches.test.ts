/**
 * Hostile PATCH bodies over real HTTPS: JSON merge patches, strategic merge patches (with
 * `$patch`, `$setElementOrder`, `$retainKeys` and `$deleteFromPrimitiveList` directives,
 * right and wrong), JSON patches (every op, good and broken pointers) and server-side apply
 * documents, on every target kind and its status and scale subresources. Never a 5xx, a
 * Status for errors, the object byte-identical after a refused patch, the server ready.
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import { stringify as toYaml } from "yaml";
import {
  byteDamage,
  damage,
  edgeString,
  fuzzBudget,
  type Json,
  mutate,
  mutationOf,
  nastyValue,
  type Path,
  pathsOf,
  textTwist,
  twist,
} from "./arbitraries.ts";
import {
  expectReady,
  expectUnchangedUnlessWritten,
  expectWellFormed,
  type FuzzServer,
  withSeededFuzzServer,
} from "./harness.ts";
import { TARGETS, type Target } from "./targets.ts";

const budget = fuzzBudget(15);

let f: FuzzServer;
withSeededFuzzServer((server) => {
  f = server;
});

const PATCH_TYPES = {
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  json: "application/json-patch+json",
  apply: "application/apply-patch+yaml",
} as const;
type PatchKind = keyof typeof PATCH_TYPES;

const pointer = (p: Path): string =>
  p.map((s) => `/${String(s).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");

/** A merge (or strategic) patch: a sparse copy of mutated paths, directives sprinkled in. */
function mergePatch(base: Record<string, unknown>, strategic: boolean): fc.Arbitrary<Json> {
  const directive = fc.oneof(
    fc.record({
      key: fc.constant("$patch"),
      value: fc.constantFrom("delete", "replace", "merge", "bogus", 7),
    }),
    fc.record({
      key: fc.constantFrom(
        "$setElementOrder/containers",
        "$setElementOrder/ports",
        "$setElementOrder/conditions",
      ),
      value: fc.array(fc.oneof(fc.record({ name: edgeString }), nastyValue), { maxLength: 3 }),
    }),
    fc.record({
      key: fc.constant("$retainKeys"),
      value: fc.oneof(fc.array(edgeString, { maxLength: 3 }), nastyValue),
    }),
    fc.record({
      key: fc.constantFrom("$deleteFromPrimitiveList/finalizers", "$deleteFromPrimitiveList/args"),
      value: fc.oneof(fc.array(edgeString, { maxLength: 3 }), nastyValue),
    }),
  );
  const paths = pathsOf(base).filter((p) => p.length > 0 && p.every((s) => typeof s === "string"));
  return fc
    .record({
      mutations: fc.array(mutationOf(base), { minLength: 1, maxLength: 3 }),
      directives: strategic
        ? fc.array(fc.tuple(fc.constantFrom([] as Path, ...paths), directive), { maxLength: 2 })
        : fc.constant([]),
      nulls: fc.array(fc.constantFrom(...paths), { maxLength: 2 }),
    })
    .map(({ mutations, directives, nulls }) => {
      // Only what the mutations touched goes in the patch: start from an empty document.
      let doc = mutate({}, mutations) as Json;
      for (const p of nulls) doc = mutate(doc, [{ path: p, value: null }]) as Json;
      for (const [p, d] of directives)
        doc = mutate(doc, [{ path: [...p, d.key], value: d.value as Json }]) as Json;
      return doc;
    });
}

/** A JSON patch: operations on real and broken paths. */
function jsonPatch(base: Record<string, unknown>): fc.Arbitrary<Json> {
  const real = pathsOf(base).map(pointer);
  const path = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...real) },
    fc.constantFrom(
      "",
      "/",
      "/-",
      "/spec/-",
      "/metadata/labels/~2",
      "/a/b/c/d",
      "/spec/0",
      "/metadata/name/x",
      "/status",
    ),
    edgeString,
  );
  const op = fc.record(
    {
      op: fc.oneof(fc.constantFrom("add", "remove", "replace", "move", "copy", "test"), edgeString),
      path,
      from: path,
      value: nastyValue,
    },
    { requiredKeys: ["op"] },
  );
  return fc.oneof({ weight: 6, arbitrary: fc.array(op, { maxLength: 4 }) as fc.Arbitrary<Json> }, nastyValue);
}

function patchOf(t: Target, base: Record<string, unknown>) {
  const kinds: PatchKind[] = t.builtin ? ["merge", "strategic", "json", "apply"] : ["merge", "json", "apply"];
  return fc.constantFrom(...kinds).chain((kind) =>
    fc.record({
      kind: fc.constant(kind),
      doc:
        kind === "json"
          ? jsonPatch(base)
          : kind === "apply"
            ? fc.array(mutationOf(base), { maxLength: 3 }).map((m) => mutate(base, m) as Json)
            : mergePatch(base, kind === "strategic"),
      twist: textTwist,
      damage: byteDamage,
      force: fc.constantFrom(undefined, "true", "false", "yes"),
      manager: fc.constantFrom("fuzzer", "other", "", "kubectl"),
    }),
  );
}

function encodePatch(p: { kind: PatchKind; doc: Json; twist: Parameters<typeof twist>[1] }): Buffer {
  if (p.kind === "apply") return Buffer.from(toYaml(p.doc));
  return Buffer.from(twist(JSON.stringify(p.doc), p.twist));
}

function query(p: { kind: PatchKind; force: string | undefined; manager: string }): string {
  const q = new URLSearchParams();
  if (p.manager) q.set("fieldManager", p.manager);
  if (p.force !== undefined && p.kind === "apply") q.set("force", p.force);
  const s = q.toString();
  return s ? `?${s}` : "";
}

describe.each(TARGETS.map((t) => [t.name, t] as const))("%s patches", (_name, t) => {
  const path = `${t.collection}/${t.seedName}`;

  it("main resource: never a 5xx, a Status for errors, the object unchanged when refused", async () => {
    await fc.assert(
      fc.asyncProperty(patchOf(t, t.base(t.seedName)), async (p) => {
        const before = await f.snapshot(path);
        const body = damage(encodePatch(p), p.damage);
        const res = await f.send("PATCH", `${path}${query(p)}`, body, {
          "Content-Type": PATCH_TYPES[p.kind],
        });
        const what = `PATCH ${path} ${p.kind} ${body.toString("utf8").slice(0, 400)}`;
        expectWellFormed(res, what);
        await expectUnchangedUnlessWritten(f, path, before, res, what);
        await expectReady(f);
      }),
      budget,
    );
  });

  for (const sub of t.subresources) {
    it(`${sub}: never a 5xx, the object unchanged when refused`, async () => {
      const scale = {
        apiVersion: "autoscaling/v1",
        kind: "Scale",
        metadata: { name: t.seedName, namespace: "fuzz" },
        spec: { replicas: 3 },
      };
      const base =
        sub === "scale" ? scale : { ...t.base(t.seedName), status: { replicas: 1, phase: "Running" } };
      await fc.assert(
        fc.asyncProperty(patchOf(t, base), async (p) => {
          const before = await f.snapshot(path);
          const body = damage(encodePatch(p), p.damage);
          const res = await f.send("PATCH", `${path}/${sub}${query(p)}`, body, {
            "Content-Type": PATCH_TYPES[p.kind],
          });
          const what = `PATCH ${path}/${sub} ${p.kind} ${body.toString("utf8").slice(0, 400)}`;
          expectWellFormed(res, what);
          await expectUnchangedUnlessWritten(f, path, before, res, what);
          await expectReady(f);
        }),
        budget,
      );
    });
  }

  it("apply to a missing object: never a 5xx, nothing written when refused", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(mutationOf(t.base("x")), { maxLength: 3 }),
        fc.constantFrom("json", "yaml"),
        async (mutations, format) => {
          const name = `applied-${++n}-${Math.random().toString(36).slice(2, 7)}`;
          const doc = mutate(t.base(name), mutations);
          const target = `${t.collection}/${name}`;
          const before = await f.snapshot(target);
          const body = format === "json" ? JSON.stringify(doc) : toYaml(doc);
          const res = await f.send("PATCH", `${target}?fieldManager=fuzzer`, body, {
            "Content-Type": PATCH_TYPES.apply,
          });
          const what = `APPLY ${target} ${body.slice(0, 400)}`;
          expectWellFormed(res, what);
          await expectUnchangedUnlessWritten(f, target, before, res, what);
          await expectReady(f);
        },
      ),
      budget,
    );
  });
});
