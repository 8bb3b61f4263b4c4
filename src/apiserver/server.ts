/**
 * The API server's long-lived state: store, registry (built-ins, Karmada's kinds, CRDs
 * served as they come), admission, the in-process controllers Kubernetes runs in
 * kube-controller-manager that the API needs (garbage collector, namespace lifecycle, CRD
 * establishing/cleanup), and history compaction.
 */

import { createHash, randomUUID } from "node:crypto";
import { builtinKinds } from "../api/builtin/kinds.ts";
import { karmadaCrds, karmadaNativeKinds } from "../api/karmada/index.ts";
import type { StoredObject } from "../api/meta.ts";
import type { CustomResourceDefinition } from "../api/schema.ts";
import { LuaEngine } from "../interpreter/lua/engine.ts";
import { type Customizations, checkCustomizations } from "../interpreter/lua/operations.ts";
import { randomSuffix } from "../karmada/names.ts";
import { KARMADA_POLICY } from "../karmada/rbac.ts";
import { type Logger, silentLogger } from "../log.ts";
import { isAlreadyExists } from "../machinery/errors.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { exposition, type Registry as MetricsRegistry } from "../metrics/registry.ts";
import { jwtSigner, jwtVerifier } from "../pki/jws.ts";
import { type CertificateAndKey, publicKeyPemOf } from "../pki/x509.ts";
import type { Store, Watch } from "../storage/store.ts";
import { certificateSigningRequestAdmission } from "./admission/certificates.ts";
import { karmadaAdmission } from "./admission/karmada.ts";
import { rbacEscalationAdmission } from "./admission/rbac-escalation.ts";
import {
  DEFAULT_SERVICE_IP_OPTIONS,
  followServices,
  ServiceIpAllocator,
  serviceIpAdmission,
} from "./admission/service-ips.ts";
import {
  type AuthOutcome,
  type AuthRequest,
  createAuthenticator,
  type TokenAuthenticator,
} from "./authn/authenticator.ts";
import { bootstrapTokenAuthenticator } from "./authn/bootstrap-token.ts";
import { type IssuerDiscovery, renderIssuerDiscovery } from "./authn/issuer-discovery.ts";
import {
  type ServiceAccountLookup,
  type ServiceAccountTokenSettings,
  serviceAccountAuthenticator,
} from "./authn/service-account.ts";
import { tokenFileAuthenticator } from "./authn/token-file.ts";
import { rbacAuthorizer } from "./authz/authorizer.ts";
import { reconcileBootstrapPolicy } from "./authz/bootstrap-policy.ts";
import { followRbac, RbacIndex, type RbacResource } from "./authz/rbac.ts";
import { builtinResourceType, nativeResourceTypes } from "./builtin-types.ts";
import {
  type AdmissionPlugin,
  type Clock,
  requestContext,
  type ServerContext,
  type UserInfo,
} from "./context.ts";
import { startBootstrapTokenControllers } from "./controllers/bootstrap-tokens.ts";
import { startClusterRoleAggregationController } from "./controllers/clusterrole-aggregation.ts";
import { startCrdController } from "./controllers/crd.ts";
import { startCsrSigningController } from "./controllers/csr-signing.ts";
import { startGarbageCollector } from "./controllers/garbage-collector.ts";
import { startNamespaceController } from "./controllers/namespace.ts";
import { startServiceAccountTokenController } from "./controllers/service-account-token.ts";
import { crdResourceTypes } from "./crd-types.ts";
import { ApiHandler, type VersionInfo } from "./handler.ts";
import { type HealthCheck, type HealthEndpoint, PING } from "./healthz.ts";
import { apiserverMetrics, type RequestMetrics } from "./metrics.ts";
import { decodeStored } from "./objects.ts";
import { OpenApi } from "./openapi.ts";
import { Registry } from "./registry.ts";
import { storageKey, storagePrefix } from "./resource-type.ts";
import { listObjects } from "./verbs/read.ts";
import { DEFAULT_WATCH_SETTINGS, type WatchSettings } from "./verbs/watch.ts";
import { createObject, updateObject } from "./verbs/write.ts";

