import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conditionOf, deploymentObject, FAST, TestClock, until } from "../../test/support/member-sim.ts";
import type { KubeObject, StoredObject } from "../api/meta.ts";
import { RESOURCES, type ResourceRef } from "../client/client.ts";
import { type MemberCluster, startMemberCluster } from "./cluster.ts";
import { ENDPOINTSLICES } from "./context.ts";
import { parseStageFile } from "./custom-stages.ts";

type Status = Record<string, unknown>;
const statusOf = (o: StoredObject | undefined): Status => (o?.status ?? {}) as Status;

const STAGES = parseStageFile(`
- name: flink-running
  apiVersion: flink.apache.org/v1beta1
  kind: FlinkDeployment
  delayMs: 20
  when: {missing: status.jobStatus.jobID}
  set:
    status:
      jobStatus:
        jobID: \${id}
        jobName: \${name}
        state: RUNNING
      lifecycleState: STABLE
      observedGeneration: \${generation}
`);

const FLINK_CRD: KubeObject = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "flinkdeployments.flink.apache.org" },
  spec: {
    group: "flink.apache.org",
    names: {
      kind: "FlinkDeployment",
      plural: "flinkdeployments",
      singular: "flinkdeployment",
      listKind: "FlinkDeploymentList",
    },
    scope: "Namespaced",
    versions: [
      {
        name: "v1beta1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
};

describe("member cluster: StatefulSets, DaemonSets, Jobs, CronJobs, endpoints, custom-resource stages", () => {
  let m: MemberCluster;
  const clock = new TestClock("2026-03-01T11:59:30Z");

  beforeAll(async () => {
    m = await startMemberCluster({ name: "member2", timing: FAST, clock, stages: STAGES });
  });
  afterAll(async () => {
    await m.stop();
  });

  const ns = async (name: string): Promise<string> => {
    await m.client.create(RESOURCES.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
    return name;
  };
  const get = (res: ResourceRef, namespace: string | undefined, name: string) =>
    m.client.get(res, namespace, name);
  const pods = async (namespace: string): Promise<StoredObject[]> =>
    (await m.client.list(RESOURCES.pods, namespace)).items;
  const template = (labels: Record<string, string>, extra: Record<string, unknown> = {}) => ({
    metadata: { labels },
    spec: { containers: [{ name: "app", image: "busybox:1.36" }], ...extra },
  });

  it("StatefulSet: ordinal pods created in order, each after the previous is Ready; rolling update from the top", async () => {
    const n = await ns("sts");
    const order: string[] = [];
    const violations: string[] = [];
    const remove = m.informers.pods.addHandler({
      onAdd: (p) => {
        if (p.metadata.namespace !== n) return;
        order.push(p.metadata.name);
        const ordinal = Number(p.metadata.name.split("-").at(-1));
        for (let i = 0; i < ordinal; i++) {
          const prev = m.informers.pods.get(n, `db-${i}`);
          if (!prev || conditionOf(prev, "Ready")?.status !== "True")
            violations.push(`db-${ordinal} before db-${i} was ready`);
        }
      },
    });
    await m.client.create(RESOURCES.statefulsets, {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "db", namespace: n },
      spec: {
        replicas: 3,
        serviceName: "db",
        selector: { matchLabels: { app: "db" } },
        template: template({ app: "db" }),
      },
    });
    const settled = (image: string) =>
      until(async () => {
        const sts = await get(RESOURCES.statefulsets, n, "db");
        const s = statusOf(sts);
        const all = await pods(n);
        return (
          s.observedGeneration === sts.metadata.generation &&
          s.readyReplicas === 3 &&
          s.updatedReplicas === 3 &&
          s.currentRevision === s.updateRevision &&
          all.length === 3 &&
          all.every(
            (p) => (p.spec as { containers: Array<{ image: string }> }).containers[0]!.image === image,
          ) &&
          sts
        );
      }, `statefulset at ${image}`);
    const sts = await settled("busybox:1.36");
    expect(order).toEqual(["db-0", "db-1", "db-2"]);
    expect(violations).toEqual([]);
    const s = statusOf(sts);
    expect(s).toMatchObject({
      replicas: 3,
      readyReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
      availableReplicas: 3,
      collisionCount: 0,
    });
    const revision = s.updateRevision as string;
    expect(revision).toMatch(/^db-[a-z0-9]+$/);
    const cr = await get(RESOURCES.controllerrevisions, n, revision);
    expect(cr.revision).toBe(1);
    const pod = await get(RESOURCES.pods, n, "db-1");
    expect(pod.metadata.labels).toMatchObject({
      "controller-revision-hash": revision,
      "statefulset.kubernetes.io/pod-name": "db-1",
      "apps.kubernetes.io/pod-index": "1",
    });
    expect(pod.spec).toMatchObject({ hostname: "db-1", subdomain: "db" });
    // Rolling update: highest ordinal first.
    order.length = 0;
    await m.client.patch(RESOURCES.statefulsets, n, "db", "strategic", {
      spec: { template: { spec: { containers: [{ name: "app", image: "busybox:1.37" }] } } },
    });
    const updated = await settled("busybox:1.37");
    remove();
    expect(order).toEqual(["db-2", "db-1", "db-0"]);
    expect(statusOf(updated).currentRevision).not.toBe(revision);
  });

  it("DaemonSet: one pod per schedulable node, none where its tolerations do not reach", async () => {
    const n = await ns("ds");
    await m.client.patch(RESOURCES.nodes, undefined, "member2-node-2", "merge", {
      spec: { taints: [{ key: "dedicated", value: "infra", effect: "NoSchedule" }] },
    });
    await m.client.create(RESOURCES.daemonsets, {
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: { name: "agent", namespace: n },
      spec: { selector: { matchLabels: { app: "agent" } }, template: template({ app: "agent" }) },
    });
    const ds = await until(async () => {
      const d = await get(RESOURCES.daemonsets, n, "agent");
      return statusOf(d).numberReady === 2 && d;
    }, "daemon pods ready");
    expect(statusOf(ds)).toMatchObject({
      desiredNumberScheduled: 2,
      currentNumberScheduled: 2,
      numberMisscheduled: 0,
      numberReady: 2,
      numberAvailable: 2,
      updatedNumberScheduled: 2,
      observedGeneration: 1,
    });
    const list = await pods(n);
    expect(list.map((p) => (p.spec as { nodeName: string }).nodeName).sort()).toEqual([
      "member2-node-0",
      "member2-node-1",
    ]);
    expect(list[0]!.metadata.labels?.["controller-revision-hash"]).toBeDefined();
    // The tainted node becomes reachable again: it gets its pod.
    await m.client.patch(RESOURCES.nodes, undefined, "member2-node-2", "merge", { spec: { taints: null } });
    await until(
      async () => statusOf(await get(RESOURCES.daemonsets, n, "agent")).numberReady === 3,
      "a pod on every node",
    );
  });

  it("Job: runs pods to completion with SuccessCriteriaMet and Complete; a failing one stops at its backoffLimit", async () => {
    const n = await ns("jobs");
    await m.client.create(RESOURCES.jobs, {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "pi", namespace: n },
      spec: { completions: 3, parallelism: 2, template: template({}, { restartPolicy: "Never" }) },
    });
    const job = await until(async () => {
      const j = await get(RESOURCES.jobs, n, "pi");
      return conditionOf(j, "Complete")?.status === "True" && j;
    }, "job complete");
    const s = statusOf(job);
    expect(s).toMatchObject({ succeeded: 3, ready: 0, terminating: 0, uncountedTerminatedPods: {} });
    expect(s.active).toBeUndefined();
    expect(s.startTime).toBeDefined();
    expect(s.completionTime).toBeDefined();
    for (const type of ["SuccessCriteriaMet", "Complete"]) {
      expect(conditionOf(job, type)).toMatchObject({
        status: "True",
        reason: "CompletionsReached",
        message: "Reached expected number of succeeded pods",
      });
    }
    const done = (await pods(n)).filter((p) => statusOf(p).phase === "Succeeded");
    expect(done).toHaveLength(3);
    expect(done[0]!.metadata.labels?.["batch.kubernetes.io/job-name"]).toBe("pi");
    await m.client.create(RESOURCES.jobs, {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "broken", namespace: n },
      spec: {
        backoffLimit: 1,
        template: {
          metadata: { annotations: { "member-sim.karmada-ts.io/exit-code": "1" } },
          spec: { containers: [{ name: "app", image: "busybox" }], restartPolicy: "Never" },
        },
      },
    });
    const failed = await until(async () => {
      const j = await get(RESOURCES.jobs, n, "broken");
      return conditionOf(j, "Failed")?.status === "True" && j;
    }, "job failed");
    expect(statusOf(failed).failed).toBe(2);
    expect(conditionOf(failed, "Failed")).toMatchObject({
      reason: "BackoffLimitExceeded",
      message: "Job has reached the specified backoff limit",
    });
    expect(conditionOf(failed, "FailureTarget")).toMatchObject({
      status: "True",
      reason: "BackoffLimitExceeded",
    });
  });

  it("CronJob: creates a Job at each scheduled time of the injected clock, records last schedule and success", async () => {
    const n = await ns("cron");
    await m.client.create(RESOURCES.cronjobs, {
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { name: "tick", namespace: n },
      spec: {
        schedule: "*/5 * * * *",
        jobTemplate: { spec: { template: template({ app: "tick" }, { restartPolicy: "OnFailure" }) } },
      },
    });
    // 11:59:30: nothing due yet.
    await new Promise((r) => setTimeout(r, 100));
    expect((await m.client.list(RESOURCES.jobs, n)).items).toEqual([]);
    clock.set("2026-03-01T12:00:10Z");
    const job = await until(async () => (await m.client.list(RESOURCES.jobs, n)).items[0], "the first job");
    const due = Date.parse("2026-03-01T12:00:00Z");
    expect(job.metadata.name).toBe(`tick-${due / 60_000}`);
    expect(job.metadata.annotations?.["batch.kubernetes.io/cronjob-scheduled-timestamp"]).toBe(
      "2026-03-01T12:00:00Z",
    );
    expect(job.metadata.ownerReferences?.[0]).toMatchObject({
      kind: "CronJob",
      name: "tick",
      controller: true,
    });
    const cj = await until(async () => {
      const c = await get(RESOURCES.cronjobs, n, "tick");
      return !!statusOf(c).lastSuccessfulTime && !statusOf(c).active && c;
    }, "the job to succeed");
    expect(statusOf(cj).lastScheduleTime).toBe("2026-03-01T12:00:00Z");
    clock.set("2026-03-01T12:05:01Z");
    await until(async () => (await m.client.list(RESOURCES.jobs, n)).items.length === 2, "the second job");
    expect(statusOf(await get(RESOURCES.cronjobs, n, "tick")).lastScheduleTime).toBe("2026-03-01T12:05:00Z");
  });

  it("Service with a selector gets Endpoints and an EndpointSlice of its ready pods", async () => {
    const n = await ns("svc");
    await m.client.create(
      RESOURCES.deployments,
      deploymentObject("web", n, {
        replicas: 2,
        pod: {
          containers: [{ name: "app", image: "nginx", ports: [{ name: "http", containerPort: 8080 }] }],
        },
      }),
    );
    await m.client.create(RESOURCES.services, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: n },
      spec: { selector: { app: "web" }, ports: [{ name: "web", port: 80, targetPort: "http" }] },
    });
    const ep = await until(async () => {
      const e = await get(RESOURCES.endpoints, n, "web");
      const subsets = (e.subsets ?? []) as Array<{ addresses?: unknown[] }>;
      return subsets[0]?.addresses?.length === 2 && e;
    }, "endpoints");
    const subset = (ep.subsets as Array<{ addresses: Array<Record<string, unknown>>; ports: unknown[] }>)[0]!;
    expect(subset.ports).toEqual([{ name: "web", port: 8080, protocol: "TCP" }]);
    const ips = (await pods(n)).map((p) => statusOf(p).podIP).sort();
    expect(subset.addresses.map((a) => a.ip).sort()).toEqual(ips);
    expect(subset.addresses[0]).toMatchObject({ targetRef: { kind: "Pod", namespace: n } });
    const slices = (
      await m.client.list(ENDPOINTSLICES, n, { labelSelector: "kubernetes.io/service-name=web" })
    ).items;
    expect(slices).toHaveLength(1);
    expect(slices[0]).toMatchObject({
      addressType: "IPv4",
      ports: [{ name: "web", port: 8080, protocol: "TCP" }],
    });
    expect((slices[0]!.endpoints as unknown[]).length).toBe(2);
    await m.client.patch(RESOURCES.deployments, n, "web", "merge", { spec: { replicas: 0 } });
    await until(
      async () => ((await get(RESOURCES.endpoints, n, "web")).subsets ?? undefined) === undefined,
      "endpoints emptied",
    );
  });

  it("gives a custom resource its status from a stage once the CRD is installed", async () => {
    const n = await ns("flink");
    expect(m.runningStageKinds()).toEqual([]);
    await m.client.create(RESOURCES.customresourcedefinitions, FLINK_CRD);
    await until(() => m.runningStageKinds().length === 1, "stages to start");
    const res = await m.client.resourceFor("flink.apache.org/v1beta1", "FlinkDeployment");
    await m.client.create(res, {
      apiVersion: "flink.apache.org/v1beta1",
      kind: "FlinkDeployment",
      metadata: { name: "wordcount", namespace: n },
      spec: { job: { jarURI: "local:///opt/flink/examples/WordCount.jar" } },
    });
    const fd = await until(async () => {
      const o = await get(res, n, "wordcount");
      return !!statusOf(o).jobStatus && o;
    }, "the stage");
    const status = statusOf(fd) as {
      jobStatus: Record<string, unknown>;
      lifecycleState: string;
      observedGeneration: number;
    };
    expect(status.jobStatus.jobID).toMatch(/^[0-9a-f]{32}$/);
    expect(status.jobStatus).toMatchObject({ jobName: "wordcount", state: "RUNNING" });
    expect(status).toMatchObject({ lifecycleState: "STABLE", observedGeneration: 1 });
    // Applied once: the id stays.
    await new Promise((r) => setTimeout(r, 60));
    expect(((await get(res, n, "wordcount")).status as typeof status).jobStatus.jobID).toBe(
      status.jobStatus.jobID,
    );
    await m.client.delete(RESOURCES.customresourcedefinitions, undefined, FLINK_CRD.metadata!.name!);
    await until(() => m.runningStageKinds().length === 0, "stages to stop");
  });
});
