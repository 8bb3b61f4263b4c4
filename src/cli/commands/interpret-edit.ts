/**
 * `karmadactl interpret -f FILE --edit [--show-doc]`: edit the scripts of one
 * ResourceInterpreterCustomization in an editor, as upstream does. The customization is laid out
 * as a Lua file (annotation lines for its name and target, then one section per rule, each
 * opened by a `---@rule: <Rule>` line and followed by its script), opened in $KUBE_EDITOR,
 * $EDITOR or vi, read back, and written to the -f file (printed when it came from stdin or a URL).
 * A file that does not read back reopens with the problem in its header comment.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CUSTOMIZATION_RULES } from "../../api/karmada/admission/interpreter.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import { jsonToYaml } from "../../overrides/yaml-v2.ts";
import { CommandError, type CommandIO } from "../io.ts";

const RESOURCE = "resourceinterpretercustomizations";
const API_VERSION = "config.karmada.io/v1alpha1";
const KIND = "ResourceInterpreterCustomization";

const COMMENT = "--";
const NAME = "---@name:";
const TARGET_API_VERSION = "---@apiVersion:";
const TARGET_KIND = "---@kind:";
const RULE = "---@rule:";
const ANNOTATIONS = [NAME, TARGET_API_VERSION, TARGET_KIND, RULE];

/** What `--show-doc` prints under each rule's line, keyed by rule (operation) name. */
const RULE_DOCS: Record<string, string> = {
  Retain: `This rule is used to retain runtime values to the desired specification.
The script should implement a function as follows:
function Retain(desiredObj, observedObj)
  desiredObj.spec.fieldFoo = observedObj.spec.fieldFoo
  return desiredObj
end`,
  InterpretReplica: `This rule is used to discover the resource's replica as well as resource requirements.
The script should implement a function as follows:
function GetReplicas(desiredObj)
  local replica = desiredObj.spec.replicas
  local requirement = {}
  requirement.nodeClaim = {}
  requirement.nodeClaim.nodeSelector = desiredObj.spec.template.spec.nodeSelector
  requirement.nodeClaim.tolerations = desiredObj.spec.template.spec.tolerations
  requirement.resourceRequest = desiredObj.spec.template.spec.containers[1].resources.limits
  return replica, requirement
end`,
  InterpretComponent: `This rule is used to discover the resource's components.
The script should implement a function as follows:
function GetComponents(desiredObj)
  local components = {}
  local jobManagerComponent = {
    name = "jobmanager",
    replicas = desiredObj.spec.jobManager.replicas
  }
  table.insert(components, jobManagerComponent)
  local taskManagerComponent = {
    name = "taskmanager",
    replicas = desiredObj.spec.taskManager.replicas
  }
  table.insert(components, taskManagerComponent)
  return components
end`,
  ReviseReplica: `This rule is used to revise replicas in the desired specification.
The script should implement a function as follows:
function ReviseReplica(desiredObj, desiredReplica)
  desiredObj.spec.replicas = desiredReplica
  return desiredObj
end`,
  InterpretStatus: `This rule is used to get the status from the observed specification.
The script should implement a function as follows:
function ReflectStatus(observedObj)
  local status = {}
  status.readyReplicas = observedObj.status.readyReplicas
  return status
end`,
  AggregateStatus: `This rule is used to aggregate decentralized statuses to the desired specification.
The script should implement a function as follows:
function AggregateStatus(desiredObj, statusItems)
  local readyReplicas = 0
  for i = 1, #statusItems do
    readyReplicas = readyReplicas + statusItems[i].status.readyReplicas
  end
  desiredObj.status = desiredObj.status or {}
  desiredObj.status.readyReplicas = readyReplicas
  return desiredObj
end`,
  InterpretHealth: `This rule is used to assess the health state of a specific resource.
The script should implement a function as follows:
function InterpretHealth(observedObj)
  return observedObj.status.readyReplicas == observedObj.spec.replicas
end`,
  InterpretDependency: `This rule is used to interpret the dependencies of a specific resource.
The script should implement a function as follows:
function GetDependencies(desiredObj)
  local dependencies = {}
  local serviceAccountName = desiredObj.spec.template.spec.serviceAccountName
  if serviceAccountName ~= nil and serviceAccountName ~= "default" then
    local dependency = {}
    dependency.apiVersion = "v1"
    dependency.kind = "ServiceAccount"
    dependency.name = serviceAccountName
    dependency.namespace = desiredObj.metadata.namespace
    dependencies[1] = dependency
  end
  return dependencies
end`,
};

