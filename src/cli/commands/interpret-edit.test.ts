import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { CommandError } from "../io.ts";
import { runInterpret } from "./interpret.ts";
import {
  applyEdit,
  customizationObject,
  EDIT_RULES,
  type EditableCustomization,
  EditParseError,
  editableOf,
  editorCommand,
  isEmptyEdit,
  parseEditable,
  renderCustomization,
  renderHeader,
  sameCustomization,
  stripHeader,
  validateEdit,
} from "./interpret-edit.ts";

const RETAIN = `function Retain(desiredObj, observedObj)
  -- keep what the member set
  desiredObj.spec.paused = observedObj.spec.paused
  return desiredObj
end`;
const HEALTH = `function InterpretHealth(observedObj)
  return observedObj.status.readyReplicas == observedObj.spec.replicas
end
`;

const CUSTOMIZATION = {
  apiVersion: "config.karmada.io/v1alpha1",
  kind: "ResourceInterpreterCustomization",
  metadata: { name: "workload", labels: { team: "a" } },
  spec: {
    target: { apiVersion: "workload.example.io/v1alpha1", kind: "Workload" },
    customizations: {
      retention: { luaScript: RETAIN },
      healthInterpretation: { luaScript: HEALTH },
    },
  },
};

const HEADER = [
  "-- Please edit the object below. Lines beginning with a '--' will be ignored,",
  "-- and an empty file will abort the edit. If an error occurs while saving this file will be",
  "-- reopened with the relevant failures.",
  "--",
  "",
].join("\n");

