/**
 * The API server on each storage backend, driven by the real kubectl: the same behaviour on
 * memory, SQLite and etcd, and state that survives a restart on the persistent ones.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ETCD_BINARY, type LocalEtcd, startLocalEtcd } from "../../src/storage/etcd/local-etcd.ts";
import { openStore } from "../../src/storage/open.ts";
import { eventually, startTestServer, type TestServer } from "../support/kubectl.ts";

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.25}]
`;

async function exercise(s: TestServer): Promise<void> {
  expect((await s.kubectl(["create", "namespace", "shop"])).code).toBe(0);
  const file = join(s.dir, "deploy.yaml");
  await writeFile(file, DEPLOYMENT);
  expect((await s.kubectl(["apply", "-f", file])).stdout).toBe("deployment.apps/web created\n");
  expect((await s.kubectl(["apply", "-f", file])).stdout).toBe("deployment.apps/web unchanged\n");
  for (let i = 0; i < 5; i++)
    await s.kubectl(["-n", "shop", "create", "configmap", `c${i}`, `--from-literal=i=${i}`]);
  const paged = await s.kubectl(["-n", "shop", "get", "configmaps", "--chunk-size=2", "-o", "name"]);
  expect(paged.stdout.trim().split("\n")).toEqual([
    "configmap/c0",
    "configmap/c1",
    "configmap/c2",
    "configmap/c3",
    "configmap/c4",
  ]);
  const watch = s.kubectl(
    ["-n", "shop", "get", "configmap", "c0", "-w", "-o", "jsonpath={.data.i}{'\\n'}", "--request-timeout=5s"],
    {
      timeoutMs: 20_000,
    },
  );
  await new Promise((r) => setTimeout(r, 1000));
  await s.kubectl([
    "-n",
    "shop",
    "patch",
    "configmap",
    "c0",
    "--type=merge",
    "-p",
    '{"data":{"i":"changed"}}',
  ]);
  expect((await watch).stdout).toContain("changed");
  expect((await s.kubectl(["delete", "namespace", "shop"])).code).toBe(0);
  const gone = await s.kubectl(["get", "namespace", "shop"]);
  expect(gone.stderr).toContain('namespaces "shop" not found');
}

describe("API server on every storage backend", () => {
  it("memory", async () => {
    const s = await startTestServer();
    try {
      await exercise(s);
    } finally {
      await s.close();
    }
  });

  describe("sqlite", () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "karmada-ts-sqlite-"));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it("serves kubectl and keeps state across a restart", async () => {
      const url = `sqlite://${join(dir, "state.db")}`;
      const first = await startTestServer({ store: await openStore(url) });
      try {
        await exercise(first);
        expect((await first.kubectl(["create", "configmap", "survivor", "--from-literal=a=b"])).code).toBe(0);
      } finally {
        await first.close();
      }
      const second = await startTestServer({ store: await openStore(url) });
      try {
        const got = await second.kubectl(["get", "configmap", "survivor", "-o", "jsonpath={.data.a}"]);
        expect(got.stdout).toBe("b");
        const crds = await second.kubectl(["get", "crd", "-o", "name"]);
        expect(crds.stdout).toContain(
          "customresourcedefinition.apiextensions.k8s.io/propagationpolicies.policy.karmada.io",
        );
      } finally {
        await second.close();
      }
    });
  });

  describe.skipIf(!existsSync(ETCD_BINARY))("etcd", () => {
    let etcd: LocalEtcd;
    beforeAll(async () => {
      etcd = await startLocalEtcd();
    });
    afterAll(async () => {
      await etcd.destroy();
    });

    it("serves kubectl, and two API servers on one etcd see each other's writes", async () => {
      const url = `etcd://${etcd.endpoint.replace(/^https?:\/\//, "")}?prefix=/e2e`;
      const a = await startTestServer({ store: await openStore(url) });
      const b = await startTestServer({ store: await openStore(url) });
      try {
        await exercise(a);
        await a.kubectl(["create", "configmap", "shared", "--from-literal=from=a"]);
        await eventually(
          async () =>
            (await b.kubectl(["get", "configmap", "shared", "-o", "jsonpath={.data.from}"])).stdout === "a",
          "b sees a's write",
        );
        const crd = join(a.dir, "crd.yaml");
        await writeFile(
          crd,
          `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets, singular: gadget, listKind: GadgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`,
        );
        expect((await a.kubectl(["apply", "-f", crd])).code).toBe(0);
        // The other replica learns about the CRD from the store and serves it too.
        await eventually(async () => (await b.kubectl(["get", "gadgets"])).code === 0, "b serves the CRD");
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
});