/** The editable rules in upstream's order: rule name, spec.customizations field, document. */
export const EDIT_RULES: ReadonlyArray<{ name: string; field: string; doc: string }> =
  CUSTOMIZATION_RULES.map((r) => ({ name: r.operation, field: r.field, doc: RULE_DOCS[r.operation] ?? "" }));

/** What the editable file holds: the name, the target and the script of every rule that is set. */
export interface EditableCustomization {
  name: string;
  apiVersion: string;
  kind: string;
  /** Script per rule name; a rule without a script is unset. */
  scripts: Record<string, string>;
}

/** A file read back; `name` is undefined when its line was removed (the name is then kept). */
export interface ParsedEdit {
  name?: string;
  apiVersion: string;
  kind: string;
  scripts: Record<string, string>;
}

/** The edited file does not read back: the editor reopens with this message in the header. */
export class EditParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EditParseError";
  }
}

type Json = Record<string, unknown>;
const record = (v: unknown): Json | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : undefined;
const text = (v: unknown): string => (typeof v === "string" ? v : "");

export function editableOf(ric: Json | undefined): EditableCustomization {
  const spec = record(ric?.spec);
  const target = record(spec?.target);
  const customizations = record(spec?.customizations);
  const scripts: Record<string, string> = {};
  for (const rule of EDIT_RULES) {
    const script = text(record(customizations?.[rule.field])?.luaScript);
    if (script) scripts[rule.name] = script;
  }
  return {
    name: text(record(ric?.metadata)?.name),
    apiVersion: text(target?.apiVersion),
    kind: text(target?.kind),
    scripts,
  };
}

function comment(lines: string): string {
  return lines
    .split("\n")
    .map((l) => (l ? `${COMMENT} ${l}` : COMMENT))
    .join("\n")
    .concat("\n");
}

/** The header comment; `problems` are why the previous edit was refused. */
export function renderHeader(name: string, problems: string[] = []): string {
  let out = comment(
    [
      "Please edit the object below. Lines beginning with a '--' will be ignored,",
      "and an empty file will abort the edit. If an error occurs while saving this file will be",
      "reopened with the relevant failures.",
      "",
    ].join("\n"),
  );
  if (problems.length > 0) {
    out += comment(`${RESOURCE} "${name}" was not valid:`);
    for (const p of problems) out += comment(`* ${p}`);
    out += `${COMMENT}\n`;
  }
  return out;
}

/** The customization as the editable text (without header): annotations, then one section per rule. */
export function renderCustomization(c: EditableCustomization, showDoc = false): string {
  let out = `${NAME} ${c.name}\n${TARGET_API_VERSION} ${c.apiVersion}\n${TARGET_KIND} ${c.kind}\n`;
  for (const rule of EDIT_RULES) {
    out += `${RULE} ${rule.name}\n`;
    if (showDoc && rule.doc) out += comment(rule.doc);
    const script = c.scripts[rule.name];
    if (script) out += script.endsWith("\n") ? script : `${script}\n`;
  }
  return out;
}

const isComment = (trimmed: string): boolean => trimmed.startsWith(COMMENT);
const isAnnotation = (trimmed: string): boolean => ANNOTATIONS.some((a) => trimmed.startsWith(a));

/** True when the file holds nothing but blank lines and comments: the edit is aborted. */
export function isEmptyEdit(file: string): boolean {
  return file.split(/\r?\n/).every((l) => {
    const t = l.trim();
    return t === "" || (isComment(t) && !isAnnotation(t));
  });
}

/**
 * The file without the comments above its first rule (the header and any earlier problems): what
 * a refused edit reopens with under a new header, and what tells whether a retry changed anything.
 */
export function stripHeader(file: string): string {
  const lines = file.split(/\r?\n/);
  const firstRule = lines.findIndex((l) => l.trim().startsWith(RULE));
  const end = firstRule === -1 ? lines.length : firstRule;
  return lines
    .filter((l, i) => {
      const t = l.trim();
      return i >= end || !isComment(t) || isAnnotation(t);
    })
    .join("\n");
}