describe("interpret --edit: the editable file", () => {
  const c = editableOf(CUSTOMIZATION);

  it("lays out the name, the target and one section per rule in upstream's order", () => {
    expect(renderHeader("workload") + renderCustomization(c)).toBe(
      [
        HEADER.trimEnd(),
        "---@name: workload",
        "---@apiVersion: workload.example.io/v1alpha1",
        "---@kind: Workload",
        "---@rule: Retain",
        RETAIN,
        "---@rule: InterpretReplica",
        "---@rule: InterpretComponent",
        "---@rule: ReviseReplica",
        "---@rule: InterpretStatus",
        "---@rule: AggregateStatus",
        "---@rule: InterpretHealth",
        HEALTH.trimEnd(),
        "---@rule: InterpretDependency",
        "",
      ].join("\n"),
    );
  });

  it("puts each rule's document under its line with --show-doc", () => {
    const text = renderCustomization(c, true);
    expect(text).toContain(
      [
        "---@rule: ReviseReplica",
        "-- This rule is used to revise replicas in the desired specification.",
        "-- The script should implement a function as follows:",
        "-- function ReviseReplica(desiredObj, desiredReplica)",
        "--   desiredObj.spec.replicas = desiredReplica",
        "--   return desiredObj",
        "-- end",
        "---@rule: InterpretStatus",
      ].join("\n"),
    );
    expect(EDIT_RULES.every((r) => r.doc !== "")).toBe(true);
  });

  it("writes the problems of the last edit into the header", () => {
    expect(renderHeader("workload", ["boom"])).toBe(
      `${HEADER}-- resourceinterpretercustomizations "workload" was not valid:\n-- * boom\n--\n`,
    );
  });

  it("reads back what it renders, with or without documents, unchanged byte for byte", () => {
    for (const showDoc of [false, true]) {
      const parsed = parseEditable(renderHeader("workload") + renderCustomization(c, showDoc));
      expect(parsed).toEqual({
        name: "workload",
        apiVersion: "workload.example.io/v1alpha1",
        kind: "Workload",
        scripts: { Retain: `${RETAIN}\n`, InterpretHealth: HEALTH },
      });
      const edited = applyEdit(c, parsed);
      expect(sameCustomization(c, edited)).toBe(true);
      // The script without a final line break is kept as it was.
      expect(edited.scripts.Retain).toBe(RETAIN);
    }
  });

  it("reads an edited file: a new script, a removed one, the script's own comments kept", () => {
    const text = renderCustomization(c, true)
      .replace("---@kind: Workload", "---@kind: Job")
      .replace(HEALTH, "")
      .replace(
        "---@rule: ReviseReplica\n",
        "---@rule: ReviseReplica\n\n-- revise it\nfunction ReviseReplica(obj, n)\n  obj.spec.replicas = n\n  return obj\nend\n\n",
      );
    const edited = applyEdit(c, parseEditable(text));
    expect(edited).toEqual<EditableCustomization>({
      name: "workload",
      apiVersion: "workload.example.io/v1alpha1",
      kind: "Job",
      scripts: {
        Retain: RETAIN,
        ReviseReplica:
          "-- revise it\nfunction ReviseReplica(obj, n)\n  obj.spec.replicas = n\n  return obj\nend\n",
      },
    });
    expect(sameCustomization(c, edited)).toBe(false);

    // What is left of a document's first lines is dropped too; a changed line is the script's.
    const partly = parseEditable(
      "---@rule: InterpretStatus\n-- This rule is used to get the status from the observed specification.\n-- The script should implement a function as follows:\n-- mine\nfunction ReflectStatus(o) return {} end\n",
    );
    expect(partly.scripts).toEqual({ InterpretStatus: "-- mine\nfunction ReflectStatus(o) return {} end\n" });
  });

  it("unsets a rule whose section holds only comments, and keeps the name when its line is gone", () => {
    const text = renderCustomization(c)
      .replace("---@name: workload\n", "")
      .replace(RETAIN, "-- disabled for now\n");
    const edited = applyEdit(c, parseEditable(text));
    expect(edited.name).toBe("workload");
    expect(Object.keys(edited.scripts)).toEqual(["InterpretHealth"]);
  });

  it("says where an edited file does not read back", () => {
    const bad = (text: string) => () => parseEditable(text);
    expect(bad("---@name: x\nfunction Retain() end\n")).toThrow(
      new EditParseError(
        'unexpected line "function Retain() end": scripts go under a "---@rule: <Rule>" line',
      ),
    );
    expect(bad("---@rule: Retian\n")).toThrow(
      'unknown rule "Retian", use one of: Retain, InterpretReplica, InterpretComponent, ReviseReplica, InterpretStatus, AggregateStatus, InterpretHealth, InterpretDependency',
    );
    expect(bad("---@rule: Retain\nx\n---@rule: retain\n")).toThrow('a second "---@rule: Retain" line');
    expect(bad("---@name: a\n---@name: b\n")).toThrow('a second "---@name:" line');
    // Rule names are case-insensitive; blank lines and comments above the rules are fine.
    expect(parseEditable("-- hi\n\n---@rule: interprethealth\nx\n").scripts).toEqual({
      InterpretHealth: "x\n",
    });
  });

  it("strips the header (and earlier problems) but nothing under the rules", () => {
    const text = `${renderHeader("w", ["boom"])}---@name: w\n-- note\n---@rule: Retain\n-- mine\nx\n`;
    expect(stripHeader(text)).toBe("---@name: w\n---@rule: Retain\n-- mine\nx\n");
  });

  it("knows an empty edit: only blank lines and comments", () => {
    expect(isEmptyEdit(`${HEADER}\n   \n-- x\n`)).toBe(true);
    expect(isEmptyEdit(`${HEADER}---@name: w\n`)).toBe(false);
    expect(isEmptyEdit("x")).toBe(false);
  });

  it("wants a name and a target", () => {
    expect(validateEdit({ name: "", apiVersion: "", kind: "K", scripts: {} })).toEqual([
      'the name is empty: set it on the "---@name:" line',
      'the target apiVersion is empty: set it on the "---@apiVersion:" line',
    ]);
    expect(validateEdit(c)).toEqual([]);
  });

  it("builds the object from the original (other fields kept) or from nothing", () => {
    const edited = { ...c, scripts: { InterpretHealth: HEALTH, InterpretStatus: "s\n" } };
    expect(customizationObject(CUSTOMIZATION, edited)).toEqual({
      ...CUSTOMIZATION,
      spec: {
        target: CUSTOMIZATION.spec.target,
        customizations: {
          healthInterpretation: { luaScript: HEALTH },
          statusReflection: { luaScript: "s\n" },
        },
      },
    });
    expect(customizationObject(undefined, { name: "n", apiVersion: "v1", kind: "Pod", scripts: {} })).toEqual(
      {
        apiVersion: "config.karmada.io/v1alpha1",
        kind: "ResourceInterpreterCustomization",
        metadata: { name: "n" },
        spec: { target: { apiVersion: "v1", kind: "Pod" }, customizations: {} },
      },
    );
  });

  it("picks the editor as kubectl does", () => {
    expect(editorCommand({}, "linux")).toEqual({ argv: ["vi"], shell: false });
    expect(editorCommand({}, "win32")).toEqual({ argv: ["notepad"], shell: false });
    expect(editorCommand({ EDITOR: "nano", KUBE_EDITOR: "" }, "linux")).toEqual({
      argv: ["nano"],
      shell: false,
    });
    expect(editorCommand({ EDITOR: "nano", KUBE_EDITOR: "code --wait" }, "linux")).toEqual({
      argv: ["code", "--wait"],
      shell: false,
    });
    expect(editorCommand({ EDITOR: `"my editor" -x` }, "linux")).toEqual({
      argv: ["sh", "-c", `"my editor" -x`],
      shell: true,
    });
  });
});

