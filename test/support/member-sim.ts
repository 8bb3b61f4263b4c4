/**
 * For tests of the simulator: fast timings, a settable clock, bounded polling, and small
 * object builders.
 */
import type { KubeObject, StoredObject } from "../../src/api/meta.ts";
import type { Timing } from "../../src/member-sim/context.ts";

/** Timings that keep tests quick (milliseconds). */
export const FAST: Partial<Timing> = {
  podStartMs: 10,
  podDeleteMs: 5,
  jobPodRunMs: 40,
  crashLoopMs: 100,
  leaseRenewMs: 100,
  nodeStatusMs: 200,
  syncPeriodMs: 20,
  evictionMs: 100,
};

/** A clock tests move by hand. */
export class TestClock {
  t: number;
  constructor(start: string | number) {
    this.t = typeof start === "string" ? Date.parse(start) : start;
  }
  now(): number {
    return this.t;
  }
  set(at: string): void {
    this.t = Date.parse(at);
  }
}

/** Polls `check` until it returns a truthy value (every 10 ms, at most `ms`); returns it. */
export async function until<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function deploymentObject(
  name: string,
  namespace: string,
  opts: {
    replicas?: number;
    image?: string;
    spec?: Record<string, unknown>;
    pod?: Record<string, unknown>;
    labels?: Record<string, string>;
  } = {},
): KubeObject {
  const labels = opts.labels ?? { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace },
    spec: {
      replicas: opts.replicas ?? 3,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: "app", image: opts.image ?? "nginx:1.25" }], ...opts.pod },
      },
      ...opts.spec,
    },
  };
}

export function podObject(name: string, namespace: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace },
    spec: { containers: [{ name: "app", image: "nginx:1.25" }], ...spec },
  };
}

export function conditionOf(
  obj: StoredObject | undefined,
  type: string,
): Record<string, unknown> | undefined {
  const conditions = ((obj?.status ?? {}) as { conditions?: Array<Record<string, unknown>> }).conditions;
  return conditions?.find((c) => c.type === type);
}
