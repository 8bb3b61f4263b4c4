/**
 * Hostile command lines and files for karmadactl, against a real control plane (real TLS,
 * the admin's client certificate). Every command gets its own flags with wrong values,
 * unknown flags, missing values, loose arguments, and -f files that are broken in every way
 * (invalid YAML/JSON, duplicate keys, garbage after good documents, huge, deeply nested,
 * invalid UTF-8, wrong kinds, missing fields). Properties: a run ends (bounded), never prints
 * a stack trace or a JS error name, exits 0 or 1, and a non-zero exit is one `error: ...`
 * (or `Error from server ...`) line; input that is invalid by construction also leaves the
 * control plane's store at the same revision.
 *
 * Most runs call the program in-process (`buildProgram` with our own output streams; the
 * commands commander parses exit through `exitOverride`); a few run the real executable to
 * show it answers the same.
 *
 * Seeded: FUZZ_SEED (default 20240917) and FUZZ_RUNS (default 60 per property) widen a run.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Command, CommanderError } from "commander";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningControlPlane, startLocalControlPlane } from "../../src/bin/control-plane.ts";
import { buildProgram } from "../../src/cli/main.ts";
import { RESOURCES } from "../../src/client/client.ts";
import { kubeconfigFor, writeKubeconfig } from "../../src/client/kubeconfig.ts";
import { LocalClient } from "../../src/client/local.ts";
import { COMMANDS, commandLine, hostileDocument } from "./cli-inputs.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20240917);
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const KARMADACTL = fileURLToPath(new URL("../../bin/karmadactl", import.meta.url));
/** Far beyond any run here: a run that reaches it is a hang, not a slow machine. */
const HANG_MS = 45_000;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

let cp: RunningControlPlane;
let dir: string;
let kubeconfig: string;
let env: Record<string, string>;
/** -f files: broken documents written once, shared by the examples. */
const files: string[] = [];

function exitOverride(cmd: Command): void {
  cmd.exitOverride();
  for (const sub of cmd.commands) exitOverride(sub);
}

/** karmadactl in this process: the program `src/bin/karmadactl.ts` runs, with our streams. */
async function karmadactl(args: readonly string[]): Promise<Result> {
  let stdout = "";
  let stderr = "";
  const program = buildProgram(
    {
      stdout: {
        write: (t) => {
          stdout += t;
        },
      },
      stderr: {
        write: (t) => {
          stderr += t;
        },
      },
    },
    env,
  );
  exitOverride(program);
  process.exitCode = undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const hang = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`karmadactl ${args.join(" ")}: no answer in ${HANG_MS} ms`)),
        HANG_MS,
      );
    });
    await Promise.race([program.parseAsync([...args], { from: "user" }), hang]);
    return { code: Number(process.exitCode ?? 0), stdout, stderr };
  } catch (err) {
    if (err instanceof CommanderError) return { code: err.exitCode, stdout, stderr };
    // Anything else escaped the command's own error handling: the binary would print a stack.
    throw err;
  } finally {
    clearTimeout(timer);
    process.exitCode = undefined;
  }
}

/** The real executable, its stdin given (then closed). */
function karmadactlProcess(args: readonly string[], stdin = ""): Promise<Result> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [KARMADACTL, ...args],
      { env, timeout: HANG_MS, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(stdin);
  });
}