/**
 * The command with a real editor: KUBE_EDITOR runs a node script that follows a plan (one step per
 * time the editor opens: replacements or new content), keeps a copy of what it was shown and
 * exits non-zero when opened more often than planned.
 */
const EDITOR_SCRIPT = `
import { existsSync, readFileSync, writeFileSync } from "node:fs";
const file = process.argv[2];
const dir = process.env.EDIT_PLAN_DIR;
const n = existsSync(dir + "/count") ? Number(readFileSync(dir + "/count", "utf8")) : 0;
writeFileSync(dir + "/count", String(n + 1));
const shown = readFileSync(file, "utf8");
writeFileSync(dir + "/shown-" + n + ".lua", shown);
writeFileSync(dir + "/path-" + n, file);
const step = JSON.parse(readFileSync(dir + "/plan.json", "utf8"))[n];
if (!step) process.exit(3);
let out = step.content ?? shown;
for (const [from, to] of step.replace ?? []) {
  if (!out.includes(from)) process.exit(4);
  out = out.replace(from, to);
}
writeFileSync(file, out);
`;

interface Step {
  content?: string;
  replace?: Array<[string, string]>;
}

describe("karmadactl interpret --edit with an editor", () => {
  let dir: string;
  let editor: string;
  let planDir: string;
  let seq = 0;
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: { write: (t: string) => out.push(t) > 0 },
    stderr: { write: (t: string) => err.push(t) > 0 },
  };

  const edit = async (
    file: string,
    plan: Step[],
    opts: Partial<Parameters<typeof runInterpret>[0]> = {},
    stdin = "",
  ): Promise<{ stdout: string; stderr: string; shown: string[]; paths: string[] }> => {
    out.length = 0;
    err.length = 0;
    planDir = join(dir, `plan-${seq++}`);
    await mkdir(planDir);
    await writeFile(join(planDir, "plan.json"), JSON.stringify(plan));
    const result = () =>
      Promise.all(
        plan.map(async (_, i) => ({
          shown: await readFile(join(planDir, `shown-${i}.lua`), "utf8").catch(() => ""),
          path: await readFile(join(planDir, `path-${i}`), "utf8").catch(() => ""),
        })),
      ).then((r) => ({
        stdout: out.join(""),
        stderr: err.join(""),
        shown: r.map((x) => x.shown),
        paths: r.map((x) => x.path),
      }));
    await runInterpret(
      {
        filenames: [file],
        check: false,
        edit: true,
        desiredReplica: 0,
        env: { PATH: process.env.PATH, KUBE_EDITOR: `${process.execPath} ${editor}`, EDIT_PLAN_DIR: planDir },
        ...opts,
      },
      io,
      async () => stdin,
    );
    return result();
  };
  const file = async (name: string, content: string): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "karmadactl-interpret-edit-"));
    editor = join(dir, "editor.mjs");
    await writeFile(editor, EDITOR_SCRIPT);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("replaces a rule's script and writes the customization back to the -f file", async () => {
    const path = await file("c.yaml", stringify(CUSTOMIZATION));
    const r = await edit(path, [
      {
        replace: [
          [HEALTH, "function InterpretHealth(observedObj)\n  return true\nend\n"],
          [
            "---@rule: InterpretStatus\n",
            "---@rule: InterpretStatus\nfunction ReflectStatus(o)\n  return o.status\nend\n",
          ],
        ],
      },
    ]);
    expect(r.shown[0]).toBe(renderHeader("workload") + renderCustomization(editableOf(CUSTOMIZATION)));
    expect(r.paths[0]).toMatch(/karmadactl-edit-[0-9a-f]+\.lua$/);
    expect(existsSync(r.paths[0]!)).toBe(false);
    expect(r.stdout).toBe("resourceinterpretercustomization.config.karmada.io/workload edited\n");
    expect(r.stderr).toBe("");
    const saved = await readFile(path, "utf8");
    expect(parse(saved)).toEqual({
      ...CUSTOMIZATION,
      spec: {
        target: CUSTOMIZATION.spec.target,
        customizations: {
          retention: { luaScript: RETAIN },
          statusReflection: { luaScript: "function ReflectStatus(o)\n  return o.status\nend\n" },
          healthInterpretation: { luaScript: "function InterpretHealth(observedObj)\n  return true\nend\n" },
        },
      },
    });
    // As upstream's YAML printer writes it: sorted keys, scripts as literal blocks.
    expect(saved).toContain("      luaScript: |\n        function InterpretHealth(observedObj)\n");

    // And the saved customization runs.
    const w = await file(
      "w.yaml",
      stringify({
        apiVersion: "workload.example.io/v1alpha1",
        kind: "Workload",
        metadata: { name: "w" },
        spec: {},
      }),
    );
    out.length = 0;
    await runInterpret(
      { filenames: [path], check: false, operation: "InterpretHealth", observedFile: w, desiredReplica: 0 },
      io,
    );
    expect(out.join("")).toBe("---\n# [1/1] healthy:\ntrue\n");
  });

  it("shows the rule documents with --show-doc, and changes nothing when nothing is edited", async () => {
    const content = stringify(CUSTOMIZATION);
    const path = await file("same.yaml", content);
    const r = await edit(path, [{}], { showDoc: true });
    expect(r.shown[0]).toContain("---@rule: Retain\n-- This rule is used to retain runtime values");
    expect(r.stderr).toBe("Edit cancelled, no changes made.\n");
    expect(r.stdout).toBe("");
    expect(await readFile(path, "utf8")).toBe(content);
    expect(existsSync(r.paths[0]!)).toBe(false);
  });

  it("reopens a file that does not read back with the error in its header, keeping the edit", async () => {
    const path = await file("retry.yaml", stringify(CUSTOMIZATION));
    const r = await edit(path, [
      { replace: [["---@rule: InterpretHealth", "---@rule: InterpretHealthy"]] },
      {
        replace: [
          ["---@rule: InterpretHealthy", "---@rule: InterpretHealth"],
          ["return observedObj", "return not observedObj"],
        ],
      },
    ]);
    const problem =
      'unknown rule "InterpretHealthy", use one of: Retain, InterpretReplica, InterpretComponent, ReviseReplica, InterpretStatus, AggregateStatus, InterpretHealth, InterpretDependency';
    expect(r.stderr).toBe(`error: resourceinterpretercustomizations "workload" is invalid: ${problem}\n`);
    expect(r.shown[1]).toBe(
      `${renderHeader("workload", [problem])}${renderCustomization(editableOf(CUSTOMIZATION)).replace("---@rule: InterpretHealth", "---@rule: InterpretHealthy")}`,
    );
    expect(r.stdout).toBe("resourceinterpretercustomization.config.karmada.io/workload edited\n");
    expect(r.paths.some((p) => existsSync(p))).toBe(false);
    const saved = parse(await readFile(path, "utf8"));
    expect(saved.spec.customizations.healthInterpretation.luaScript).toContain("return not observedObj");
  });

  it("gives up when a reopened file is saved without changes, and says where the edit is", async () => {
    const content = stringify(CUSTOMIZATION);
    const path = await file("giveup.yaml", content);
    const run = edit(path, [{ replace: [["---@kind: Workload", "---@kind: Workload\noops"]] }, {}]);
    await expect(run).rejects.toThrow(new CommandError("Edit cancelled, no valid changes were saved."));
    const kept = (await readFile(join(planDir, "path-1"), "utf8")).trim();
    expect(existsSync((await readFile(join(planDir, "path-0"), "utf8")).trim())).toBe(false);
    expect(err.join("")).toContain(`A copy of your changes has been stored to "${kept}"`);
    expect(await readFile(kept, "utf8")).toContain("---@kind: Workload\noops\n");
    expect(await readFile(path, "utf8")).toBe(content);
    await rm(kept);
  });

  it("creates a customization in an -f file that has none, asking for a name and a target", async () => {
    const path = await file("new.yaml", "# nothing yet\n");
    const r = await edit(path, [
      {
        replace: [
          [
            "---@rule: InterpretHealth\n",
            "---@rule: InterpretHealth\nfunction InterpretHealth(o) return true end\n",
          ],
        ],
      },
      {
        replace: [
          ["---@name: \n", "---@name: pods\n"],
          ["---@apiVersion: \n", "---@apiVersion: v1\n"],
          ["---@kind: \n", "---@kind: Pod\n"],
        ],
      },
    ]);
    expect(r.shown[0]).toContain(`${HEADER}---@name: \n---@apiVersion: \n---@kind: \n---@rule: Retain\n`);
    expect(r.shown[1]).toContain('-- * the name is empty: set it on the "---@name:" line\n');
    expect(r.stdout).toBe("resourceinterpretercustomization.config.karmada.io/pods edited\n");
    expect(parse(await readFile(path, "utf8"))).toEqual({
      apiVersion: "config.karmada.io/v1alpha1",
      kind: "ResourceInterpreterCustomization",
      metadata: { name: "pods" },
      spec: {
        target: { apiVersion: "v1", kind: "Pod" },
        customizations: {
          healthInterpretation: { luaScript: "function InterpretHealth(o) return true end\n" },
        },
      },
    });
  });

  it("keeps a JSON file JSON, and prints the customization read from stdin", async () => {
    const path = await file("c.json", JSON.stringify(CUSTOMIZATION));
    await edit(path, [{ replace: [["---@name: workload", "---@name: renamed"]] }]);
    const saved = await readFile(path, "utf8");
    expect(saved.startsWith('{\n    "apiVersion": "config.karmada.io/v1alpha1",\n')).toBe(true);
    expect(JSON.parse(saved).metadata.name).toBe("renamed");

    const r = await edit(
      "-",
      [{ replace: [["---@kind: Workload", "---@kind: Job"]] }],
      {},
      stringify(CUSTOMIZATION),
    );
    expect(r.stdout).toMatch(/^apiVersion: config.karmada.io\/v1alpha1\n/);
    expect(parse(r.stdout.replace(/resourceinterpretercustomization.*\n$/, "")).spec.target.kind).toBe("Job");
    expect(r.stdout).toMatch(/\nresourceinterpretercustomization.config.karmada.io\/workload edited\n$/);
  });

  it("aborts on an empty file", async () => {
    const content = stringify(CUSTOMIZATION);
    const path = await file("empty.yaml", content);
    const r = await edit(path, [{ content: "-- nothing\n\n" }]);
    expect(r.stderr).toBe("Edit cancelled, saved file was empty.\n");
    expect(await readFile(path, "utf8")).toBe(content);
  });

  it("says what is wrong with the input or the editor", async () => {
    const one = await file("one.yaml", stringify(CUSTOMIZATION));
    const two = await file("two.yaml", `${stringify(CUSTOMIZATION)}---\n${stringify(CUSTOMIZATION)}`);
    const none = await file("none.yaml", "");
    const pod = await file("pod.yaml", stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" } }));
    await expect(edit(one, [], { check: true })).rejects.toThrow(
      "you can't set both --check and --edit options",
    );
    await expect(edit(two, [])).rejects.toThrow("only one customization can be edited");
    await expect(edit(one, [], { filenames: [one, one] })).rejects.toThrow(
      "only one customization can be edited",
    );
    await expect(edit(none, [], { filenames: [none, none] })).rejects.toThrow(
      "no customizations found. If you want to create a new one, please set only one file with '-f'",
    );
    await expect(edit(pod, [])).rejects.toThrow(
      `${pod}: not a ResourceInterpreterCustomization (apiVersion config.karmada.io/v1alpha1), but v1 Pod`,
    );
    await expect(edit(join(dir, "missing.yaml"), [])).rejects.toThrow(
      `the path "${join(dir, "missing.yaml")}" does not exist`,
    );
    await expect(
      edit(one, [], { env: { PATH: process.env.PATH, EDITOR: "no-such-editor-x" } }),
    ).rejects.toThrow('unable to launch the editor "no-such-editor-x"');
    // The editor script exits 3 when opened more often than planned.
    await expect(edit(one, [])).rejects.toThrow(
      /^there was a problem with the editor ".*editor\.mjs" \(exit 3\)$/,
    );
  });
});
