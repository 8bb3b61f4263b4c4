/**
 * Prometheus metrics after one propagation, as upstream's e2e `metrics_test.go` checks them:
 * the names (and here the labels) each component must export. In `karmada up` the API server,
 * controller manager, scheduler and the Pull member's agent share one process, so the API
 * server's `/metrics` (behind RBAC) serves them all; each member's API server serves its own.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fleetKubectl, startTestFleet, type TestFleet } from "../support/fleet.ts";
import { eventually, sharedPath } from "../support/kubectl.ts";
import { parseExposition, type Scrape } from "../support/prometheus.ts";

const NGINX = sharedPath("conformance/karmada/samples/nginx");

describe("metrics after a propagation", () => {
  let fleet: TestFleet;
  const { kubectl, cp, ok } = fleetKubectl<unknown>(() => fleet);
  let scrape: Scrape;

  const metricsOf = async (context: string): Promise<Scrape> =>
    parseExposition(await ok(kubectl(context, ["get", "--raw", "/metrics"])));

  beforeAll(async () => {
    fleet = await startTestFleet("metrics", 3);
    await ok(cp(["create", "-f", join(NGINX, "deployment.yaml")]));
    await ok(cp(["create", "-f", join(NGINX, "propagationpolicy.yaml")]));
    for (const member of ["member1", "member2"])
      await eventually(
        async () => (await kubectl(member, ["get", "deployment", "nginx"])).code === 0,
        `nginx in ${member}`,
        300,
        100,
      );
    // The member3 agent's and the binding-status controller's work comes a little after, and
    // nginx's pods count in member1's and member2's figures from their next status sync on.
    scrape = await eventually(
      async () => {
        const s = await metricsOf("karmada-apiserver");
        const synced = s.find("cluster_ready_state", { member_cluster: "member3" }).length > 0;
        const counted = ["member1", "member2"].every(
          (member) => (s.find("cluster_pod_allocated_number", { member_cluster: member })[0]?.value ?? 0) > 0,
        );
        return synced && counted && s.find("binding_sync_work_duration_seconds_count").length > 0
          ? s
          : undefined;
      },
      "the control plane's metrics",
      100,
      200,
    );
  }, 120_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  it("has the controller manager's metrics upstream's metrics_test.go expects", () => {
    // Work queue metrics, with controller-runtime's labels.
    const queued = scrape.find("workqueue_queue_duration_seconds_sum", {
      controller: "work-status-controller",
      name: "work-status-controller",
    });
    expect(queued).toHaveLength(1);
    // ClusterCollectors: one series per member, 1 when Ready.
    for (const member of ["member1", "member2", "member3"])
      expect(scrape.find("cluster_ready_state", { member_cluster: member })).toEqual([
        { labels: { member_cluster: member }, value: 1 },
      ]);
    // ResourceCollectors.
    expect(scrape.find("work_sync_workload_duration_seconds_sum", { result: "success" })).toHaveLength(1);
    expect(
      scrape.find("work_sync_workload_duration_seconds_count", { result: "success" })[0]!.value,
    ).toBeGreaterThan(0);
  });

  it("has the scheduler's metrics upstream's metrics_test.go expects", () => {
    expect(scrape.find("workqueue_queue_duration_seconds_sum", { name: "scheduler-queue" })).toHaveLength(1);
    const attempts = scrape.find("karmada_scheduler_schedule_attempts_total", {
      result: "scheduled",
      schedule_type: "ReconcileSchedule",
    });
    expect(attempts[0]?.value).toBeGreaterThanOrEqual(1);
    expect(scrape.types.get("karmada_scheduler_schedule_attempts_total")).toBe("counter");
    expect(scrape.types.get("karmada_scheduler_e2e_scheduling_duration_seconds")).toBe("histogram");
    for (const step of ["Filter", "Score", "Select", "AssignReplicas"])
      expect(
        scrape.find("karmada_scheduler_scheduling_algorithm_duration_seconds_count", { schedule_step: step }),
      ).toHaveLength(1);
    expect(
      scrape.find("karmada_scheduler_queue_incoming_bindings_total", { event: "BindingAdd" })[0]!.value,
    ).toBeGreaterThan(0);
    expect(scrape.find("scheduler_pending_bindings", { queue: "active" })).toHaveLength(1);
  });

  it("has the SLO metrics of upstream's reliability guide, with their labels", () => {
    expect(scrape.find("resource_match_policy_duration_seconds_count")[0]!.value).toBeGreaterThan(0);
    expect(scrape.find("resource_apply_policy_duration_seconds_count", { result: "success" })).toHaveLength(
      1,
    );
    expect(scrape.find("policy_apply_attempts_total", { result: "success" })[0]!.value).toBeGreaterThan(0);
    expect(
      scrape.find("binding_sync_work_duration_seconds_count", { result: "success" })[0]!.value,
    ).toBeGreaterThan(0);
    const created = scrape.find("create_resource_to_cluster", {
      result: "success",
      apiversion: "apps/v1",
      kind: "Deployment",
      member_cluster: "member1",
      recreate: "false",
    });
    expect(created[0]?.value).toBe(1);
    // The quick start's policy names member1 and member2 only.
    expect(
      scrape.find("create_resource_to_cluster", { kind: "Deployment", member_cluster: "member3" }),
    ).toEqual([]);
    for (const name of [
      "cluster_node_number",
      "cluster_ready_node_number",
      "cluster_cpu_allocatable_number",
      "cluster_memory_allocatable_bytes",
      "cluster_pod_allocatable_number",
      "cluster_pod_allocated_number",
    ])
      expect(scrape.find(name, { member_cluster: "member2" })[0]?.value, name).toBeGreaterThan(0);
    expect(
      scrape.find("cluster_sync_status_duration_seconds_count", { member_cluster: "member1" })[0]!.value,
    ).toBeGreaterThan(0);
    expect(scrape.types.get("eviction_queue_depth")).toBe("gauge");
    expect(scrape.types.get("eviction_processing_latency_seconds")).toBe("histogram");
  });

  it("has the API server's, the REST clients', leader election's and the process's", () => {
    expect(
      scrape.find("apiserver_request_total", {
        verb: "POST",
        group: "apps",
        resource: "deployments",
        scope: "resource",
        component: "apiserver",
        code: "201",
      })[0]?.value,
    ).toBe(1);
    expect(scrape.find("apiserver_request_duration_seconds_count", { verb: "LIST" }).length).toBeGreaterThan(
      0,
    );
    expect(
      scrape.find("apiserver_storage_objects", { resource: "resourcebindings.work.karmada.io" })[0]?.value,
    ).toBe(1);
    expect(scrape.find("apiserver_current_inflight_requests", { request_kind: "mutating" })).toHaveLength(1);
    // Member clients: the controller manager's requests to member1, and the agent's to member3.
    const hosts = new Set(
      scrape.find("rest_client_requests_total", { method: "POST", code: "201" }).map((s) => s.labels.host),
    );
    for (const m of fleet.up.members) expect(hosts).toContain(new URL(m.url).host);
    for (const lease of ["karmada-controller-manager", "karmada-scheduler", "karmada-agent-member3"])
      expect(scrape.find("leader_election_master_status", { name: lease })).toEqual([
        { labels: { name: lease }, value: 1 },
      ]);
    expect(scrape.find("process_resident_memory_bytes")[0]!.value).toBeGreaterThan(0);
    expect(scrape.find("karmada_build_info")[0]?.labels.git_version).toBe("v0.1.0-karmada-ts");
  });

  it("each member's API server serves its own", async () => {
    const member = await metricsOf("member1");
    expect(
      member.find("apiserver_request_total", { verb: "POST", resource: "deployments", code: "201" })[0]
        ?.value,
    ).toBe(1);
    expect(member.find("apiserver_storage_objects", { resource: "pods" })[0]?.value).toBeGreaterThan(0);
  });

  it("is refused to a user RBAC does not allow", async () => {
    await ok(cp(["create", "serviceaccount", "nosy", "-n", "default"]));
    const r = await cp(["get", "--raw", "/metrics", "--as=system:serviceaccount:default:nosy"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'forbidden: User "system:serviceaccount:default:nosy" cannot get path "/metrics"',
    );
  });
});
