/**
 * What every verb needs: the server's long-lived parts (ServerContext) and the caller's
 * request (RequestContext, with the user from day one so authorization can slot in).
 */

import type { Operation } from "../api/admission.ts";
import type { StoredObject } from "../api/meta.ts";
import type { Logger } from "../log.ts";
import type { FieldError } from "../machinery/errors.ts";
import type { Store } from "../storage/store.ts";
import type { AuthOutcome } from "./authn/authenticator.ts";
import type { IssuerDiscovery } from "./authn/issuer-discovery.ts";
import type { ServiceAccountTokenSettings } from "./authn/service-account.ts";
import type { Authorizer } from "./authz/authorizer.ts";
import type { Registry } from "./registry.ts";
import type { ResourceType } from "./resource-type.ts";

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface RequestContext {
  user: UserInfo;
  /** The User-Agent, for the default field manager. */
  userAgent?: string;
  /** Warnings to return as `Warning: 299 - "..."` headers. */
  warnings: string[];
  signal?: AbortSignal;
}

/**
 * Admission in process: what Karmada's webhooks and Kubernetes' admission plugins do.
 * Mutators run before validation; validators return field errors (422) or throw an ApiError.
 * Like webhooks registered for a resource (not its `/status`), plugins don't see status writes.
 */
export interface AdmissionPlugin {
  name: string;
  handles(rt: ResourceType): boolean;
  mutate?(
    obj: StoredObject,
    old: StoredObject | undefined,
    op: Operation,
    ctx: RequestContext,
  ): void | Promise<void>;
  validate?(
    obj: StoredObject,
    old: StoredObject | undefined,
    op: Operation,
    ctx: RequestContext,
  ): FieldError[] | Promise<FieldError[]>;
  /** Runs before a delete takes effect; throws an ApiError to refuse it. */
  validateDelete?(obj: StoredObject, ctx: RequestContext): void | Promise<void>;
}

export interface Clock {
  now(): number;
}

/** One line of a container's log, with the time the container runtime recorded it (ms). */
export interface LogLine {
  time: number;
  /** The line without its newline. */
  text: string;
}

/** The log of one container instance, as the pod's kubelet reads it. */
export interface ContainerLog {
  /** Which instance (its container id): following stops when the container's instance changes. */
  instance: string;
  /** What it wrote so far, oldest first. */
  lines: LogLine[];
  /** Whether it still runs: only then does `follow` wait for more lines. */
  running: boolean;
}

/**
 * Where `pods/log` reads from: kube-apiserver proxies the request to the kubelet of the pod's
 * node, so only a server with (simulated) kubelets has one. Pure functions of the pod as
 * stored, so the API server can poll them while following.
 */
export interface PodLogSource {
  /** How often a running container writes a new line (what `follow` waits for), in ms. */
  readonly followIntervalMs: number;
  /**
   * The log of `container` (of its previous instance with `previous`); throws an ApiError with
   * the kubelet's answer (400) when there is none to read (waiting to start, no previous one).
   */
  read(pod: StoredObject, container: string, previous: boolean): ContainerLog;
  /** The `n`-th line (1, 2, ...) a running container writes after what `read` returned, at `time`. */
  next(pod: StoredObject, container: string, n: number, time: number): LogLine;
}

export interface ServerContext {
  store: Store;
  registry: Registry;
  clock: Clock;
  log: Logger;
  newUid(): string;
  /** Five characters for `generateName` suffixes. */
  randomSuffix(): string;
  admission: AdmissionPlugin[];
  /** What the server last saw of each namespace, for NamespaceLifecycle checks without a store read. */
  namespaces?: ReadonlyMap<string, "active" | "terminating">;
  /** Who may do what; undefined: everyone may do everything (`--authorization-mode=AlwaysAllow`). */
  authorizer?: Authorizer;
  /** Bearer-token authentication, for TokenReview; undefined: tokens are not authenticated. */
  authenticateToken?(token: string, audiences?: readonly string[]): Promise<AuthOutcome>;
  /** Issuing service-account tokens (TokenRequest, token Secrets); undefined: opaque random tokens. */
  serviceAccountTokens?: ServiceAccountTokenSettings;
  /**
   * `host:port` clients outside reach this server at (the advertise address and the secure
   * port), once it listens; the default JWKS URI of issuer discovery is made from it.
   */
  externalAddress?: string;
  /** Service account issuer discovery documents; undefined: the endpoints are not served. */
  issuerDiscovery?(): IssuerDiscovery | undefined;
  /** Containers' logs as the pods' kubelets serve them; undefined: no kubelets (the control plane). */
  podLogs?: PodLogSource;
  /** Called after an object was written (for in-process reactions such as CRD registration). */
  afterWrite?(rt: ResourceType, obj: StoredObject | undefined, old: StoredObject | undefined): void;
}

export const SYSTEM_ADMIN: UserInfo = {
  name: "system:admin",
  groups: ["system:masters", "system:authenticated"],
};

export function requestContext(
  user: UserInfo = SYSTEM_ADMIN,
  extra: Partial<RequestContext> = {},
): RequestContext {
  return { user, warnings: [], ...extra };
}
