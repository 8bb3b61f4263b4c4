/**
 * The karmadactl program: commands as data plus a run function, IO and clients injected.
 */
import { Command, InvalidArgumentError, Option } from "commander";
import { VERSION } from "../apiserver/server.ts";
import { runGet } from "./commands/get.ts";
import { DEFAULT_CLUSTER_NAMESPACE, runJoin, runUnjoin } from "./commands/join.ts";
import { clientFactory, type KubeconfigFlags } from "./factory.ts";
import { durationOption, list } from "./flags.ts";
import { CommandError, type CommandIO } from "./io.ts";

export const CLIENT_VERSION = {
  gitVersion: "v0.1.0-karmada-ts",
  platform: `${process.platform}/${process.arch}`,
};

/** Runs a command body, turning user-facing failures into `error: ...` and exit code 1. */
async function run(io: CommandIO, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (err) {
    if (err instanceof CommandError) {
      io.stderr.write(`error: ${err.message}\n`);
      process.exitCode = 1;
      return;
    }
    const status = (err as { status?: { reason?: string; message?: string } }).status;
    if (status?.message) {
      io.stderr.write(`Error from server${status.reason ? ` (${status.reason})` : ""}: ${status.message}\n`);
      process.exitCode = 1;
      return;
    }
    throw err;
  }
}

export function buildProgram(io: CommandIO, env: Record<string, string | undefined>): Command {
  const program = new Command("karmadactl")
    .description("karmadactl controls a Karmada control plane (karmada-ts)")
    .showHelpAfterError()
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
      .requiredOption("--cluster-kubeconfig <path>", "path of the cluster's kubeconfig")
      .option("--cluster-context <name>", "context of the cluster in --cluster-kubeconfig")
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
      const clients = clientFactory(o, env);
      try {
        await runJoin(
          {
            name,
            clusterKubeconfig: String(o.clusterKubeconfig),
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
      .option("--cluster-context <name>", "context of the cluster in --cluster-kubeconfig")
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
      const clients = clientFactory(o, env);
      try {
        await runUnjoin(
          {
            name,
            ...(o.clusterKubeconfig ? { clusterKubeconfig: String(o.clusterKubeconfig) } : {}),
            ...(o.clusterContext ? { clusterContext: String(o.clusterContext) } : {}),
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
      .option("-l, --selector <selector>", "label selector")
      .addOption(
        new Option("-s, --operation-scope <scope>", "where to look")
          .choices(["karmada", "members", "all"])
          .default("karmada"),
      )
      .option("-C, --clusters <names>", "member clusters to look in (comma-separated)", list, []),
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
            ...(o.selector ? { labelSelector: String(o.selector) } : {}),
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
