/**
 * The proxy's multi-cluster resourceVersion and continue token, in upstream karmada-search's
 * encoding so tokens are interchangeable: the JSON object `{"c1":"rv1","c2":"rv2"}` (clusters
 * sorted by name) in unpadded base64url. `"0"` means "any version" for every cluster and `""`
 * no clusters; a value that does not decode is read as empty, as upstream reads it.
 */

export class MultiClusterVersion {
  readonly #rvs: Map<string, string>;
  #zero: boolean;

  private constructor(rvs: Map<string, string>, zero: boolean) {
    this.#rvs = rvs;
    this.#zero = zero;
  }

  static empty(): MultiClusterVersion {
    return new MultiClusterVersion(new Map(), false);
  }

  static parse(text: string | undefined): MultiClusterVersion {
    if (!text) return MultiClusterVersion.empty();
    if (text === "0") return new MultiClusterVersion(new Map(), true);
    return new MultiClusterVersion(decodeRvs(text), false);
  }

  /** This cluster's own resourceVersion: "0" when the whole value was "0", "" when absent. */
  get(cluster: string): string {
    if (this.#zero) return "0";
    return this.#rvs.get(cluster) ?? "";
  }

  has(cluster: string): boolean {
    return this.#rvs.has(cluster);
  }

  set(cluster: string, rv: string): void {
    this.#rvs.set(cluster, rv);
    if (rv !== "0") this.#zero = false;
  }

  clone(): MultiClusterVersion {
    return new MultiClusterVersion(new Map(this.#rvs), this.#zero);
  }

  toString(): string {
    if (this.#zero && this.#rvs.size === 0) return "0";
    if (this.#rvs.size === 0) return "";
    return encodeRvs(this.#rvs);
  }
}

function encodeRvs(rvs: ReadonlyMap<string, string>): string {
  const sorted = [...rvs.keys()].sort();
  const json = `{${sorted.map((c) => `${JSON.stringify(c)}:${JSON.stringify(rvs.get(c))}`).join(",")}}`;
  return Buffer.from(json, "utf8").toString("base64url");
}

function decodeRvs(text: string): Map<string, string> {
  const rvs = new Map<string, string>();
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return rvs;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return rvs;
    for (const [cluster, rv] of Object.entries(parsed)) if (typeof rv === "string") rvs.set(cluster, rv);
  } catch {
    // Not ours: read as empty.
  }
  return rvs;
}

/** A member's own resourceVersion from one a proxy client holds (a multi-cluster one or the member's own). */
export function memberResourceVersion(cluster: string, rv: string): string {
  if (!rv || rv === "0" || !/^[A-Za-z0-9_-]+$/.test(rv)) return rv;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(rv, "base64url").toString("utf8"));
  } catch {
    return rv;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return rv;
  const own = (parsed as Record<string, unknown>)[cluster];
  return typeof own === "string" ? own : "";
}

/** Where a chunked list resumes: the page's versions, the cluster, and that cluster's own token. */
export interface MultiClusterContinue {
  rv: string;
  cluster: string;
  continue: string;
}

export function encodeContinue(c: MultiClusterContinue): string {
  if (!c.cluster) return "";
  const body: Record<string, string> = { rv: c.rv, cluster: c.cluster };
  if (c.continue) body.continue = c.continue;
  return Buffer.from(JSON.stringify(body), "utf8").toString("base64url");
}

/** The token, or undefined when it is not one of ours (the caller answers 400 as kube-apiserver does). */
export function decodeContinue(token: string): MultiClusterContinue | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    if (!parsed || typeof parsed !== "object") return undefined;
    const p = parsed as Record<string, unknown>;
    if (typeof p.cluster !== "string" || !p.cluster) return undefined;
    return {
      rv: typeof p.rv === "string" ? p.rv : "",
      cluster: p.cluster,
      continue: typeof p.continue === "string" ? p.continue : "",
    };
  } catch {
    return undefined;
  }
}