/** What every run must satisfy, valid input or not. */
function expectNoCrash(args: readonly string[], r: Result): void {
  const where = `karmadactl ${JSON.stringify(args).slice(0, 300)}\nstderr: ${r.stderr.slice(0, 500)}`;
  expect(r.stderr, where).not.toMatch(/\n\s+at .+[(:]\d+/);
  expect(r.stderr, where).not.toMatch(/\b(TypeError|RangeError|ReferenceError|SyntaxError|AssertionError)\b/);
  expect(r.stdout, where).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
  expect([0, 1], where).toContain(r.code);
  if (r.code !== 0) expect(r.stderr, where).toMatch(/^(error: |Error from server)[^\n]*\n$/);
}

/** Input that is invalid by construction: one error line, exit 1, and nothing written. */
async function expectRefused(args: readonly string[]): Promise<Result> {
  const before = await cp.store.currentRevision();
  const r = await karmadactl(args);
  expectNoCrash(args, r);
  expect(r.code, `karmadactl ${args.join(" ")} exited 0: ${r.stdout}`).toBe(1);
  expect(await cp.store.currentRevision(), `karmadactl ${args.join(" ")} wrote to the control plane`).toBe(
    before,
  );
  return r;
}

beforeAll(async () => {
  cp = await startLocalControlPlane();
  dir = await mkdtemp(join(tmpdir(), "karmada-ts-fuzz-cli-"));
  kubeconfig = join(dir, "karmada.config");
  await writeKubeconfig(
    kubeconfig,
    kubeconfigFor([{ name: "karmada-apiserver", connection: cp.connection }]),
  );
  // Its own HOME (no ~/.kube/config), no KUBECONFIG, an editor that changes nothing.
  env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, KUBE_EDITOR: "true" };
  const client = new LocalClient(cp.api.context, { fieldManager: "fuzz" });
  await client.create(RESOURCES.clusters, {
    apiVersion: "cluster.karmada.io/v1alpha1",
    kind: "Cluster",
    metadata: { name: "member1" },
    spec: { syncMode: "Push", apiEndpoint: "https://member1.example:6443" },
  });
  const docs = fc.sample(hostileDocument, { seed: SEED, numRuns: 40 });
  for (const [i, doc] of docs.entries()) {
    const path = join(dir, `doc-${i}.${i % 2 ? "json" : "yaml"}`);
    await writeFile(path, doc);
    files.push(path);
  }
  files.push(kubeconfig, join(dir, "missing.yaml"), dir);
});

