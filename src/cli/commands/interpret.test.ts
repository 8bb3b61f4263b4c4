import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { CommandError } from "../io.ts";
import { runInterpret } from "./interpret.ts";

const CUSTOMIZATION = {
  apiVersion: "config.karmada.io/v1alpha1",
  kind: "ResourceInterpreterCustomization",
  metadata: { name: "workload" },
  spec: {
    target: { apiVersion: "workload.example.io/v1alpha1", kind: "Workload" },
    customizations: {
      replicaResource: {
        luaScript: `function GetReplicas(obj)
  return obj.spec.replicas, { resourceRequest = { cpu = "250m" } }
end`,
      },
      replicaRevision: {
        luaScript: `function ReviseReplica(obj, desiredReplica)
  obj.spec.replicas = desiredReplica
  return obj
end`,
      },
      healthInterpretation: {
        luaScript: `function InterpretHealth(observedObj)
  return observedObj.status ~= nil and observedObj.status.readyReplicas == observedObj.spec.replicas
end`,
      },
      statusAggregation: {
        luaScript: `function AggregateStatus(desiredObj, statusItems)
  local ready = 0
  for i = 1, #statusItems do ready = ready + statusItems[i].status.readyReplicas end
  desiredObj.status = { readyReplicas = ready }
  return desiredObj
end`,
      },
    },
  },
};

const WORKLOAD = {
  apiVersion: "workload.example.io/v1alpha1",
  kind: "Workload",
  metadata: { name: "w", namespace: "default" },
  spec: { replicas: 3 },
  status: { readyReplicas: 3 },
};

describe("karmadactl interpret", () => {
  let dir: string;
  const out: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t) > 0 }, stderr: { write: () => true } };
  const run = async (opts: Partial<Parameters<typeof runInterpret>[0]>, stdin = "") => {
    out.length = 0;
    await runInterpret(
      { filenames: [join(dir, "c.yaml")], check: false, desiredReplica: 0, ...opts },
      io,
      async () => stdin,
    );
    return out.join("");
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "karmadactl-interpret-"));
    await writeFile(join(dir, "c.yaml"), stringify(CUSTOMIZATION));
    await writeFile(join(dir, "w.yaml"), stringify(WORKLOAD));
    const broken = structuredClone(CUSTOMIZATION);
    broken.spec.customizations.healthInterpretation.luaScript =
      "function InterpretHealth(o) return o end end";
    await writeFile(join(dir, "broken.yaml"), stringify(broken));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("--check lists every rule as PASS or UNSET, aligned as upstream's tab writer does", async () => {
    expect(await run({ check: true })).toBe(
      [
        "-----------------------------------",
        "SOURCE: workload",
        "TARGET: workload.example.io/v1alpha1 Workload   ",
        "RULERS:",
        "    Retain:                UNSET",
        "    InterpretReplica:      PASS",
        "    InterpretComponent:    UNSET",
        "    ReviseReplica:         PASS",
        "    InterpretStatus:       UNSET",
        "    AggregateStatus:       PASS",
        "    InterpretHealth:       PASS",
        "    InterpretDependency:   UNSET",
        "",
      ].join("\n"),
    );
  });

  it("--check reports a script that does not compile and fails", async () => {
    await expect(run({ check: true, filenames: [join(dir, "broken.yaml")] })).rejects.toBeInstanceOf(
      CommandError,
    );
    expect(out.join("")).toMatch(/ {4}InterpretHealth: {7}ERROR: <string>:1: <eof> expected near 'end'/);
  });

  it("runs a rule on an object and prints its named results (operation names are case-insensitive)", async () => {
    expect(await run({ operation: "interpretReplica", observedFile: join(dir, "w.yaml") })).toBe(
      "---\n# [1/2] replica:\n3\n---\n# [2/2] requires:\nresourceRequest:\n  cpu: 250m\n",
    );
    expect(await run({ operation: "InterpretHealth", observedFile: join(dir, "w.yaml") })).toBe(
      "---\n# [1/1] healthy:\ntrue\n",
    );
    const revised = await run({
      operation: "reviseReplica",
      desiredFile: join(dir, "w.yaml"),
      desiredReplica: 5,
    });
    expect(revised).toContain("# [1/1] revised:\napiVersion: workload.example.io/v1alpha1\n");
    expect(revised).toContain("spec:\n  replicas: 5\n");
  });

  it("reads status items from stdin", async () => {
    const items = stringify([
      { clusterName: "member1", applied: true, status: { readyReplicas: 1 } },
      { clusterName: "member2", applied: true, status: { readyReplicas: 2 } },
    ]);
    const text = `${items
      .split("\n- ")
      .map((d, i) => (i === 0 ? d.replace(/^- /, "") : d))
      .join("\n---\n")}`;
    const out = await run(
      { operation: "aggregateStatus", desiredFile: join(dir, "w.yaml"), statusFile: "-" },
      text.replace(/\n {2}/g, "\n"),
    );
    expect(out).toContain("status:\n  readyReplicas: 3\n");
  });

  it("says what is missing or wrong", async () => {
    await expect(run({ operation: "nope" })).rejects.toThrow(
      "operation nope is not supported. Use one of: Retain, InterpretReplica, InterpretComponent, ReviseReplica, InterpretStatus, AggregateStatus, InterpretHealth, InterpretDependency",
    );
    await expect(run({ operation: "retain", desiredFile: join(dir, "w.yaml") })).rejects.toThrow(
      "Execute Retain error: observed, observed-file options are not set",
    );
    await expect(
      run({ operation: "retain", desiredFile: join(dir, "w.yaml"), observedFile: join(dir, "w.yaml") }),
    ).rejects.toThrow("Execute Retain error: rule is not enabled");
    await expect(run({ operation: "interpretHealth" })).rejects.toThrow(
      "Execute InterpretHealth error: desired-file, observed-file options are not set",
    );
    await expect(
      run({ operation: "interpretHealth", observedFile: join(dir, "missing.yaml") }),
    ).rejects.toThrow(`the path "${join(dir, "missing.yaml")}" does not exist`);
    await expect(run({ operation: "interpretHealth", filenames: [] })).rejects.toThrow(
      "must specify -f FILENAME",
    );
  });
});
