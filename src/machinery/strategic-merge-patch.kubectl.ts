/**
 * Runs the real `kubectl patch --local` as an oracle for the patch engines: it applies a patch
 * to an object on disk with the Go libraries the API server uses, without any server.
 * Test support only.
 */

import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export const KUBECTL = "/usr/bin/kubectl";
export const kubectlAvailable = existsSync(KUBECTL);

/** A kubeconfig pointing nowhere: `--local` must never need a server. */
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://127.0.0.1:1"}}]
contexts: [{name: none, context: {cluster: none, user: none}}]
users: [{name: none, user: {}}]
current-context: none
`;

export type KubectlOutcome = { ok: true; object: unknown } | { ok: false; error: string };

export interface KubectlPatcher {
  patch(object: unknown, patch: unknown, type: "strategic" | "merge" | "json"): Promise<KubectlOutcome>;
  close(): Promise<void>;
}

/** A patcher with its own temporary HOME and kubeconfig; call `close` to remove them. */
export async function kubectlPatcher(): Promise<KubectlPatcher> {
  const dir = await mkdtemp(join(tmpdir(), "karmada-ts-kubectl-"));
  const kubeconfig = join(dir, "kubeconfig");
  await writeFile(kubeconfig, KUBECONFIG);
  let counter = 0;
  return {
    async patch(object, patch, type) {
      const file = join(dir, `object-${counter++}.json`);
      await writeFile(file, JSON.stringify(object));
      const args = [
        "patch",
        "--local",
        "-f",
        file,
        "--type",
        type,
        "-p",
        JSON.stringify(patch),
        "-o",
        "json",
      ];
      const env = { HOME: dir, KUBECONFIG: kubeconfig };
      try {
        const { stdout } = await run(KUBECTL, args, { env });
        return { ok: true, object: JSON.parse(stdout) };
      } catch (err) {
        const stderr = (err as { stderr?: string }).stderr ?? String(err);
        return { ok: false, error: stderr.trim().replace(/^error: /, "") };
      }
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}
