/**
 * The karmadactl program: commands as data plus a run function, IO and clients injected.
 */
import { existsSync } from "node:fs";
import { Command, Option } from "commander";
import { runGet } from "./commands/get.ts";
import { DEFAULT_CLUSTER_NAMESPACE, runJoin, runUnjoin } from "./commands/join.ts";
import { clientFactory, defaultKubeconfigPath, type KubeconfigFlags } from "./factory.ts";
import { durationOption, list } from "./flags.ts";
import { CommandError, type CommandIO } from "./io.ts";

/** Go's names for Node's architectures, so `Platform` reads as upstream's (`linux/amd64`). */
const GO_ARCH: Record<string, string> = { x64: "amd64", ia32: "386", arm64: "arm64", arm: "arm" };

export const CLIENT_VERSION = {
  gitVersion: "v0.1.0-karmada-ts",
  platform: `${process.platform}/${GO_ARCH[process.arch] ?? process.arch}`,
};

/**
 * Runs a command body. Every failure is one line on stderr and exit code 1, as kubectl's
 * `CheckErr` prints it: `error: ...`, or `Error from server (Reason): ...` for an API Status.
 * Nothing a user can cause ends in a stack trace.
 */
async function run(io: CommandIO, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (err) {
    process.exitCode = 1;
    const status = (err as { status?: { reason?: string; message?: string } }).status;
    if (!(err instanceof CommandError) && status?.message) {
      io.stderr.write(
        `Error from server${status.reason ? ` (${status.reason})` : ""}: ${oneLine(status.message)}\n`,
      );
      return;
    }
    io.stderr.write(`error: ${oneLine(err instanceof Error ? err.message : String(err))}\n`);
  }
}

function oneLine(message: string): string {
  return message.trim().replace(/\s*\n\s*/g, "; ");
}

