/**
 * Authentication and authorization delegated to an API server, as Kubernetes components guard
 * their own HTTPS endpoints (k8s.io/apiserver's delegating authenticator and authorizer, and
 * controller-runtime's secure metrics filter): a bearer token is checked with a TokenReview, a
 * client certificate against `--client-ca-file` when one is given, and the user must be allowed
 * the request by a SubjectAccessReview (for `/metrics`: `get` on that non-resource URL, which
 * the `system:monitoring` ClusterRole grants). Answers are cached for ten seconds, allowed and
 * denied alike (upstream's defaults), so a scrape every few seconds costs the API server little.
 */
import { createHash } from "node:crypto";
import { isObject } from "../api/meta.ts";
import type { Client } from "../client/client.ts";
import { RESOURCES } from "../client/client.ts";

export interface DelegatedUser {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** Allowed; refused as unauthenticated (401); or refused to this user (403). */
export type Verdict = { user: DelegatedUser; allowed: boolean } | { user: undefined };

const CACHE_TTL_MS = 10_000;
const MAX_CACHED = 1024;

class TtlCache<V> {
  #entries = new Map<string, { value: V; until: number }>();
  #now: () => number;
  constructor(now: () => number) {
    this.#now = now;
  }
  get(key: string): V | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    if (e.until <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return e.value;
  }
  set(key: string, value: V): void {
    if (this.#entries.size >= MAX_CACHED) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { value, until: this.#now() + CACHE_TTL_MS });
  }
}

export interface DelegatedAuth {
  /** Who sent a request with these credentials, and whether they may `get` `path`. */
  check(
    credentials: { token?: string; certificate?: { commonName: string; organizations: string[] } },
    path: string,
  ): Promise<Verdict>;
}

export function delegatedAuth(client: Pick<Client, "create">, now: () => number = Date.now): DelegatedAuth {
  const tokens = new TtlCache<DelegatedUser | null>(now);
  const decisions = new TtlCache<boolean>(now);

  async function reviewToken(token: string): Promise<DelegatedUser | undefined> {
    const key = createHash("sha256").update(token).digest("hex");
    const cached = tokens.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const review = await client.create(RESOURCES.tokenreviews, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenReview",
      spec: { token },
    });
    const status = isObject(review.status) ? review.status : {};
    const u = isObject(status.user) ? status.user : {};
    const user: DelegatedUser | undefined =
      status.authenticated === true && typeof u.username === "string"
        ? {
            name: u.username,
            ...(typeof u.uid === "string" ? { uid: u.uid } : {}),
            groups: Array.isArray(u.groups) ? u.groups.map(String) : [],
            ...(isObject(u.extra) ? { extra: u.extra as Record<string, string[]> } : {}),
          }
        : undefined;
    tokens.set(key, user ?? null);
    return user;
  }

  async function allowed(user: DelegatedUser, path: string): Promise<boolean> {
    const key = JSON.stringify([user.name, user.uid, user.groups, user.extra, path]);
    const cached = decisions.get(key);
    if (cached !== undefined) return cached;
    const review = await client.create(RESOURCES.subjectaccessreviews, {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      spec: {
        user: user.name,
        groups: user.groups,
        ...(user.uid ? { uid: user.uid } : {}),
        ...(user.extra ? { extra: user.extra } : {}),
        nonResourceAttributes: { path, verb: "get" },
      },
    });
    const ok = isObject(review.status) && review.status.allowed === true;
    decisions.set(key, ok);
    return ok;
  }

  return {
    async check(credentials, path) {
      let user: DelegatedUser | undefined;
      if (credentials.token) user = await reviewToken(credentials.token);
      else if (credentials.certificate)
        user = { name: credentials.certificate.commonName, groups: credentials.certificate.organizations };
      if (!user) return { user: undefined };
      return { user, allowed: await allowed(user, path) };
    },
  };
}