/** How requests are authenticated (kube-apiserver's flags in parentheses). */
export interface AuthenticationOptions {
  /** Client certificates verified by the TLS layer are accepted (`--client-ca-file`). */
  clientCertificates?: boolean;
  /** Static bearer tokens (`--token-auth-file`). */
  tokenFile?: ReadonlyMap<string, UserInfo>;
  /** Bootstrap tokens (`--enable-bootstrap-token-auth`). */
  bootstrapTokens?: boolean;
  /** Requests without credentials are `system:anonymous` (`--anonymous-auth`, default true). */
  anonymous?: boolean;
  /** Service-account tokens: issued with the signing key, checked with the public keys. */
  serviceAccounts?: {
    /** `--service-account-issuer` (the first one issues). */
    issuers: readonly string[];
    /** `--api-audiences` (default: the issuers). */
    audiences?: readonly string[];
    /** `--service-account-signing-key-file`. */
    signingKeyPem?: string;
    /** `--service-account-key-file` (the signing key's public half is always accepted too). */
    publicKeyPems?: readonly string[];
    /** `--service-account-max-token-expiration` in seconds (0: no limit). */
    maxExpirationSeconds?: number;
    /** `--service-account-jwks-uri` (default: `https://<external address>/openid/v1/jwks`). */
    jwksUri?: string;
  };
}

export interface ApiServerOptions {
  store: Store;
  /** `--authorization-mode`: RBAC (default; the default roles are created) or AlwaysAllow. */
  authorization?: "RBAC" | "AlwaysAllow";
  /** Authentication; without it, every HTTP request is system:admin (`--insecure`). */
  authentication?: AuthenticationOptions;
  /** The CA written as `ca.crt` into service-account token Secrets (what clients trust the server with). */
  rootCaPem?: string;
  /**
   * The CA that signs `kubernetes.io/kube-apiserver-client` CSRs (kube-controller-manager's
   * `--cluster-signing-cert-file`/`--cluster-signing-key-file`); without it nothing is signed.
   */
  signingCa?: CertificateAndKey;
  /** `--cluster-signing-duration` in ms (default one year). */
  signingDurationMs?: number;
  log?: Logger;
  clock?: Clock;
  admission?: AdmissionPlugin[];
  watch?: Partial<WatchSettings>;
  /** Run the in-process controllers (garbage collector, namespaces, CRDs). Default true. */
  controllers?: boolean;
  /** Install Karmada's CRDs (policy, work, config, ... groups). Default true. */
  karmada?: boolean;
  /** Karmada's policy finalizers on (Cluster)PropagationPolicy create; only with a policy controller. Default false. */
  policyFinalizers?: boolean;
  /**
   * The `tolerationSeconds` of the default not-ready / unreachable NoExecute tolerations that
   * (Cluster)PropagationPolicy admission adds (karmada-webhook's `--default-*-toleration-seconds`; 300 each).
   */
  defaultTolerationSeconds?: { notReady?: number; unreachable?: number };
  /** Compact history older than this many ms, every interval. Default 5 minutes; 0 disables. */
  compactionIntervalMs?: number;
  /** An extra `/readyz` check (e.g. a simulated member's "unhealthy" fault). */
  readyCheck?: HealthCheck;
  /** Where the API server's metrics go, and what `/metrics` serves (not served without it). */
  metrics?: MetricsRegistry;
}

const STORAGE_CHECK_TIMEOUT_MS = 2_000;

/** Where the server is in its life: its built-in state made (start-up done), or shutting down. */
interface Readiness {
  started: boolean;
  closing: boolean;
}

/**
 * The API server's health checks, named as kube-apiserver's: `ping`, `log`, its storage
 * (`etcd`, or the backend in use), the start-up hook that makes the built-in state (CRDs,
 * namespaces, RBAC roles), and for `/readyz` also `shutdown` and the caller's own check.
 */
