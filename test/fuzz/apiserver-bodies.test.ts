/**
 * Hostile create and update bodies (JSON, YAML, protobuf; mutated values, damaged bytes,
 * duplicate keys, number literals past 2^53) for built-in kinds, Karmada kinds and a CRD's
 * custom resources, and their status and scale subresources, over real HTTPS. Every answer is
 * below 500 and a proper Status when it is an error; a refused write leaves the stored object
 * byte-identical; the server stays ready.
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import {
  byteDamage,
  CONTENT_TYPES,
  damage,
  encodeBody,
  type Format,
  fuzzBudget,
  mutate,
  mutationOf,
  schemaMutationOf,
  textTwist,
  twist,
} from "./arbitraries.ts";
import {
  expectReady,
  expectUnchangedUnlessWritten,
  expectWellFormed,
  type FuzzServer,
  schemaOf,
  withSeededFuzzServer,
} from "./harness.ts";
import { TARGETS, type Target } from "./targets.ts";

const budget = fuzzBudget(15);

let f: FuzzServer;
withSeededFuzzServer((server) => {
  f = server;
});

function formatsOf(t: Target): fc.Arbitrary<Format> {
  return t.builtin ? fc.constantFrom("json", "yaml", "protobuf") : fc.constantFrom("json", "yaml");
}

/** A body: the object mutated, encoded, its JSON text twisted and its bytes damaged. */
function bodyOf(t: Target, base: Record<string, unknown>) {
  return fc
    .record({
      mutations: fc.array(mutationOf(base), { maxLength: 3 }),
      format: formatsOf(t),
      twist: textTwist,
      damage: byteDamage,
    })
    .map((b) => {
      const obj = mutate(base, b.mutations);
      let bytes = encodeBody(obj, b.format);
      if (bytes && b.format === "json") bytes = Buffer.from(twist(bytes.toString("utf8"), b.twist));
      return { ...b, obj, bytes: bytes && damage(bytes, b.damage) };
    });
}

let counter = 0;

describe.each(TARGETS.map((t) => [t.name, t] as const))("%s bodies", (_name, t) => {
  it("create: never a 5xx, a Status for errors, nothing written when refused", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer().chain(() => {
          const name = `f${++counter}`;
          return bodyOf(t, t.base(name)).map((b) => ({ ...b, name }));
        }),
        async (b) => {
          if (!b.bytes) return;
          const path = `${t.collection}/${b.name}`;
          const before = await f.snapshot(path);
          const res = await f.send("POST", t.collection, b.bytes, {
            "Content-Type": CONTENT_TYPES[b.format],
          });
          const what = `POST ${t.collection} ${b.format} ${JSON.stringify(b.mutations).slice(0, 300)}`;
          expectWellFormed(res, what);
          await expectUnchangedUnlessWritten(f, path, before, res, what);
          await expectReady(f);
        },
      ),
      budget,
    );
  });

  it("update: never a 5xx, a Status for errors, the object unchanged when refused", async () => {
    const path = `${t.collection}/${t.seedName}`;
    await fc.assert(
      fc.asyncProperty(bodyOf(t, t.base(t.seedName)), async (b) => {
        if (!b.bytes) return;
        const before = await f.snapshot(path);
        const res = await f.send("PUT", path, b.bytes, { "Content-Type": CONTENT_TYPES[b.format] });
        const what = `PUT ${path} ${b.format} ${JSON.stringify(b.mutations).slice(0, 300)}`;
        expectWellFormed(res, what);
        await expectUnchangedUnlessWritten(f, path, before, res, what);
        await expectReady(f);
      }),
      budget,
    );
  });

  it("schema-shaped create and update: never a 5xx, nothing written when refused", async () => {
    const schema = schemaOf(f, t);
    await fc.assert(
      fc.asyncProperty(
        fc.array(schemaMutationOf(schema), { minLength: 1, maxLength: 4 }),
        fc.constantFrom("POST", "PUT"),
        async (mutations, method) => {
          const name = method === "POST" ? `s${++counter}` : t.seedName;
          const path = `${t.collection}/${name}`;
          const body = JSON.stringify(mutate(t.base(name), mutations));
          const before = await f.snapshot(path);
          const res = await f.send(method, method === "POST" ? t.collection : path, body, {
            "Content-Type": "application/json",
          });
          const what = `${method} ${path} ${body.slice(0, 600)}`;
          expectWellFormed(res, what);
          await expectUnchangedUnlessWritten(f, path, before, res, what);
          await expectReady(f);
        },
      ),
      { ...budget, numRuns: budget.numRuns * 2 },
    );
  });

  for (const sub of t.subresources) {
    it(`${sub}: never a 5xx, the object unchanged when refused`, async () => {
      const path = `${t.collection}/${t.seedName}`;
      const current = JSON.parse((await f.snapshot(path)).text) as Record<string, unknown>;
      const base =
        sub === "scale"
          ? {
              apiVersion: "autoscaling/v1",
              kind: "Scale",
              metadata: { name: t.seedName, namespace: "fuzz" },
              spec: { replicas: 3 },
            }
          : { ...current, status: { replicas: 1, phase: "Running", conditions: [] } };
      const formats: fc.Arbitrary<Format> =
        sub === "scale" || t.builtin ? fc.constantFrom("json", "yaml") : fc.constant("json");
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            mutations: fc.array(mutationOf(base), { maxLength: 3 }),
            format: formats,
            damage: byteDamage,
          }),
          async (b) => {
            const bytes = encodeBody(mutate(base, b.mutations), b.format);
            if (!bytes) return;
            const before = await f.snapshot(path);
            const res = await f.send("PUT", `${path}/${sub}`, damage(bytes, b.damage), {
              "Content-Type": CONTENT_TYPES[b.format],
            });
            const what = `PUT ${path}/${sub} ${JSON.stringify(b.mutations).slice(0, 300)}`;
            expectWellFormed(res, what);
            await expectUnchangedUnlessWritten(f, path, before, res, what);
            await expectReady(f);
          },
        ),
        budget,
      );
    });
  }
});

describe("protobuf bytes", () => {
  const builtins = TARGETS.filter((t) => t.builtin);
  const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

  it("damaged encodings and random frames: never a 5xx, nothing written when refused", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...builtins),
        fc.oneof(
          { weight: 3, arbitrary: fc.array(byteDamage, { minLength: 1, maxLength: 6 }) },
          { weight: 1, arbitrary: fc.constant(null) },
        ),
        fc.uint8Array({ maxLength: 200 }),
        fc.constantFrom("POST", "PUT"),
        async (t, damages, random, method) => {
          const name = `pb${++counter}`;
          const target = method === "POST" ? `${t.collection}/${name}` : `${t.collection}/${t.seedName}`;
          const obj = t.base(method === "POST" ? name : t.seedName);
          let bytes: Buffer;
          if (damages === null) bytes = Buffer.concat([MAGIC, Buffer.from(random)]);
          else {
            bytes = encodeBody(obj, "protobuf")!;
            for (const d of damages) bytes = damage(bytes, d);
          }
          const before = await f.snapshot(target);
          const res = await f.send(method, method === "POST" ? t.collection : target, bytes, {
            "Content-Type": CONTENT_TYPES.protobuf,
          });
          const what = `${method} ${target} protobuf ${bytes.toString("hex").slice(0, 400)}`;
          expectWellFormed(res, what);
          await expectUnchangedUnlessWritten(f, target, before, res, what);
          await expectReady(f);
        },
      ),
      { ...budget, numRuns: budget.numRuns * 4 },
    );
  });
});
