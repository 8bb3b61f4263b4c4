/**
 * A `karmada up` fleet for end-to-end tests: control plane, scheduler and simulated members
 * (member3 Pull), with status collected every 300 ms so that changes show quickly; in its own
 * temporary directory, removed again by `stop()`.
 */
import { createWriteStream } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { type RunningUp, runUp } from "../../src/bin/up.ts";
import type { ControllerOptions } from "../../src/controllers/context.ts";
import { createLogger, silentLogger } from "../../src/log.ts";
import type { FeatureGates } from "../../src/runtime/features.ts";
import { contextKubectl, type KubectlResult } from "./kubectl.ts";

const BIN = fileURLToPath(new URL("../../bin/karmada", import.meta.url));

export interface TestFleet {
  up: RunningUp;
  /** The temporary directory (HOME for the CLIs run against the fleet). */
  dir: string;
  stop(): Promise<void>;
}

export async function startTestFleet(
  name: string,
  members: number,
  opts: {
    features?: FeatureGates;
    controllerOptions?: Partial<ControllerOptions>;
    memberStages?: string;
    /** A data directory to start from (copied): a fleet written by an earlier release. */
    seed?: string;
    /** Start `up`'s web dashboard too (on a free loopback port). */
    dashboard?: boolean;
  } = {},
): Promise<TestFleet> {
  const dir = await mkdtemp(join(tmpdir(), `karmada-ts-${name}-`));
  try {
    if (opts.seed) await cp(opts.seed, join(dir, "data"), { recursive: true });
    const up = await runUp(
      {
        dataDir: join(dir, "data"),
        port: 0,
        members,
        memberCommand: [process.execPath, BIN],
        ...(opts.memberStages ? { memberStages: opts.memberStages } : {}),
        ...(opts.dashboard ? { dashboard: { port: 0 } } : {}),
        controllerOptions: {
          clusterStatusUpdateFrequencyMs: 300,
          clusterSuccessThresholdMs: 300,
          clusterFailureThresholdMs: 5_000,
          ...opts.controllerOptions,
          ...(opts.features ? { features: opts.features } : {}),
        },
        // FLEET_LOG=<file> keeps the fleet's debug log there, for a test that fails now and then.
        log: process.env.FLEET_LOG
          ? createLogger({ level: "debug", sink: createWriteStream(process.env.FLEET_LOG, { flags: "a" }) })
          : silentLogger,
      },
      { stdout: { write: () => true }, stderr: { write: () => true } },
    );
    return {
      up,
      dir,
      async stop() {
        await up.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * kubectl against a fleet's contexts, plus what every fleet test uses: `cp` for the control
 * plane, `ok` (exit 0 and nothing on stderr, or the test fails; gives stdout) and `getJson`
 * (`-o json` of a kubectl command, undefined when it fails).
 */
export function fleetKubectl<T>(fleet: () => TestFleet) {
  const kubectl = contextKubectl(
    () => fleet().up.kubeconfig,
    () => fleet().dir,
  );
  const cp = (args: string[], stdin?: string) => kubectl("karmada-apiserver", args, stdin);
  const ok = async (r: Promise<KubectlResult>): Promise<string> => {
    const res = await r;
    expect(res.stderr, res.stderr).toBe("");
    expect(res.code).toBe(0);
    return res.stdout;
  };
  const getJson = async (context: string, args: string[]): Promise<T | undefined> => {
    const r = await kubectl(context, [...args, "-o", "json"]);
    return r.code === 0 ? (JSON.parse(r.stdout) as T) : undefined;
  };
  return { kubectl, cp, ok, getJson };
}