afterAll(async () => {
  await cp?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** In-process runs cannot give a command stdin: `-` as a file would wait on the worker's. */
const withoutStdin = (args: string[]): string[] => args.map((a) => (a === "-" ? "--" : a));

describe("karmadactl on hostile input (fuzzed)", { timeout: 240_000 }, () => {
  it("every command, any flags: ends, no stack trace, one error line when it fails", async () => {
    const commands = Object.keys(COMMANDS);
    await fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(...commands)
          .chain((command) => fc.tuple(fc.constant(command), commandLine(command, files), fc.boolean())),
        async ([command, line, withControlPlane]) => {
          // Register's --kubeconfig is the member's: it never gets a reachable one, so it never
          // waits out its discovery timeout against the control plane.
          const target =
            withControlPlane && command !== "register" && command !== "unregister"
              ? ["--kubeconfig", kubeconfig, "--karmada-context", "karmada-apiserver"]
              : [];
          const args = withoutStdin([...line, ...target]);
          expectNoCrash(args, await karmadactl(args));
        },
      ),
      { seed: SEED, numRuns: RUNS * 3 },
    );
  });

  it("files: broken -f documents for simulate and interpret end in one error line, and simulate writes nothing", async () => {
    const operations = [
      "--check",
      "retain",
      "interpretReplica",
      "reviseReplica",
      "interpretStatus",
      "aggregateStatus",
      "interpretHealth",
      "interpretDependency",
      "InterpretComponent",
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...files),
        fc.constantFrom(...files),
        fc.constantFrom(...operations),
        fc.boolean(),
        async (file, other, operation, simulate) => {
          if (simulate) {
            const before = await cp.store.currentRevision();
            const args = ["simulate", "-f", file, "--kubeconfig", kubeconfig];
            expectNoCrash(args, await karmadactl(args));
            expect(await cp.store.currentRevision()).toBe(before);
            return;
          }
          const args =
            operation === "--check"
              ? ["interpret", "-f", file, "--check"]
              : [
                  "interpret",
                  "-f",
                  file,
                  "--operation",
                  operation,
                  "--observed-file",
                  other,
                  "--desired-file",
                  other,
                  "--status-file",
                  other,
                ];
          expectNoCrash(args, await karmadactl(args));
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("commands that write: invalid input is refused with one line and leaves the store as it was", async () => {
    const cp$ = () => ["--kubeconfig", kubeconfig, "--karmada-context", "karmada-apiserver"];
    // Valid command lines (each would write), then one defect that makes each invalid.
    const bases: Record<string, string[]> = {
      cordon: ["cordon", "member1"],
      uncordon: ["uncordon", "member1"],
      taint: ["taint", "clusters", "member1", "fuzz=x:NoSchedule"],
      "token create": ["token", "create"],
      "token delete": ["token", "delete", "abcdef"],
      join: ["join", "member2", "--cluster-kubeconfig", kubeconfig, "--cluster-context", "karmada-apiserver"],
      unjoin: ["unjoin", "member1"],
    };
    const defect = fc.oneof(
      fc
        .constantFrom("--no-such-flag", "--no-such-flag=1", "-Z", "--dry-run=maybe")
        .map((f) => ({ kind: "flag", value: f })),
      fc.constantFrom("--kubeconfig", "--karmada-context").map((f) => ({ kind: "missing", value: f })),
      fc
        .constantFrom("1d", "abc", "-1s", "10", "1e3s", "h", "1h-", "")
        .map((d) => ({ kind: "duration", value: d })),
      fc
        .constantFrom("Member_1", "-member", "a".repeat(300), "x/y", "MEMBER1", "")
        .map((n) => ({ kind: "name", value: n })),
      fc
        .constantFrom(
          "k=v:Bogus",
          "=v:NoSchedule",
          "k=v",
          `k=${"v".repeat(64)}:NoSchedule`,
          "k_=v:NoExecute-x",
          "a/b/c=v:NoSchedule",
          ":",
        )
        .map((t) => ({ kind: "taint", value: t })),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(bases)), defect, fc.nat(), async (command, d, at) => {
        let args = [...bases[command]!, ...cp$()];
        const words = command.split(" ").length;
        switch (d.kind) {
          case "flag": {
            const i = words + (at % (args.length - words + 1));
            args.splice(i, 0, d.value);
            break;
          }
          case "missing":
            args = [...args, d.value];
            break;
          case "duration":
            // Only unjoin (--wait) and token create (--ttl) take durations; elsewhere it is unknown.
            args.push(
              command === "unjoin" ? "--wait" : command === "token create" ? "--ttl" : "--wait",
              d.value,
            );
            break;
          case "name":
            if (command === "token create" || command === "token delete")
              args.push(d.value === "" ? "--x" : d.value, "--no-such");
            else args = args.map((a) => (a === "member1" || a === "member2" ? d.value : a));
            break;
          case "taint":
            if (command === "taint") args[3] = d.value;
            else args.push("--taint", d.value);
            break;
        }
        // "" for a duration is accepted by no parser; for a name it must not select everything.
        await expectRefused(args);
      }),
      { seed: SEED, numRuns: RUNS * 2 },
    );
  });

  it("regression: commander's suggestion stays on the error's line", async () => {
    const r = await expectRefused(["unjoin", "member1", "--taint", "k=v:Bogus", "--kubeconfig", kubeconfig]);
    expect(r.stderr).toBe("error: unknown option '--taint'; (Did you mean --wait?)\n");
  });

  it("the same commands, valid, do write (so the check above can see a write)", async () => {
    const before = await cp.store.currentRevision();
    const cordon = await karmadactl(["cordon", "member1", "--kubeconfig", kubeconfig]);
    expect(cordon).toEqual({ code: 0, stdout: "member1 cluster cordoned\n", stderr: "" });
    expect(await cp.store.currentRevision()).toBeGreaterThan(before);
    expect((await karmadactl(["uncordon", "member1", "--kubeconfig", kubeconfig])).code).toBe(0);
  });

  it("the executable answers as the in-process program does, and reads -f - from stdin", async () => {
    const cases: string[][] = [
      ["cordon", "member1", "--no-such-flag", "--kubeconfig", kubeconfig],
      ["unjoin", "member1", "--wait", "1d", "--kubeconfig", kubeconfig],
      ["taint", "clusters", "member1", "k=v:Bogus", "--kubeconfig", kubeconfig],
      ["get", "clusters", "-l", "app notin (", "--kubeconfig", kubeconfig],
      ["interpret", "-f", files[0]!, "--check"],
      ["version", "-o", "xml"],
    ];
    const [inProcess, spawned] = await Promise.all([
      (async () => {
        const out: Result[] = [];
        for (const args of cases) out.push(await karmadactl(args));
        return out;
      })(),
      Promise.all(cases.map((args) => karmadactlProcess(args))),
    ]);
    for (const [i, args] of cases.entries()) {
      expectNoCrash(args, spawned[i]!);
      expect(spawned[i], args.join(" ")).toEqual(inProcess[i]);
    }
    // Garbage on stdin for -f -: one error line from the real binary, no stack trace.
    for (const input of ["\xff\xfe\x00garbage: [", `${"[".repeat(50_000)}`]) {
      const r = await karmadactlProcess(["interpret", "-f", "-", "--check"], input);
      expectNoCrash(["interpret", "-f", "-", "--check", input.slice(0, 20)], r);
      expect(r.code).toBe(1);
    }
  });
});