/** A section's lines as its script: "" when it holds no code (only blank lines and comments). */
function scriptOf(lines: string[]): string {
  if (lines.every((l) => l.trim() === "" || isComment(l.trim()))) return "";
  let start = 0;
  let end = lines.length;
  while (lines[start]!.trim() === "") start++;
  while (lines[end - 1]!.trim() === "") end--;
  return `${lines.slice(start, end).join("\n")}\n`;
}

/**
 * A section's lines without its rule's document as `--show-doc` prints it: the whole document
 * wherever it is in the section, or else what is left of its first lines right under the rule's line.
 */
function withoutDoc(lines: string[], doc: string[]): string[] {
  if (doc.length === 0) return lines;
  const same = (line: string | undefined, docLine: string): boolean => line?.trimEnd() === docLine.trimEnd();
  for (let i = 0; i + doc.length <= lines.length; i++) {
    if (doc.every((d, k) => same(lines[i + k], d)))
      return [...lines.slice(0, i), ...lines.slice(i + doc.length)];
  }
  let start = 0;
  while (start < lines.length && lines[start]!.trim() === "") start++;
  let end = start;
  while (end < lines.length && end - start < doc.length && same(lines[end], doc[end - start]!)) end++;
  return [...lines.slice(0, start), ...lines.slice(end)];
}

/**
 * Reads an edited file back. Comment lines above the rules are ignored, and so is a rule's
 * document (as `--show-doc` prints it) in its section; other comments in a section are the
 * script's own and are kept, but a section of nothing but comments leaves its rule unset.
 */
export function parseEditable(file: string): ParsedEdit {
  const result: ParsedEdit = { apiVersion: "", kind: "", scripts: {} };
  const seen = new Set<string>();
  let rule: (typeof EDIT_RULES)[number] | undefined;
  let lines: string[] = [];
  const finish = (): void => {
    if (!rule) return;
    const doc = rule.doc ? comment(rule.doc).trimEnd().split("\n") : [];
    const script = scriptOf(withoutDoc(lines, doc));
    if (script) result.scripts[rule.name] = script;
  };
  const once = (annotation: string): void => {
    if (seen.has(annotation)) throw new EditParseError(`a second "${annotation}" line`);
    seen.add(annotation);
  };

  for (const line of file.split(/\r?\n/)) {
    const trimmed = line.trim();
    const value = (annotation: string): string => trimmed.slice(annotation.length).trim();
    if (trimmed.startsWith(NAME)) {
      once(NAME);
      result.name = value(NAME);
    } else if (trimmed.startsWith(TARGET_API_VERSION)) {
      once(TARGET_API_VERSION);
      result.apiVersion = value(TARGET_API_VERSION);
    } else if (trimmed.startsWith(TARGET_KIND)) {
      once(TARGET_KIND);
      result.kind = value(TARGET_KIND);
    } else if (trimmed.startsWith(RULE)) {
      const name = value(RULE);
      const next = EDIT_RULES.find((r) => r.name.toLowerCase() === name.toLowerCase());
      if (!next) {
        throw new EditParseError(
          `unknown rule "${name}", use one of: ${EDIT_RULES.map((r) => r.name).join(", ")}`,
        );
      }
      once(`${RULE} ${next.name}`);
      finish();
      rule = next;
      lines = [];
    } else if (rule) {
      lines.push(line);
    } else if (trimmed !== "" && !isComment(trimmed)) {
      throw new EditParseError(
        `unexpected line ${JSON.stringify(line)}: scripts go under a "${RULE} <Rule>" line`,
      );
    }
  }
  finish();
  return result;
}

const normalized = (script: string): string => script.replace(/^(\s*\n)+/, "").trimEnd();

/** The customization after the edit: unchanged scripts (up to blank lines around them) stay byte for byte. */
export function applyEdit(original: EditableCustomization, edit: ParsedEdit): EditableCustomization {
  const scripts: Record<string, string> = {};
  for (const rule of EDIT_RULES) {
    const edited = edit.scripts[rule.name];
    if (!edited) continue;
    const before = original.scripts[rule.name];
    scripts[rule.name] = before !== undefined && normalized(before) === normalized(edited) ? before : edited;
  }
  return { name: edit.name ?? original.name, apiVersion: edit.apiVersion, kind: edit.kind, scripts };
}