export function buildProgram(io: CommandIO, env: Record<string, string | undefined>): Command {
  // Usage mistakes are one line (`error: unknown option '--x'`), without the help dumped after it.
  const program = new Command("karmadactl")
    .description("karmadactl controls a Karmada control plane (karmada-ts)")
    .configureOutput({ writeOut: (t) => io.stdout.write(t), writeErr: (t) => io.stderr.write(t) });
  const withKubeconfig = (cmd: Command): Command =>
    cmd
      .option("--kubeconfig <path>", "path to the kubeconfig of the Karmada control plane")
      .option("--karmada-context <name>", "the kubeconfig context of the Karmada control plane");

  withKubeconfig(
    program
      .command("join")
      .description("Register a cluster to Karmada control plane with Push mode")
      .argument("<CLUSTER_NAME>", "name the cluster gets in Karmada")
      .option(
        "--cluster-kubeconfig <path>",
        "path of the cluster's kubeconfig (default: $KUBECONFIG, else ~/.kube/config)",
      )
      .option(
        "--cluster-context <name>",
        "context of the cluster in the kubeconfig (default: its current context)",
      )
      .option(
        "--cluster-namespace <ns>",
        "namespace in the control plane where member cluster secrets are stored",
        DEFAULT_CLUSTER_NAMESPACE,
      )
      .option("--cluster-provider <provider>", "provider of the joining cluster")
      .option("--cluster-region <region>", "region of the joining cluster")
      .option("--cluster-zones <zones>", "zones of the joining cluster (comma-separated)", list)
      .option("--dry-run", "run the command in dry-run mode, without making any server requests", false),
  ).action((name: string, o: KubeconfigFlags & Record<string, unknown>) =>
    run(io, async () => {
      const clusterKubeconfig = o.clusterKubeconfig
        ? String(o.clusterKubeconfig)
        : defaultKubeconfigPath(env);
      // Upstream falls back to $KUBECONFIG, then ~/.kube/config; say so when that file is missing.
      if (!o.clusterKubeconfig && !existsSync(clusterKubeconfig)) {
        throw new CommandError(
          `failed to get joining cluster config: --cluster-kubeconfig not given and the default kubeconfig ${clusterKubeconfig} does not exist`,
        );
      }
      const clients = clientFactory(o, env);
      try {
        await runJoin(
          {
            name,
            clusterKubeconfig,
            ...(o.clusterContext ? { clusterContext: String(o.clusterContext) } : {}),
            clusterNamespace: String(o.clusterNamespace),
            ...(o.clusterProvider ? { provider: String(o.clusterProvider) } : {}),
            ...(o.clusterRegion ? { region: String(o.clusterRegion) } : {}),
            ...(o.clusterZones ? { zones: o.clusterZones as string[] } : {}),
            dryRun: o.dryRun === true,
          },
          io,
          clients,
        );
      } finally {
        clients.close();
      }
    }),
  );

  withKubeconfig(
    program
      .command("unjoin")
      .description("Remove a cluster from Karmada control plane")
      .argument("<CLUSTER_NAME>", "name of the cluster in Karmada")
      .option(
        "--cluster-kubeconfig <path>",
        "path of the cluster's kubeconfig (to also clean up in the cluster)",
      )
      .option(
        "--cluster-context <name>",
        "context of the cluster in --cluster-kubeconfig (default: CLUSTER_NAME)",
      )
      .option(
        "--cluster-namespace <ns>",
        "namespace in the control plane where member cluster secrets are stored",
        DEFAULT_CLUSTER_NAMESPACE,
      )
      .addOption(durationOption("--wait <duration>", "how long to wait for the cluster to be removed", "60s"))
      .option("--force", "go on when a step fails or times out", false)
      .option("--dry-run", "run the command in dry-run mode, without making any server requests", false),
  ).action((name: string, o: KubeconfigFlags & Record<string, unknown>) =>
    run(io, async () => {
      if (!(Number(o.wait) > 0)) {
        throw new CommandError(`--wait ${Number(o.wait) / 1000}s must be a positive duration, e.g. 1m0s`);
      }
      const clients = clientFactory(o, env);
      try {
        await runUnjoin(
          {
            name,
            ...(o.clusterKubeconfig ? { clusterKubeconfig: String(o.clusterKubeconfig) } : {}),
            // As upstream: without --cluster-context the context named like the cluster.
            clusterContext: o.clusterContext ? String(o.clusterContext) : name,
            clusterNamespace: String(o.clusterNamespace),
            waitMs: Number(o.wait),
            force: o.force === true,
            dryRun: o.dryRun === true,
          },
          io,
          clients,
        );
      } finally {
        clients.close();
      }
    }),
  );

  withKubeconfig(
    program
      .command("get")
      .description("Display one or many resources in the control plane and/or member clusters")
      .argument("<TYPE>", "resource type, e.g. clusters, pp, deployments")
      .argument("[NAME...]", "names")
      .option("-n, --namespace <ns>", "namespace")
      .option("-A, --all-namespaces", "list across all namespaces", false)
      .option("-o, --output <format>", "wide, yaml, json or name")
      .option("-l, --labels <selector>", "label selector, e.g. -l app=web")
      .addOption(
        new Option(
          "-s, --operation-scope <scope>",
          "where to look: the Karmada control plane, the member clusters, or both",
        )
          .choices(["karmada", "members", "all"])
          .default("karmada"),
      )
      .option(
        "-C, --clusters <names>",
        "member clusters to look in, with --operation-scope members or all (comma-separated)",
        list,
        [],
      ),
  ).action((resource: string, names: string[], o: KubeconfigFlags & Record<string, unknown>) =>
    run(io, async () => {
      const output = o.output as string | undefined;
      if (output && !["wide", "yaml", "json", "name"].includes(output)) {
        throw new CommandError(
          `unable to match a printer suitable for the output format "${output}", allowed formats are: json,name,wide,yaml`,
        );
      }
      const clients = clientFactory(o, env);
      try {
        await runGet(
          {
            resource,
            names,
            ...(o.namespace ? { namespace: String(o.namespace) } : {}),
            allNamespaces: o.allNamespaces === true,
            ...(output ? { output } : {}),
            ...(o.labels ? { labelSelector: String(o.labels) } : {}),
            operationScope: o.operationScope as "karmada" | "members" | "all",
            clusters: o.clusters as string[],
          },
          io,
          clients,
        );
      } finally {
        clients.close();
      }
    }),
  );

  program
    .command("version")
    .description("Print the client version information")
    .option("-o, --output <format>", "one of 'yaml' or 'json'")
    .action((opts: { output?: string }) =>
      run(io, async () => {
        // Loaded here only: the API server's module graph would slow every other command down.
        const { VERSION } = await import("../apiserver/server.ts");
        const info = { ...CLIENT_VERSION, kubernetesApiVersion: VERSION.gitVersion };
        if (opts.output === "json") io.stdout.write(`${JSON.stringify({ clientVersion: info }, null, 2)}\n`);
        else if (opts.output === "yaml")
          io.stdout.write(`clientVersion:\n  gitVersion: ${info.gitVersion}\n  platform: ${info.platform}\n`);
        else if (opts.output) throw new CommandError("--output must be 'yaml' or 'json'");
        else
          io.stdout.write(
            `karmadactl version: version.Info{GitVersion:"${info.gitVersion}", Platform:"${info.platform}"}\n`,
          );
      }),
    );
  return program;
}
