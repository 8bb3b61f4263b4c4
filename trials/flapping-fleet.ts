/**
 * The fleet of the flapping and partition trials: `karmada up` as a user runs it (the control
 * plane in this process on SQLite, its controller manager and scheduler under their own
 * identities; member1 and member2 joined in Push mode and member3 registered in Pull mode,
 * each a `karmada member-sim` process with its own CA; member3's agent in this process with
 * the credentials registration left in the member), all over real TLS. Faults are set through
 * each member's admin endpoint, and its `/metrics` counts the API calls it served.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningUp, runUp } from "../src/bin/up.ts";
import type { HttpClient } from "../src/client/http.ts";
import { httpClientFor, loadKubeconfig } from "../src/client/kubeconfig.ts";
import type { ControllerOptions } from "../src/controllers/context.ts";
import { silentLogger } from "../src/log.ts";
import { sendFault } from "../src/member-sim/fault-client.ts";
import { ADMIN_USER } from "../src/pki/cluster-pki.ts";
import { UP_FEATURE_GATES } from "../src/runtime/features.ts";

const KARMADA_BIN = fileURLToPath(new URL("../bin/karmada", import.meta.url));
export const MEMBERS = ["member1", "member2", "member3"] as const;
export type MemberName = (typeof MEMBERS)[number];
/** Who the members' admin kubeconfigs (and member3's agent, in `up`) authenticate as. */
export const MEMBER_ADMIN_USER = ADMIN_USER;
const CLIENT_TIMEOUT_MS = 15_000;

export interface FlappingFleet {
  up: RunningUp;
  /** The control plane as its administrator. */
  admin: HttpClient;
  /** Each member as its administrator: the trial's eyes, and the hand that sets faults. */
  members: Record<MemberName, HttpClient>;
  setFault(member: MemberName, fault: Record<string, unknown>): Promise<void>;
  restore(member: MemberName): Promise<void>;
  /** The API requests the member served so far (the sum of its `apiserver_request_total`). */
  apiCalls(member: MemberName): Promise<number>;
  /**
   * The requests this process's clients (the control plane's, and member3's agent's) sent the
   * member so far, and how many got no HTTP answer (`rest_client_requests_total`).
   */
  clientCalls(member: MemberName): Promise<{ sent: number; unanswered: number }>;
  stop(): Promise<void>;
}

/** The sum of a Prometheus counter family's samples in a text exposition (those with these labels). */
export function sumCounter(exposition: string, family: string, labels: Record<string, string> = {}): number {
  let total = 0;
  const wanted = Object.entries(labels).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  for (const line of exposition.split("\n")) {
    if (!line.startsWith(family)) continue;
    const rest = line.slice(family.length);
    if (rest[0] !== "{" && rest[0] !== " ") continue;
    if (!wanted.every((w) => rest.includes(w))) continue;
    const value = Number(line.slice(line.lastIndexOf(" ") + 1));
    if (Number.isFinite(value)) total += value;
  }
  return total;
}

export async function startFlappingFleet(
  name: string,
  controllerOptions: Partial<ControllerOptions>,
): Promise<FlappingFleet> {
  const dir = await mkdtemp(join(tmpdir(), `karmada-trials-${name}-`));
  const clients: HttpClient[] = [];
  let up: RunningUp | undefined;
  const stop = async (): Promise<void> => {
    for (const c of clients) c.close();
    await up?.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    up = await runUp(
      {
        dataDir: join(dir, "data"),
        port: 0,
        members: MEMBERS.length,
        memberCommand: [process.execPath, KARMADA_BIN],
        controllerOptions: { features: UP_FEATURE_GATES, ...controllerOptions },
        readyTimeoutMs: 120_000,
        log: silentLogger,
      },
      { stdout: { write: () => true }, stderr: { write: () => true } },
    );
    const connect = async (context: string, userAgent: string): Promise<HttpClient> => {
      const conn = await loadKubeconfig({ path: up!.kubeconfig, context });
      const client = httpClientFor(conn, { userAgent, timeoutMs: CLIENT_TIMEOUT_MS });
      clients.push(client);
      return client;
    };
    const admin = await connect("karmada-apiserver", "flapping-trials");
    const members = {} as Record<MemberName, HttpClient>;
    for (const m of MEMBERS) members[m] = await connect(m, "flapping-trials");
    return {
      up,
      admin,
      members,
      async setFault(member, fault) {
        await sendFault(members[member], fault);
      },
      async restore(member) {
        await sendFault(members[member], { type: "restore" });
      },
      async clientCalls(member) {
        const res = await admin.getRaw("/metrics");
        if (res.status !== 200) throw new Error(`the control plane's /metrics answered ${res.status}`);
        const url = up!.members.find((m) => m.name === member)?.url ?? "";
        const host = new URL(url).host;
        return {
          sent: sumCounter(res.body, "rest_client_requests_total", { host }),
          unanswered: sumCounter(res.body, "rest_client_requests_total", { host, code: "<error>" }),
        };
      },
      async apiCalls(member) {
        const res = await members[member].getRaw("/metrics");
        if (res.status !== 200) throw new Error(`${member} /metrics answered ${res.status}`);
        return sumCounter(res.body, "apiserver_request_total");
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
