/**
 * Several `karmada apiserver`s on one etcd serve one API (issue H §2): what one writes, the
 * others read, list and watch within moments, CRDs included (served kinds, discovery,
 * OpenAPI); service-account tokens one issues are valid on all; the controllers inside the
 * API server act once however many replicas run.
 */
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { secureServingFrom } from "../../src/apiserver/secure-serving.ts";
import { type RunningControlPlane, startControlPlane } from "../../src/bin/control-plane.ts";
import { RESOURCES, type ResourceRef, type WatchEvent } from "../../src/client/client.ts";
import { HttpClient } from "../../src/client/http.ts";
import { silentLogger } from "../../src/log.ts";
import { type ClusterPki, createClusterPki } from "../../src/pki/cluster-pki.ts";
import { ETCD_BINARY, type LocalEtcd, startLocalEtcd } from "../../src/storage/etcd/local-etcd.ts";
import { eventually } from "../support/kubectl.ts";

const CRONTABS: ResourceRef = {
  group: "stable.example.com",
  version: "v1",
  resource: "crontabs",
  namespaced: true,
  kind: "CronTab",
};

describe.skipIf(!existsSync(ETCD_BINARY))("API servers on one etcd", { timeout: 120_000 }, () => {
  let etcd: LocalEtcd;
  let pki: ClusterPki;
  const servers: RunningControlPlane[] = [];
  const clients: HttpClient[] = [];

  beforeAll(async () => {
    etcd = await startLocalEtcd();
    pki = await createClusterPki({ caName: "karmada" });
    for (let i = 0; i < 3; i++) {
      const cp = await startControlPlane({
        storage: `etcd://${etcd.endpoint}?prefix=/ha`,
        host: "127.0.0.1",
        port: 0,
        log: silentLogger,
        security: secureServingFrom(pki, { bootstrapTokens: true }),
        admin: pki.admin,
      });
      servers.push(cp);
      clients.push(new HttpClient({ ...cp.connection, timeoutMs: 10_000 }));
    }
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) c.close();
    for (const s of servers) await s.stop();
    await etcd?.destroy();
  });

  it("read, list and watch through one what another wrote", async () => {
    const [a, b, c] = clients as [HttpClient, HttpClient, HttpClient];
    const events: WatchEvent[] = [];
    const list = await c.list(RESOURCES.configmaps, "default");
    const watch = c.watch(
      RESOURCES.configmaps,
      "default",
      { resourceVersion: list.metadata.resourceVersion! },
      (e) => events.push(e),
    );
    try {
      await a.create(RESOURCES.configmaps, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { namespace: "default", name: "shared" },
        data: { v: "1" },
      });
      expect((await b.get(RESOURCES.configmaps, "default", "shared")).data).toEqual({ v: "1" });
      expect((await b.list(RESOURCES.configmaps, "default")).items.map((i) => i.metadata.name)).toContain(
        "shared",
      );
      await eventually(
        async () =>
          events.some(
            (e) =>
              e.type === "ADDED" && (e.object as { metadata: { name: string } }).metadata.name === "shared",
          ),
        "the watch event on another server",
      );
    } finally {
      watch.stop();
    }
  });

  it("serve a CRD created through another, with discovery and OpenAPI", async () => {
    const [a, b] = clients as [HttpClient, HttpClient];
    await a.create(RESOURCES.customresourcedefinitions, {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "crontabs.stable.example.com" },
      spec: {
        group: "stable.example.com",
        scope: "Namespaced",
        names: { plural: "crontabs", singular: "crontab", kind: "CronTab", listKind: "CronTabList" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: { spec: { type: "object", properties: { cronSpec: { type: "string" } } } },
              },
            },
          },
        ],
      },
    });
    const created = await eventually(
      async () =>
        b.create(CRONTABS, {
          apiVersion: "stable.example.com/v1",
          kind: "CronTab",
          metadata: { namespace: "default", name: "every-minute" },
          spec: { cronSpec: "* * * * *" },
        }),
      "the CRD's kind served by another server",
      100,
    );
    expect(created.metadata.name).toBe("every-minute");
    const discovery = await b.getRaw("/apis/stable.example.com/v1");
    expect(discovery.status).toBe(200);
    expect(discovery.body).toContain('"crontabs"');
    const openapi = await b.getRaw("/openapi/v3/apis/stable.example.com/v1");
    expect(openapi.status).toBe(200);
  });

  it("accept on every server a service-account token issued by one", async () => {
    const [a, , c] = clients as [HttpClient, HttpClient, HttpClient];
    await a.create(RESOURCES.serviceaccounts, {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { namespace: "default", name: "robot" },
    });
    const request = await a.raw("POST", "/api/v1/namespaces/default/serviceaccounts/robot/token", {
      body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} },
    });
    expect(request.status).toBe(201);
    const token = (JSON.parse(request.body) as { status: { token: string } }).status.token;
    const asRobot = new HttpClient({ server: servers[2]!.url, caData: pki.ca.certPem, token });
    try {
      const review = await asRobot.raw("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
        body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
      });
      expect(review.status).toBe(201);
      expect(review.body).toContain("system:serviceaccount:default:robot");
    } finally {
      asRobot.close();
    }
    void c;
  });

  it("finish deleting a namespace and collect garbage once, whichever server took the request", async () => {
    const [a, b] = clients as [HttpClient, HttpClient];
    await a.create(RESOURCES.namespaces, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "doomed" },
    });
    const owner = await a.create(RESOURCES.configmaps, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { namespace: "default", name: "owner" },
    });
    await b.create(RESOURCES.configmaps, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        namespace: "default",
        name: "dependent",
        ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata.uid }],
      },
    });
    await b.create(RESOURCES.configmaps, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { namespace: "doomed", name: "inside" },
    });
    await b.delete(RESOURCES.namespaces, undefined, "doomed");
    await a.delete(RESOURCES.configmaps, "default", "owner");
    await eventually(
      async () => {
        try {
          await a.get(RESOURCES.namespaces, undefined, "doomed");
          return false;
        } catch {
          return true;
        }
      },
      "the namespace gone",
      200,
    );
    await eventually(
      async () => {
        try {
          await b.get(RESOURCES.configmaps, "default", "dependent");
          return false;
        } catch {
          return true;
        }
      },
      "the dependent collected",
      200,
    );
  });
});