export function sameCustomization(a: EditableCustomization, b: EditableCustomization): boolean {
  if (a.name !== b.name || a.apiVersion !== b.apiVersion || a.kind !== b.kind) return false;
  return EDIT_RULES.every((r) => (a.scripts[r.name] ?? "") === (b.scripts[r.name] ?? ""));
}

/** What keeps an edited customization from being saved, if anything. */
export function validateEdit(c: EditableCustomization): string[] {
  const problems: string[] = [];
  if (!c.name) problems.push(`the name is empty: set it on the "${NAME}" line`);
  if (!c.apiVersion)
    problems.push(`the target apiVersion is empty: set it on the "${TARGET_API_VERSION}" line`);
  if (!c.kind) problems.push(`the target kind is empty: set it on the "${TARGET_KIND}" line`);
  return problems;
}

/** `original` (or a new customization) with the edited name, target and scripts. */
export function customizationObject(original: Json | undefined, c: EditableCustomization): Json {
  const obj: Json = original ? cloneJson(original) : { apiVersion: API_VERSION, kind: KIND };
  obj.metadata = { ...(record(obj.metadata) ?? {}), name: c.name };
  const spec = record(obj.spec) ?? {};
  const customizations = record(spec.customizations) ?? {};
  for (const rule of EDIT_RULES) {
    const script = c.scripts[rule.name];
    if (script)
      customizations[rule.field] = { ...(record(customizations[rule.field]) ?? {}), luaScript: script };
    else delete customizations[rule.field];
  }
  obj.spec = {
    ...spec,
    target: { ...(record(spec.target) ?? {}), apiVersion: c.apiVersion, kind: c.kind },
    customizations,
  };
  return obj;
}

// ---- the editor -------------------------------------------------------------------------------

