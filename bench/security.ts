/**
 * Section 13, security:
 * - HTTPS creates per second over plain HTTP on the same API server (SQLite store): one
 *   server, two listeners (plain, and TLS with client-certificate authentication), the same
 *   creates through each, alternating, best round of each (goal ≥ 0.8).
 * - Per-request authorization cost with many RoleBindings: the RBAC authorizer asked about
 *   random requests of users bound in random namespaces, timed call by call, with 100, 1,000
 *   and 10,000 RoleBindings (goal: p99 under 1 ms, flat as bindings grow).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NewObject } from "../src/api/meta.ts";
import { rbacAuthorizer } from "../src/apiserver/authz/authorizer.ts";
import { KUBERNETES_POLICY, roleObject } from "../src/apiserver/authz/bootstrap-policy.ts";
import { RbacIndex } from "../src/apiserver/authz/rbac.ts";
import type { Attributes } from "../src/apiserver/authz/rules.ts";
import { startHttpServer } from "../src/apiserver/http.ts";
import { secureServingFrom } from "../src/apiserver/secure-serving.ts";
import { ApiServer } from "../src/apiserver/server.ts";
import { silentLogger } from "../src/log.ts";
import { createClusterPki } from "../src/pki/cluster-pki.ts";
import { openStore } from "../src/storage/open.ts";
import { configMap, handle, LoadClient, name } from "./load.ts";
import { fmt, percentile, type Row } from "./table.ts";

export interface SecurityConfig {
  /** Creates per round, per listener. */
  apiCreates: number;
  concurrency: number;
  /** The largest number of RoleBindings in the authorization measurement (0: skipped). */
  rbacBindings: number;
}

const TLS_RATIO_GOAL = 0.8;
const AUTHZ_P99_GOAL_MS = 1;
const ROUNDS = 2;
const AUTHZ_SAMPLES = 20_000;

async function tlsOverPlain(cfg: SecurityConfig, row: Row): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "karmada-bench-tls-"));
  const pki = await createClusterPki({ caName: "bench" });
  const serving = secureServingFrom(pki);
  const store = await openStore(`sqlite://${join(dir, "tls.db")}`);
  const api = await ApiServer.start({ store, log: silentLogger, compactionIntervalMs: 0, ...serving.api });
  const plain = await startHttpServer(api.handler, { host: "127.0.0.1", port: 0, log: silentLogger });
  const secure = await startHttpServer(api.handler, {
    host: "127.0.0.1",
    port: 0,
    log: silentLogger,
    tls: serving.tls,
    authenticate: api.authenticate!,
  });
  const plainClient = new LoadClient({ host: "127.0.0.1", port: plain.port }, cfg.concurrency);
  const tlsClient = new LoadClient(
    {
      host: "127.0.0.1",
      port: secure.port,
      tls: { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem },
    },
    cfg.concurrency,
  );
  try {
    const ns = "bench-tls";
    await handle(api.handler, "POST", "/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: ns },
    });
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const bodies = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => JSON.stringify(configMap(name(prefix, i), i)));
    const warm = Math.min(300, cfg.apiCreates);
    await plainClient.create(path, bodies("warm-plain", warm));
    await tlsClient.create(path, bodies("warm-tls", warm));
    let bestPlain = 0;
    let bestTls = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const plainMs = await plainClient.create(path, bodies(`plain${round}`, cfg.apiCreates));
      bestPlain = Math.max(bestPlain, (cfg.apiCreates * 1000) / plainMs);
      const tlsMs = await tlsClient.create(path, bodies(`tls${round}`, cfg.apiCreates));
      bestTls = Math.max(bestTls, (cfg.apiCreates * 1000) / tlsMs);
    }
    const ratio = bestTls / bestPlain;
    row(
      "13 security",
      "sqlite",
      `HTTP creates, ${cfg.concurrency} keep-alive clients`,
      `${fmt(bestPlain)} /s`,
      "plain listener, nobody authenticated",
    );
    row(
      "13 security",
      "sqlite",
      `HTTPS creates, ${cfg.concurrency} keep-alive clients`,
      `${fmt(bestTls)} /s`,
      `same server, TLS + client certificate; ${fmt(ratio, 2)} x HTTP (goal >= ${TLS_RATIO_GOAL}: ${ratio >= TLS_RATIO_GOAL ? "met" : "NOT met"}); best of ${ROUNDS} rounds each`,
    );
  } finally {
    await plainClient.close();
    await tlsClient.close();
    await plain.close();
    await secure.close();
    await api.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** An index with `bindings` RoleBindings: ten per namespace, each giving one user a role there. */
function populatedIndex(bindings: number): { index: RbacIndex; users: number; namespaces: number } {
  const index = new RbacIndex();
  for (const spec of KUBERNETES_POLICY.roles)
    index.setClusterRole(spec.name, roleObject(spec, KUBERNETES_POLICY));
  const editRules = KUBERNETES_POLICY.roles.find((r) => r.name === "system:aggregate-to-edit")!.rules;
  index.setClusterRole("edit", roleObject({ name: "edit", rules: editRules }, KUBERNETES_POLICY));
  const namespaces = Math.max(1, Math.floor(bindings / 10));
  const users = Math.max(10, Math.floor(bindings / 5));
  for (let b = 0; b < bindings; b++) {
    const ns = `ns-${b % namespaces}`;
    if (b < namespaces) {
      index.setRole(`${ns}/reader`, {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name: "reader", namespace: ns },
        rules: [{ apiGroups: [""], resources: ["configmaps", "pods"], verbs: ["get", "list", "watch"] }],
      } as NewObject);
    }
    const role = b % 3 === 0 ? { kind: "ClusterRole", name: "edit" } : { kind: "Role", name: "reader" };
    index.setRoleBinding(`${ns}/rb-${b}`, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: `rb-${b}`, namespace: ns },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", ...role },
      subjects: [
        { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: `user-${b % users}` },
        { kind: "ServiceAccount", name: `sa-${b % 7}`, namespace: ns },
      ],
    } as NewObject);
  }
  for (const spec of KUBERNETES_POLICY.bindings) {
    index.setClusterRoleBinding(spec.name, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: spec.name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", ...spec.role },
      subjects: spec.subjects.map((s) => ({ ...s })),
    } as NewObject);
  }
  return { index, users, namespaces };
}

