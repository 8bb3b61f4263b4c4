/**
 * Stateful failover's state relay on `karmada up` through kubectl, with the files in
 * `examples/stateful-failover/`: a FlinkDeployment runs on one member, where a stage (standing
 * in for the Flink operator) gives its job an ID. The job turns unhealthy; after the toleration
 * the binding moves, the task keeps the job ID (`preservedLabelState`, with
 * `clustersBeforeFailover`), the old copy is removed first (purgeMode Immediately, the v1.12
 * name), and the new member's copy arrives with the job ID as a label. A second failure moves
 * it again, carrying the second member's job ID: the last failover's state wins.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { UP_FEATURE_GATES } from "../../src/runtime/features.ts";
import { fleetKubectl, startTestFleet, type TestFleet } from "../support/fleet.ts";
import { eventually } from "../support/kubectl.ts";
import { manifest } from "../support/kubectl-output.ts";

const EXAMPLE = new URL("../../examples/stateful-failover/", import.meta.url);
const LABEL = "resourcebinding.karmada.io/failover-jobid";

type Obj = {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: {
    clusters?: Array<{ name: string }>;
    gracefulEvictionTasks?: Array<Record<string, unknown>>;
    failover?: { application?: { decisionConditions?: { tolerationSeconds?: number } } };
  };
  status?: { jobStatus?: { jobID?: string; state?: string } };
};

function exampleDocs(file: string): Obj[] {
  return parseAllDocuments(readFileSync(new URL(file, EXAMPLE), "utf8")).map((d) => d.toJS() as Obj);
}

const LONG = [600, 100] as const;

describe("stateful failover state relay on karmada up", () => {
  let fleet: TestFleet;
  const { kubectl, cp, ok, getJson } = fleetKubectl<Obj>(() => fleet);
  const rb = () => getJson("karmada-apiserver", ["get", "rb", "wordcount-flinkdeployment"]);

  beforeAll(async () => {
    fleet = await startTestFleet("stateful-failover", 3, {
      // As `karmada up` runs: StatefulFailoverInjection on.
      features: UP_FEATURE_GATES,
      memberStages: fileURLToPath(new URL("member-stages.yaml", EXAMPLE)),
    });
  }, 90_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  /** The single member the job runs on (other than `except`), with its job ID. */
  const runningJob = (except: readonly string[]) =>
    eventually(
      async () => {
        const t = ((await rb())?.spec?.clusters ?? []).map((c) => c.name);
        if (t.length !== 1 || except.includes(t[0]!)) return undefined;
        const f = await getJson(t[0]!, ["get", "flinkdeployment", "wordcount"]);
        const id = f?.status?.jobStatus?.state === "RUNNING" && f.status.jobStatus.jobID;
        return id ? { cluster: t[0]!, jobId: id, labels: f.metadata.labels ?? {} } : undefined;
      },
      `the job running on a member other than ${except.join(", ") || "none"}`,
      ...LONG,
    );

  /** What the Flink operator would report when the job manager is lost. */
  const failJob = (cluster: string) =>
    ok(
      kubectl(cluster, [
        "patch",
        "flinkdeployment",
        "wordcount",
        "--subresource=status",
        "--type=merge",
        "-p",
        '{"status":{"jobStatus":{"state":"RECONCILING"},"error":"JobManager lost"}}',
      ]),
    );

  /** The label as the new member's copy first shows it (the task, and so the label, ends once it is healthy). */
  const labelArrives = (cluster: string, value: string) =>
    eventually(
      async () =>
        (await getJson(cluster, ["get", "flinkdeployment", "wordcount"]))?.metadata.labels?.[LABEL] === value,
      `${LABEL}=${value} on ${cluster}`,
      ...LONG,
    );

  it("carries the failed member's job ID to the new member's copy, A→B→C", async () => {
    await ok(cp(["apply", "-f", "-"], manifest(...exampleDocs("flinkdeployment-crd.yaml"))));
    await eventually(
      async () => (await cp(["get", "crd", "flinkdeployments.flink.apache.org"])).code === 0,
      "the CRD",
      ...LONG,
    );
    const [flink, policy] = exampleDocs("flinkdeployment.yaml");
    policy!.spec!.failover!.application!.decisionConditions!.tolerationSeconds = 3;
    await ok(cp(["apply", "-f", "-"], manifest(flink!, policy!)));

    const a = await runningJob([]);
    expect(a.labels[LABEL]).toBeUndefined();
    await failJob(a.cluster);
    const moved = await eventually(
      async () => {
        const b = await rb();
        const t = (b?.spec?.clusters ?? []).map((c) => c.name);
        return t.length === 1 && t[0] !== a.cluster ? b : undefined;
      },
      "the binding moved",
      ...LONG,
    );
    expect(moved.spec?.gracefulEvictionTasks?.at(-1)).toMatchObject({
      fromCluster: a.cluster,
      purgeMode: "Immediately",
      reason: "ApplicationFailure",
      producer: "resource-binding-application-failover-controller",
      preservedLabelState: { [LABEL]: a.jobId },
      clustersBeforeFailover: [a.cluster],
    });
    const b = moved.spec!.clusters![0]!.name;
    await labelArrives(b, a.jobId);
    // Purged directly: the old copy is gone.
    await eventually(
      async () => (await kubectl(a.cluster, ["get", "flinkdeployment", "wordcount"])).code !== 0,
      `the old copy removed from ${a.cluster}`,
      ...LONG,
    );

    const second = await runningJob([a.cluster]);
    expect(second.cluster).toBe(b);
    expect(second.jobId).not.toBe(a.jobId);
    await failJob(b);
    // A's task may have ended already, so A is a candidate again: any member but B will do.
    const third = await eventually(
      async () => {
        const t = ((await rb())?.spec?.clusters ?? []).map((c) => c.name);
        return t.length === 1 && t[0] !== b ? t[0] : undefined;
      },
      "the binding moved again",
      ...LONG,
    );
    await labelArrives(third, second.jobId);
  });
});