/** The editor command as kubectl builds it from KUBE_EDITOR, EDITOR or the platform default. */
export function editorCommand(
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): { argv: string[]; shell: boolean } {
  const editor =
    [env.KUBE_EDITOR, env.EDITOR].find((e) => e !== undefined && e.trim() !== "")?.trim() ??
    (platform === "win32" ? "notepad" : "vi");
  if (!editor.includes(" ")) return { argv: [editor], shell: false };
  if (!/["'\\]/.test(editor)) return { argv: editor.split(" ").filter((a) => a !== ""), shell: false };
  // Quoting is the shell's business.
  return { argv: platform === "win32" ? ["cmd", "/C", editor] : ["sh", "-c", editor], shell: true };
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

async function launchEditor(path: string, env: Record<string, string | undefined>): Promise<void> {
  const { argv, shell } = editorCommand(env);
  const args = argv.slice(1);
  if (shell)
    args[args.length - 1] = `${args.at(-1)} ${process.platform === "win32" ? `"${path}"` : shellQuote(path)}`;
  else args.push(path);
  const shown = argv.join(" ");
  await new Promise<void>((resolve, reject) => {
    const child = spawn(argv[0]!, args, { stdio: "inherit", env });
    child.on("error", (err) =>
      reject(
        new CommandError(
          (err as NodeJS.ErrnoException).code === "ENOENT"
            ? `unable to launch the editor "${shown}"`
            : `there was a problem with the editor "${shown}": ${err.message}`,
        ),
      ),
    );
    child.on("exit", (code, signal) =>
      code === 0
        ? resolve()
        : reject(
            new CommandError(`there was a problem with the editor "${shown}" (${signal ?? `exit ${code}`})`),
          ),
    );
  });
}

/** The edited file: a temporary .lua file under the system's temporary directory. */
async function editInTempFile(
  content: string,
  env: Record<string, string | undefined>,
  io: CommandIO,
): Promise<{ path: string; edited: string }> {
  const path = join(tmpdir(), `karmadactl-edit-${randomBytes(6).toString("hex")}.lua`);
  await writeFile(path, content, { flag: "wx", mode: 0o600 });
  try {
    await launchEditor(path, env);
  } catch (err) {
    // Keep what the user typed before the editor failed; drop an untouched file.
    const now = await readFile(path, "utf8").catch(() => content);
    if (now === content) await rm(path, { force: true });
    else io.stderr.write(`A copy of your changes has been stored to "${path}"\n`);
    throw err;
  }
  try {
    return { path, edited: await readFile(path, "utf8") };
  } catch (err) {
    throw new CommandError(`unable to read the edited file "${path}": ${(err as Error).message}`);
  }
}

// ---- the command ------------------------------------------------------------------------------

export interface EditSource {
  /** The -f argument: a path, `-` or an http(s) URL. */
  source: string;
  /** Its content as read. */
  text: string;
  /** Its documents. */
  docs: Json[];
}

export interface EditOptions {
  showDoc: boolean;
  /** Where KUBE_EDITOR and EDITOR are read; also the editor's environment. */
  env: Record<string, string | undefined>;
}

function looksLikeJson(source: string, content: string): boolean {
  const first = content.trimStart()[0];
  if (first !== undefined) return first === "{" || first === "[";
  return source.toLowerCase().endsWith(".json");
}

async function save(target: EditSource, obj: Json, io: CommandIO): Promise<void> {
  const yaml = jsonToYaml(JSON.stringify(obj));
  if (target.source === "-" || /^https?:\/\//.test(target.source)) {
    io.stdout.write(yaml);
    return;
  }
  const content = looksLikeJson(target.source, target.text) ? `${JSON.stringify(obj, null, 4)}\n` : yaml;
  try {
    await writeFile(target.source, content);
  } catch (err) {
    throw new CommandError(`unable to write "${target.source}": ${(err as Error).message}`);
  }
}

/** The file to write back and the one customization in `files`, or none for a new one. */
function editTarget(files: EditSource[]): { target: EditSource; object?: Json } {
  const found = files.flatMap((f) => f.docs.map((doc) => ({ file: f, doc })));
  if (found.length === 0 && files.length !== 1) {
    throw new CommandError(
      "no customizations found. If you want to create a new one, please set only one file with '-f'",
    );
  }
  if (found.length > 1) throw new CommandError("only one customization can be edited");
  if (!found[0]) return { target: files[0]! };
  const { file, doc } = found[0];
  if (doc.kind !== KIND || doc.apiVersion !== API_VERSION) {
    throw new CommandError(
      `${file.source}: not a ResourceInterpreterCustomization (apiVersion ${API_VERSION}), but ${String(doc.apiVersion)} ${String(doc.kind)}`,
    );
  }
  return { target: file, object: doc };
}

/** Runs the edit loop on the one customization in `files` (or a new one when the one file has none). */
export async function runEdit(files: EditSource[], opts: EditOptions, io: CommandIO): Promise<void> {
  const { target, object: originalObject } = editTarget(files);
  const original = editableOf(originalObject);

  let problems: string[] = [];
  let previous: { path: string; edited: string } | undefined;
  for (;;) {
    const body = previous ? stripHeader(previous.edited) : renderCustomization(original, opts.showDoc);
    let current: { path: string; edited: string };
    try {
      current = await editInTempFile(renderHeader(original.name, problems) + body, opts.env, io);
    } catch (err) {
      if (previous) io.stderr.write(`A copy of your changes has been stored to "${previous.path}"\n`);
      throw err;
    }
    if (previous) await rm(previous.path, { force: true });
    if (previous && stripHeader(previous.edited) === stripHeader(current.edited)) {
      io.stderr.write(`A copy of your changes has been stored to "${current.path}"\n`);
      throw new CommandError("Edit cancelled, no valid changes were saved.");
    }
    previous = current;

    if (isEmptyEdit(current.edited)) {
      await rm(current.path, { force: true });
      io.stderr.write("Edit cancelled, saved file was empty.\n");
      return;
    }
    let edited: EditableCustomization;
    try {
      edited = applyEdit(original, parseEditable(current.edited));
    } catch (err) {
      if (!(err instanceof EditParseError)) throw err;
      problems = [err.message];
      io.stderr.write(`error: ${RESOURCE} "${original.name}" is invalid: ${err.message}\n`);
      continue;
    }
    if (sameCustomization(original, edited)) {
      await rm(current.path, { force: true });
      io.stderr.write("Edit cancelled, no changes made.\n");
      return;
    }
    problems = validateEdit(edited);
    if (problems.length > 0) {
      io.stderr.write(`error: ${RESOURCE} "${original.name}" is invalid: ${problems.join("; ")}\n`);
      continue;
    }
    try {
      await save(target, customizationObject(originalObject, edited), io);
    } catch (err) {
      io.stderr.write(`A copy of your changes has been stored to "${current.path}"\n`);
      throw err;
    }
    await rm(current.path, { force: true });
    io.stdout.write(`resourceinterpretercustomization.config.karmada.io/${edited.name} edited\n`);
    return;
  }
}