/** p50/p99/max (ms) of one authorization call over random requests. */
function authorizationCost(bindings: number): { p50: number; p99: number; max: number; allowed: number } {
  const { index, users, namespaces } = populatedIndex(bindings);
  const authorizer = rbacAuthorizer(index);
  // mulberry32: a seeded generator whose low bits are as random as its high ones.
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n) | 0;
  };
  const verbs = ["get", "list", "watch", "create", "update", "delete"];
  const resources = [
    ["", "configmaps"],
    ["", "pods"],
    ["", "secrets"],
    ["apps", "deployments"],
  ] as const;
  const samples = new Float64Array(AUTHZ_SAMPLES);
  let allowed = 0;
  for (let i = 0; i < AUTHZ_SAMPLES + 2_000; i++) {
    const [apiGroup, resource] = resources[rand(resources.length)]!;
    // Half the requests come from a user where one of its bindings is, half from anywhere: the
    // mix of allowed and denied stays alike whatever the number of bindings.
    const b = rand(bindings);
    const bound = rand(2) === 0;
    const attrs: Attributes = {
      kind: "resource",
      user: { name: `user-${bound ? b % users : rand(users)}`, groups: ["devs", "system:authenticated"] },
      verb: verbs[rand(verbs.length)]!,
      apiGroup,
      resource,
      subresource: "",
      namespace: `ns-${bound ? b % namespaces : rand(namespaces)}`,
      name: "",
    };
    const start = process.hrtime.bigint();
    const d = authorizer.authorize(attrs);
    const ns = Number(process.hrtime.bigint() - start);
    // The first 2,000 calls warm the code up and are not counted.
    if (i >= 2_000) {
      samples[i - 2_000] = ns / 1e6;
      if (d.allowed) allowed++;
    }
  }
  samples.sort();
  return {
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    max: samples[samples.length - 1]!,
    allowed,
  };
}

function authorizationBench(cfg: SecurityConfig, row: Row): void {
  const sizes = [100, 1_000, cfg.rbacBindings].filter(
    (n, i, all) => n <= cfg.rbacBindings && all.indexOf(n) === i,
  );
  const results = sizes.map((n) => ({ n, ...authorizationCost(n) }));
  const smallest = results[0]!;
  for (const r of results) {
    const goal = r.p99 < AUTHZ_P99_GOAL_MS ? "met" : "NOT met";
    const flat =
      r === smallest ? "" : `; p99 ${fmt(r.p99 / smallest.p99, 2)} x the ${fmt(smallest.n)}-binding p99`;
    row(
      "13 security",
      "rbac",
      `authorize, ${fmt(r.n)} RoleBindings`,
      `p99 ${fmt(r.p99 * 1000, 1)} µs`,
      `p50 ${fmt(r.p50 * 1000, 1)} µs, max ${fmt(r.max * 1000, 1)} µs over ${fmt(AUTHZ_SAMPLES)} random requests (${fmt((100 * r.allowed) / AUTHZ_SAMPLES)}% allowed); goal p99 < ${AUTHZ_P99_GOAL_MS} ms: ${goal}${flat}`,
    );
  }
}

export async function securityBench(cfg: SecurityConfig, row: Row): Promise<number> {
  let failures = 0;
  try {
    await tlsOverPlain(cfg, row);
  } catch (err) {
    failures++;
    row("13 security", "sqlite", "HTTPS over HTTP failed", "-", (err as Error).message);
  }
  if (cfg.rbacBindings > 0) {
    try {
      authorizationBench(cfg, row);
    } catch (err) {
      failures++;
      row("13 security", "rbac", "authorization failed", "-", (err as Error).message);
    }
  }
  return failures;
}