function apiserverHealthChecks(
  store: Store,
  readiness: Readiness,
  extra: HealthCheck | undefined,
): Record<HealthEndpoint, HealthCheck[]> {
  const storage: HealthCheck = {
    name: store.backend === "etcd" ? "etcd" : store.backend,
    async check() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<string>((resolve) => {
        timer = setTimeout(
          () => resolve(`no answer within ${STORAGE_CHECK_TIMEOUT_MS} ms`),
          STORAGE_CHECK_TIMEOUT_MS,
        );
      });
      try {
        return await Promise.race([store.currentRevision().then(() => undefined), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
  const bootstrap: HealthCheck = {
    name: "poststarthook/karmada-bootstrap",
    check: () => (readiness.started ? undefined : "not finished"),
  };
  const shutdown: HealthCheck = {
    name: "shutdown",
    check: () => (readiness.closing ? "process is shutting down" : undefined),
  };
  const log: HealthCheck = { name: "log", check: () => undefined };
  const live = [PING, log, storage, bootstrap];
  return { healthz: live, livez: live, readyz: [...live, shutdown, ...(extra ? [extra] : [])] };
}

export const VERSION: VersionInfo = {
  major: "1",
  minor: "32",
  gitVersion: "v1.32.0-karmada-ts",
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
  buildDate: "2026-11-22T00:00:00Z",
  goVersion: "node",
  compiler: "tsc",
  platform: `${process.platform}/${process.arch}`,
};

const CRD_HASH_ANNOTATION = "karmada-ts.io/definition-hash";
const CRD_PREFIX = "/registry/apiextensions.k8s.io/customresourcedefinitions/";

export class ApiServer {
  readonly context: ServerContext;
  readonly handler: ApiHandler;
  readonly registry: Registry;
  /** Authenticates HTTP requests; undefined when the server was started without authentication. */
  authenticate?: (req: AuthRequest) => Promise<AuthOutcome>;
  /** The RBAC index (undefined with AlwaysAllow), for benchmarks and tests. */
  rbac?: RbacIndex;
  /** What the HTTP server measures requests with (undefined without a metrics registry). */
  requestMetrics?: RequestMetrics;
  #stoppers: Array<() => void | Promise<void>> = [];
  #readiness: Readiness;

  private constructor(context: ServerContext, handler: ApiHandler, readiness: Readiness) {
    this.context = context;
    this.handler = handler;
    this.registry = context.registry;
    this.#readiness = readiness;
  }

  static async start(opts: ApiServerOptions): Promise<ApiServer> {
    const registry = new Registry();
    for (const kind of builtinKinds) registry.add(builtinResourceType(kind));
    if (opts.karmada !== false) for (const rt of nativeResourceTypes(karmadaNativeKinds)) registry.add(rt);
    const context: ServerContext = {
      store: opts.store,
      registry,
      clock: opts.clock ?? { now: () => Date.now() },
      log: opts.log ?? silentLogger,
      newUid: () => randomUUID(),
      randomSuffix: () => randomSuffix(),
      admission: [],
    };
    const serviceIps = new ServiceIpAllocator(DEFAULT_SERVICE_IP_OPTIONS, () => context.clock.now());
    context.admission = [
      // What kube-apiserver's own storage does (always on), then the configurable admission.
      serviceIpAdmission(serviceIps),
      certificateSigningRequestAdmission(),
      ...(opts.admission ??
        (opts.karmada === false
          ? []
          : karmadaAdmission({
              newUid: context.newUid,
              now: () => context.clock.now(),
              // No policy controller runs yet to remove these finalizers; adding them would make
              // policies undeletable. Turned on when the controller manager lands.
              policyFinalizers: opts.policyFinalizers ?? false,
              ...(opts.defaultTolerationSeconds?.notReady !== undefined
                ? { defaultNotReadyTolerationSeconds: opts.defaultTolerationSeconds.notReady }
                : {}),
              ...(opts.defaultTolerationSeconds?.unreachable !== undefined
                ? { defaultUnreachableTolerationSeconds: opts.defaultTolerationSeconds.unreachable }
                : {}),
              checkLuaScripts: luaScriptChecker(),
              listResourceInterpreterCustomizations: async () => {
                const rt = registry.get("config.karmada.io", "v1alpha1", "resourceinterpretercustomizations");
                return rt ? (await listObjects(context, rt, undefined, {})).items : [];
              },
            }))),
    ];
    const authn = opts.authentication ? configureAuthentication(context, opts.authentication) : undefined;
    const readiness: Readiness = { started: false, closing: false };
    const metrics = opts.metrics;
    const handler = new ApiHandler(context, new OpenApi(registry), {
      version: VERSION,
      watch: { ...DEFAULT_WATCH_SETTINGS, ...opts.watch },
      health: apiserverHealthChecks(opts.store, readiness, opts.readyCheck),
      ...(metrics ? { metrics: () => exposition(metrics) } : {}),
    });
    const server = new ApiServer(context, handler, readiness);
    if (authn) server.authenticate = authn;
    if (metrics)
      server.requestMetrics = apiserverMetrics(metrics, { store: opts.store, types: () => registry.all() });
    const crdType = registry.get("apiextensions.k8s.io", "v1", "customresourcedefinitions")!;
    const requestMetrics = server.requestMetrics;
    context.afterWrite = (rt, obj, old) => {
      requestMetrics?.stored(rt, !old ? "create" : obj ? "update" : "delete");
      if (rt === crdType || rt.storage.resource === crdType.storage.resource) {
        const name = (obj ?? old)?.metadata.name;
        if (name) registry.setCrd(name, obj ? crdResourceTypes(obj) : []);
      }
    };
    const namespacesWatch = await followNamespaces(context);
    if (namespacesWatch) server.#stoppers.push(() => namespacesWatch.close());
    const servicesWatch = await followServices(context, serviceIps);
    if (servicesWatch) server.#stoppers.push(() => servicesWatch.close());
    await server.#loadCrds();
    if (opts.karmada !== false) await server.#installCrds(karmadaCrds);
    await server.#ensureNamespaces(opts.karmada !== false);
    if ((opts.authorization ?? "RBAC") === "RBAC") await server.#startRbac(opts.karmada !== false);
    if (opts.controllers !== false) {
      server.#stoppers.push(startCrdController(context));
      server.#stoppers.push(await startGarbageCollector(context));
      server.#stoppers.push(startNamespaceController(context));
      server.#stoppers.push(
        startServiceAccountTokenController(context, opts.rootCaPem ? { caData: opts.rootCaPem } : {}),
      );
      if (server.rbac) server.#stoppers.push(startClusterRoleAggregationController(context));
      server.#stoppers.push(startBootstrapTokenControllers(context));
      if (opts.signingCa) {
        server.#stoppers.push(
          startCsrSigningController(context, {
            ca: opts.signingCa,
            ...(opts.signingDurationMs ? { signingDurationMs: opts.signingDurationMs } : {}),
          }),
        );
      }
    }
    const interval = opts.compactionIntervalMs ?? 5 * 60_000;
    if (interval > 0) server.#startCompaction(interval);
    server.#startProgressNotices(
      Math.max(1000, (opts.watch?.bookmarkIntervalMs ?? DEFAULT_WATCH_SETTINGS.bookmarkIntervalMs) / 2),
    );
    readiness.started = true;
    return server;
  }

  /** Serves every CRD already stored, and keeps following CRD changes (other replicas write too). */
  async #loadCrds(): Promise<void> {
    const crdType = this.registry.get("apiextensions.k8s.io", "v1", "customresourcedefinitions")!;
    const { kvs, revision } = await this.context.store.list(storagePrefix(crdType));
    for (const kv of kvs) {
      const crd = decodeStored(crdType, kv);
      this.registry.setCrd(crd.metadata.name, crdResourceTypes(crd));
    }
    const watch: Watch = this.context.store.watch(CRD_PREFIX, revision, {
      onEvents: (events) => {
        for (const e of events) {
          const name = e.kv.key.slice(CRD_PREFIX.length);
          if (e.type === "delete") this.registry.setCrd(name, []);
          else this.registry.setCrd(name, crdResourceTypes(decodeStored(crdType, e.kv)));
        }
      },
      onError: (err) => this.context.log.error(err, "crd watch ended"),
    });
    this.#stoppers.push(() => watch.close());
  }

  /** Creates our built-in CRDs, or updates them when our definition changed since they were stored. */
  async #installCrds(defs: readonly CustomResourceDefinition[]): Promise<void> {
    const crdType = this.registry.get("apiextensions.k8s.io", "v1", "customresourcedefinitions")!;
    const ctx = requestContext();
    const opts = { dryRun: false, fieldValidation: "Ignore" as const, fieldManager: "karmada-ts" };
    for (const def of defs) {
      const hash = definitionHash(def);
      const body = cloneJson(def) as unknown as StoredObject;
      body.metadata.annotations = { ...body.metadata.annotations, [CRD_HASH_ANNOTATION]: hash };
      try {
        await createObject(this.context, ctx, crdType, undefined, body, opts);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        await updateObject(
          this.context,
          ctx,
          crdType,
          {
            namespace: undefined,
            name: def.metadata.name,
            subresource: undefined,
            preconditionFromObject: false,
            next: (cur) => {
              if (cur.metadata.annotations?.[CRD_HASH_ANNOTATION] === hash) return cur;
              return {
                ...cur,
                spec: cloneJson(def.spec),
                metadata: {
                  ...cur.metadata,
                  annotations: { ...cur.metadata.annotations, [CRD_HASH_ANNOTATION]: hash },
                },
              };
            },
          },
          opts,
        );
      }
    }
  }

  /**
   * RBAC: the default roles and bindings kube-apiserver bootstraps (and Karmada's), then the
   * index every request is authorized against, fed by store watches.
   */
  async #startRbac(karmada: boolean): Promise<void> {
    await reconcileBootstrapPolicy(this.context, karmada ? [KARMADA_POLICY] : []);
    const index = new RbacIndex();
    const prefixOf = (resource: RbacResource): string =>
      storagePrefix(this.registry.get("rbac.authorization.k8s.io", "v1", resource)!);
    this.#stoppers.push(await followRbac(this.context, index, prefixOf));
    this.rbac = index;
    const authorizer = rbacAuthorizer(index);
    this.context.authorizer = authorizer;
    this.context.admission.unshift(rbacEscalationAdmission(authorizer, index));
  }

  /** Keeps quiet watchers' revisions fresh, so their bookmarks let clients resume after compaction. */
  #startProgressNotices(intervalMs: number): void {
    const store = this.context.store;
    if (!store.notifyProgress) return;
    const timer = setInterval(() => store.notifyProgress?.(), intervalMs);
    timer.unref();
    this.#stoppers.push(() => clearInterval(timer));
  }

  #startCompaction(intervalMs: number): void {
    let previous = 0;
    const tick = async (): Promise<void> => {
      try {
        const current = await this.context.store.currentRevision();
        if (previous > 0) await this.context.store.compact(previous);
        previous = current;
      } catch (err) {
        this.context.log.error(err, "compaction failed");
      }
    };
    const timer = setInterval(() => void tick(), intervalMs);
    timer.unref();
    void tick();
    this.#stoppers.push(() => clearInterval(timer));
  }

  /**
   * The namespaces every cluster has; a Karmada control plane also has `karmada-system` (where
   * its components keep leader-election Leases) and `karmada-cluster` (member credentials).
   */
  async #ensureNamespaces(karmada: boolean): Promise<void> {
    const nsType = this.registry.get("", "v1", "namespaces")!;
    const opts = { dryRun: false, fieldValidation: "Ignore" as const, fieldManager: "karmada-ts" };
    const names = ["default", "kube-system", "kube-public", "kube-node-lease"];
    if (karmada) names.push("karmada-system", "karmada-cluster");
    for (const name of names) {
      try {
        await createObject(
          this.context,
          requestContext(),
          nsType,
          undefined,
          { apiVersion: "v1", kind: "Namespace", metadata: { name } },
          opts,
        );
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
  }

  async close(): Promise<void> {
    this.#readiness.closing = true;
    for (const stop of this.#stoppers.reverse()) await stop();
    this.#stoppers = [];
  }
}

/** Keeps `context.namespaces` current: every namespace now and every change after. */
async function followNamespaces(context: ServerContext): Promise<Watch | undefined> {
  const rt = context.registry.get("", "v1", "namespaces");
  if (!rt) return undefined;
  const states = new Map<string, "active" | "terminating">();
  const prefix = storagePrefix(rt);
  const stateOf = (value: string): "active" | "terminating" =>
    (JSON.parse(value) as StoredObject).metadata.deletionTimestamp ? "terminating" : "active";
  const { kvs, revision } = await context.store.list(prefix);
  for (const kv of kvs) states.set(kv.key.slice(prefix.length), stateOf(kv.value));
  context.namespaces = states;
  return context.store.watch(prefix, revision, {
    onEvents: (events) => {
      for (const e of events) {
        const name = e.kv.key.slice(prefix.length);
        if (e.type === "delete") states.delete(name);
        else states.set(name, stateOf(e.kv.value));
      }
    },
    onError: (err) => {
      // Without a live feed the cache would go stale: fall back to reading the store.
      delete context.namespaces;
      context.log.error(err, "namespace cache watch ended");
    },
  });
}

/**
 * Issuer discovery rendered at the first request once the external address is known (and
 * again if it changes); a reason it cannot be served is logged once.
 */
function issuerDiscoveryFor(
  context: ServerContext,
  issuer: string,
  jwksUri: string | undefined,
  publicKeyPems: readonly string[],
): () => IssuerDiscovery | undefined {
  let rendered: { address: string | undefined; discovery: IssuerDiscovery | undefined } | undefined;
  return () => {
    if (rendered?.address !== context.externalAddress || !rendered) {
      const result = renderIssuerDiscovery({
        issuer,
        publicKeyPems,
        ...(jwksUri ? { jwksUri } : {}),
        ...(context.externalAddress ? { externalAddress: context.externalAddress } : {}),
      });
      if ("error" in result) {
        context.log.warn(
          "could not construct the service account issuer discovery documents; the endpoints are not served",
          { err: result.error },
        );
      }
      rendered = { address: context.externalAddress, discovery: "error" in result ? undefined : result };
    }
    return rendered.discovery;
  };
}

/**
 * The authenticator chain for these options, with store lookups for service-account and
 * bootstrap tokens; also gives the context what TokenReview and TokenRequest need.
 */
function configureAuthentication(
  context: ServerContext,
  opts: AuthenticationOptions,
): (req: AuthRequest) => Promise<AuthOutcome> {
  const lookup: ServiceAccountLookup = {
    async get(resource, namespace, name) {
      const rt = context.registry.get("", "v1", resource)!;
      const { kv } = await context.store.get(storageKey(rt, namespace, name));
      return kv ? decodeStored(rt, kv) : undefined;
    },
  };
  const now = () => context.clock.now();
  const tokens: TokenAuthenticator[] = [];
  if (opts.tokenFile) tokens.push(tokenFileAuthenticator(opts.tokenFile));
  if (opts.bootstrapTokens) tokens.push(bootstrapTokenAuthenticator(lookup, now));
  const sa = opts.serviceAccounts;
  if (sa) {
    const publicKeys = [...(sa.publicKeyPems ?? [])];
    if (sa.signingKeyPem) publicKeys.push(publicKeyPemOf(sa.signingKeyPem));
    const settings: ServiceAccountTokenSettings = {
      issuers: sa.issuers,
      audiences: sa.audiences ?? sa.issuers,
      verifier: jwtVerifier(publicKeys),
      maxExpirationSeconds: sa.maxExpirationSeconds ?? 0,
      ...(sa.signingKeyPem ? { signer: jwtSigner(sa.signingKeyPem) } : {}),
    };
    context.serviceAccountTokens = settings;
    context.issuerDiscovery = issuerDiscoveryFor(context, sa.issuers[0] ?? "", sa.jwksUri, publicKeys);
    tokens.push(serviceAccountAuthenticator(settings, lookup, now));
  }
  const authenticator = createAuthenticator({
    clientCertificates: opts.clientCertificates ?? false,
    tokens,
    anonymous: opts.anonymous ?? true,
    ...(context.serviceAccountTokens ? { apiAudiences: context.serviceAccountTokens.audiences } : {}),
    now,
  });
  context.authenticateToken = (token, audiences) => authenticator.authenticateToken(token, audiences);
  return (req) => authenticator.authenticate(req);
}

function definitionHash(def: CustomResourceDefinition): string {
  return createHash("sha256").update(JSON.stringify(def.spec)).digest("hex").slice(0, 16);
}

/**
 * Admission's check of a customization's scripts, on a Lua engine made on first use (most API
 * servers never see a customization).
 */
function luaScriptChecker(): (ric: StoredObject) => Promise<string | undefined> {
  let engine: Promise<LuaEngine> | undefined;
  return async (ric) => {
    engine ??= LuaEngine.create();
    const spec = ric.spec as { customizations?: Customizations } | undefined;
    return checkCustomizations(await engine, spec?.customizations ?? {})[0];
  };
}
