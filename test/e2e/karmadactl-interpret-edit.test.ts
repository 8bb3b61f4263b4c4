/**
 * `karmadactl interpret -f FILE --edit` as a user runs it: the real executable, with KUBE_EDITOR
 * set to a node script that rewrites one rule's script in the temporary .lua file, and the -f
 * file checked afterwards (and run with --operation).
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";

const KARMADACTL = fileURLToPath(new URL("../../bin/karmadactl", import.meta.url));

const HEALTH = "function InterpretHealth(observedObj)\n  return observedObj.status.readyReplicas == 1\nend\n";
const CUSTOMIZATION = {
  apiVersion: "config.karmada.io/v1alpha1",
  kind: "ResourceInterpreterCustomization",
  metadata: { name: "workload" },
  spec: {
    target: { apiVersion: "workload.example.io/v1alpha1", kind: "Workload" },
    customizations: { healthInterpretation: { luaScript: HEALTH } },
  },
};
const WORKLOAD = {
  apiVersion: "workload.example.io/v1alpha1",
  kind: "Workload",
  metadata: { name: "w" },
  spec: { replicas: 3 },
  status: { readyReplicas: 3 },
};

/** Replaces process.env.FROM with process.env.TO in the file it is given; keeps what it was shown. */
const EDITOR = `
import { readFileSync, writeFileSync } from "node:fs";
const file = process.argv[2];
const text = readFileSync(file, "utf8");
writeFileSync(process.env.SHOWN, text);
if (!text.includes(process.env.FROM)) process.exit(2);
writeFileSync(file, text.replace(process.env.FROM, process.env.TO));
`;

describe("karmadactl interpret --edit", { timeout: 60_000 }, () => {
  let dir: string;
  const karmadactl = (
    args: string[],
    env: Record<string, string>,
  ): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [KARMADACTL, "interpret", ...args],
        {
          env: {
            PATH: process.env.PATH ?? "/usr/bin:/bin",
            HOME: dir,
            KUBE_EDITOR: `${process.execPath} ${join(dir, "editor.mjs")}`,
            SHOWN: join(dir, "shown.lua"),
            ...env,
          },
          timeout: 30_000,
        },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "karmadactl-interpret-edit-e2e-"));
    await writeFile(join(dir, "editor.mjs"), EDITOR);
    await writeFile(join(dir, "c.yaml"), stringify(CUSTOMIZATION));
    await writeFile(join(dir, "w.yaml"), stringify(WORKLOAD));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("edits a rule's script in the editor and writes the customization back to the file", async () => {
    const r = await karmadactl(["-f", join(dir, "c.yaml"), "--edit", "--show-doc"], {
      FROM: "readyReplicas == 1",
      TO: "readyReplicas == observedObj.spec.replicas",
    });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("resourceinterpretercustomization.config.karmada.io/workload edited\n");
    expect(r.code).toBe(0);
    const shown = await readFile(join(dir, "shown.lua"), "utf8");
    expect(shown).toContain(
      `---@name: workload\n---@apiVersion: workload.example.io/v1alpha1\n---@kind: Workload\n---@rule: Retain\n`,
    );
    expect(shown).toContain("---@rule: InterpretHealth\n-- This rule is used to assess the health state");
    expect(parse(await readFile(join(dir, "c.yaml"), "utf8")).spec.customizations).toEqual({
      healthInterpretation: { luaScript: HEALTH.replace("== 1", "== observedObj.spec.replicas") },
    });

    const health = await karmadactl(
      ["-f", join(dir, "c.yaml"), "--operation", "interpretHealth", "--observed-file", join(dir, "w.yaml")],
      {},
    );
    expect(health.stdout).toBe("---\n# [1/1] healthy:\ntrue\n");
  });

  it("changes nothing when the editor saves the file as it was", async () => {
    const before = await readFile(join(dir, "c.yaml"), "utf8");
    const r = await karmadactl(["-f", join(dir, "c.yaml"), "--edit"], {
      FROM: "---@rule: Retain",
      TO: "---@rule: Retain",
    });
    expect(r).toEqual({ code: 0, stdout: "", stderr: "Edit cancelled, no changes made.\n" });
    expect(await readFile(join(dir, "c.yaml"), "utf8")).toBe(before);
  });

  it("fails with one line when the editor cannot be started", async () => {
    const r = await karmadactl(["-f", join(dir, "c.yaml"), "--edit"], {
      KUBE_EDITOR: "",
      EDITOR: "no-such-editor-x",
    });
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: 'error: unable to launch the editor "no-such-editor-x"\n',
    });
  });
});
