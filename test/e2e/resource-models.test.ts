/**
 * Customized cluster resource models on `karmada up` through kubectl (gate
 * CustomizedClusterResourceModeling, on by default): a joined cluster carries upstream's 9
 * default grades; its status counts the member's nodes per grade (`allocatableModelings`); and
 * models edited with `kubectl edit cluster` take effect: the counts follow the new grades.
 */
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fleetKubectl, startTestFleet, type TestFleet } from "../support/fleet.ts";
import { eventually, KUBECTL } from "../support/kubectl.ts";

type Model = { grade: number; ranges: Array<{ name: string; min: string; max: string }> };
type Obj = {
  spec?: { resourceModels?: Model[] };
  status?: { resourceSummary?: { allocatableModelings?: Array<{ grade: number; count: number }> } };
  items?: unknown[];
};

const MAX = "9223372036854775807";
/** Two grades: nodes with less than 1000 CPUs, and the rest. */
const EDITED: Model[] = [
  {
    grade: 0,
    ranges: [
      { name: "cpu", min: "0", max: "1k" },
      { name: "memory", min: "0", max: "1Pi" },
    ],
  },
  {
    grade: 1,
    ranges: [
      { name: "cpu", min: "1k", max: MAX },
      { name: "memory", min: "1Pi", max: MAX },
    ],
  },
];

describe("cluster resource models on karmada up", () => {
  let fleet: TestFleet;
  const { getJson } = fleetKubectl<Obj>(() => fleet);
  const cluster = () => getJson("karmada-apiserver", ["get", "cluster", "member1"]);

  beforeAll(async () => {
    fleet = await startTestFleet("resource-models", 1);
  }, 60_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  it("has the 9 default grades, counts nodes per grade, and follows an edit", async () => {
    const c = await cluster();
    expect(c?.spec?.resourceModels?.map((m) => m.grade)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(c?.spec?.resourceModels?.[0]?.ranges).toEqual([
      { name: "cpu", min: "0", max: "1" },
      { name: "memory", min: "0", max: "4Gi" },
    ]);
    const nodes = (await getJson("member1", ["get", "nodes"]))?.items?.length ?? 0;
    expect(nodes).toBeGreaterThan(0);
    const counted = (m: Obj | undefined) =>
      (m?.status?.resourceSummary?.allocatableModelings ?? []).reduce((n, x) => n + x.count, 0);
    const before = await eventually(
      async () => {
        const m = await cluster();
        return m?.status?.resourceSummary?.allocatableModelings?.length === 9 && counted(m) === nodes && m;
      },
      "allocatableModelings over the 9 grades",
      200,
      100,
    );
    expect(before.status?.resourceSummary?.allocatableModelings?.map((x) => x.grade)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8,
    ]);

    // `kubectl edit` with an editor that swaps in two grades, as a user would by hand.
    const editor = join(fleet.dir, "editor.mjs");
    await writeFile(
      editor,
      `import { readFileSync, writeFileSync } from "node:fs";
const file = process.argv[2];
const obj = JSON.parse(readFileSync(file, "utf8"));
obj.spec.resourceModels = ${JSON.stringify(EDITED)};
writeFileSync(file, JSON.stringify(obj, null, 2));
`,
    );
    const edit = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        KUBECTL,
        [
          `--kubeconfig=${fleet.up.kubeconfig}`,
          `--cache-dir=${join(fleet.dir, "cache")}`,
          "--context",
          "karmada-apiserver",
          "edit",
          "cluster",
          "member1",
          "-o",
          "json",
        ],
        {
          env: {
            PATH: process.env.PATH ?? "/usr/bin:/bin",
            HOME: fleet.dir,
            KUBE_EDITOR: `${process.execPath} ${editor}`,
          },
          timeout: 30_000,
        },
        (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr }),
      ),
    );
    expect(edit.stderr).toBe("");
    // With `-o json` kubectl edits JSON and prints the saved object.
    expect((JSON.parse(edit.stdout) as Obj).spec?.resourceModels).toEqual(EDITED);
    expect((await cluster())?.spec?.resourceModels).toEqual(EDITED);
    await eventually(
      async () => {
        const m = await cluster();
        const modelings = m?.status?.resourceSummary?.allocatableModelings ?? [];
        return modelings.length === 2 && modelings[0]?.count === nodes && modelings[1]?.count === 0;
      },
      "allocatableModelings over the 2 edited grades",
      200,
      100,
    );
  });
});
