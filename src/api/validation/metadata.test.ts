import { describe, expect, it } from "vitest";
import { fieldErrorMessage } from "../../machinery/errors.ts";
import { type ObjectMetaOptions, validateObjectMeta } from "./metadata.ts";

const namespaced: ObjectMetaOptions = { namespaced: true, nameRule: "subdomain" };

function messages(meta: unknown, opts: ObjectMetaOptions = namespaced, old?: unknown): string[] {
  return validateObjectMeta(meta, opts, old).map(fieldErrorMessage);
}

describe("validateObjectMeta on create", () => {
  const cases: Array<{ name: string; meta: unknown; opts?: ObjectMetaOptions; want: string[] }> = [
    { name: "valid", meta: { name: "web", namespace: "default", labels: { app: "web" } }, want: [] },
    {
      name: "name format",
      meta: { name: "Foo", namespace: "default" },
      want: [
        `metadata.name: Invalid value: "Foo": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ],
    },
    {
      name: "name required",
      meta: { namespace: "default" },
      want: ["metadata.name: Required value: name or generateName is required"],
    },
    {
      name: "generateName alone is enough",
      meta: { generateName: "web-", name: "web-x2b4z", namespace: "d" },
      want: [],
    },
    { name: "namespace required", meta: { name: "a" }, want: ["metadata.namespace: Required value"] },
    {
      name: "namespace forbidden on cluster-scoped kinds",
      meta: { name: "a", namespace: "x" },
      opts: { namespaced: false, nameRule: "subdomain" },
      want: ["metadata.namespace: Forbidden: not allowed on this type"],
    },
    {
      name: "label key and value",
      meta: { name: "a", namespace: "d", labels: { "bad key": "v", k: "x".repeat(64) } },
      want: [
        `metadata.labels: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
        `metadata.labels: Invalid value: "${"x".repeat(64)}": must be no more than 63 characters`,
      ],
    },
    {
      name: "annotations size",
      meta: { name: "a", namespace: "d", annotations: { big: "x".repeat(256 * 1024) } },
      want: ["metadata.annotations: Too long: may not be more than 262144 bytes"],
    },
    {
      name: "owner references",
      meta: {
        name: "a",
        namespace: "d",
        ownerReferences: [
          { apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs1", uid: "1", controller: true },
          { apiVersion: "apps/", kind: "ReplicaSet", name: "rs2", uid: "", controller: true },
        ],
      },
      want: [
        `metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty`,
        `metadata.ownerReferences.uid: Invalid value: "": uid must not be empty`,
        `metadata.ownerReferences: Invalid value: [{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs1","uid":"1","controller":true},{"apiVersion":"apps/","kind":"ReplicaSet","name":"rs2","uid":"","controller":true}]: Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/rs1 and ReplicaSet/rs2`,
      ],
    },
    {
      name: "finalizers",
      meta: { name: "a", namespace: "d", finalizers: ["kubernetes", "example.com/cleanup", "cleanup"] },
      want: [
        `metadata.finalizers[2]: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified`,
      ],
    },
    {
      name: "orphan and foreground together",
      meta: { name: "a", namespace: "d", finalizers: ["orphan", "foregroundDeletion"] },
      want: [
        `metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set`,
      ],
    },
    {
      name: "custom resources may use unqualified finalizers",
      meta: { name: "a", namespace: "d", finalizers: ["cleanup"] },
      opts: { namespaced: true, nameRule: "subdomain", kubeFinalizers: false },
      want: [],
    },
    {
      name: "generation",
      meta: { name: "a", namespace: "d", generation: -1 },
      want: ["metadata.generation: Invalid value: -1: must be greater than or equal to 0"],
    },
  ];
  for (const c of cases) it(c.name, () => expect(messages(c.meta, c.opts)).toEqual(c.want));
});

describe("validateObjectMeta on update", () => {
  const old = {
    name: "a",
    namespace: "d",
    uid: "u1",
    creationTimestamp: "2026-01-01T00:00:00Z",
    resourceVersion: "5",
  };
  it("accepts label changes", () => {
    expect(messages({ ...old, labels: { x: "y" } }, namespaced, old)).toEqual([]);
  });
  it("keeps identity fields immutable", () => {
    expect(
      messages({ ...old, uid: "u2", creationTimestamp: "2027-01-01T00:00:00Z" }, namespaced, old),
    ).toEqual([
      `metadata.uid: Invalid value: "u2": field is immutable`,
      `metadata.creationTimestamp: Invalid value: "2027-01-01T00:00:00Z": field is immutable`,
    ]);
  });
  it("does not let deletionTimestamp be unset", () => {
    const deleting = { ...old, deletionTimestamp: "2026-02-01T00:00:00Z", finalizers: ["example.com/a"] };
    expect(messages({ ...old, finalizers: ["example.com/a"] }, namespaced, deleting)).toEqual([
      "metadata.deletionTimestamp: Invalid value: null: field is immutable",
    ]);
  });
  it("forbids new finalizers while terminating", () => {
    const deleting = { ...old, deletionTimestamp: "2026-02-01T00:00:00Z", finalizers: ["example.com/a"] };
    expect(
      messages({ ...deleting, finalizers: ["example.com/a", "example.com/b"] }, namespaced, deleting),
    ).toEqual([
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b"}',
    ]);
  });
  it("rejects decremented generations and, on request, missing resourceVersions", () => {
    const opts = { ...namespaced, requireResourceVersion: true };
    expect(
      messages(
        { name: "a", namespace: "d", uid: "u1", creationTimestamp: old.creationTimestamp, generation: 1 },
        opts,
        { ...old, generation: 2 },
      ),
    ).toEqual([
      `metadata.resourceVersion: Invalid value: "": must be specified for an update`,
      "metadata.generation: Invalid value: 1: must not be decremented",
    ]);
  });
});
