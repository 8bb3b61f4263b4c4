/**
 * The karmadactl program: commands as data plus a run function, IO and clients injected.
 */
import { existsSync } from "node:fs";
import { Command, Option } from "commander";
import { clusterNameErrors } from "../api/karmada/admission/cluster.ts";
import type { Client } from "../client/client.ts";
import { runCordon } from "./commands/cordon.ts";
import { runDescribe } from "./commands/describe.ts";
import { runGet } from "./commands/get.ts";
import { runInterpret } from "./commands/interpret.ts";
import { DEFAULT_CLUSTER_NAMESPACE, runJoin, runUnjoin } from "./commands/join.ts";
import { runLogs } from "./commands/logs.ts";
import { normalizePflagArgs, runPromote } from "./commands/promote.ts";
import {
  agentControlPlaneClient,
  DEFAULT_AGENT_IMAGE,
  runRegister,
  runUnregister,
} from "./commands/register.ts";
import { runTaint } from "./commands/taint.ts";
import { DEFAULT_TOKEN_OPTIONS, runTokenCreate, runTokenDelete, runTokenList } from "./commands/token.ts";
import { clientFactory, defaultKubeconfigPath, type KubeconfigFlags } from "./factory.ts";
import { count, duration, durationOption, list } from "./flags.ts";
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
    .configureOutput({
      writeOut: (t) => io.stdout.write(t),
      writeErr: (t) => io.stderr.write(t),
      // Commander adds its suggestion on a second line ("(Did you mean --wait?)"): keep one.
      outputError: (t, write) => write(`${oneLine(t)}\n`),
    });
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

  const describe = withKubeconfig(
    program
      .command("describe")
      .summary(
        "Show details of a specific resource or group of resources in Karmada control plane or a member cluster",
      )
      .description(
        [
          "Show details of a specific resource or group of resources in Karmada control plane or a member cluster.",
          "",
          "Print a detailed description of the selected resources, including related resources such as events. You may select a single object by name, all objects of that type, provide a name prefix, or label selector. `karmadactl describe TYPE NAME_PREFIX` first checks for an exact match on TYPE and NAME_PREFIX; if no such resource exists, it describes every resource whose name starts with NAME_PREFIX.",
          "",
          "A ResourceBinding or ClusterResourceBinding also shows how the scheduler placed it (Scheduling): per cluster, why it was selected or which plugin filtered it out.",
        ].join("\n"),
      )
      .usage(
        "(TYPE [NAME_PREFIX | -l label] | TYPE/NAME) [--operation-scope=SCOPE --cluster=CLUSTER] [options]",
      )
      .argument("[TYPE]", "resource type, e.g. rb, deployment, clusters, or TYPE/NAME")
      .argument("[NAME...]", "names or name prefixes")
      .option("-n, --namespace <ns>", "If present, the namespace scope for this CLI request.")
      .option(
        "-A, --all-namespaces",
        "If present, list the requested object(s) across all namespaces. Namespace in current context is ignored even if specified with --namespace.",
        false,
      )
      .option(
        "-l, --selector <selector>",
        "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)).",
      )
      .option(
        "--show-events",
        "If true, display events related to the described object (default: true; --show-events=false to hide them).",
      )
      .addOption(new Option("--no-show-events").hideHelp())
      .addOption(
        new Option(
          "-s, --operation-scope <scope>",
          "Used to control the operation scope of the command. The optional values are karmada and members. Defaults to karmada.",
        )
          .choices(["karmada", "members", "all"])
          .default("karmada"),
      )
      .option(
        "-C, --cluster <name>",
        "Used to specify a target member cluster and only takes effect when the command's operation scope is members, for example: --operation-scope=members --cluster=member1",
      )
      .addHelpText(
        "after",
        [
          "",
          "Examples:",
          "  # Describe a deployment in Karmada control plane",
          "  karmadactl describe deployment/nginx",
          "",
          "  # Describe the binding of deployment nginx, with how it was scheduled",
          "  karmadactl describe rb nginx-deployment -n default",
          "",
          "  # Describe a pod in cluster(member1)",
          "  karmadactl describe pods/nginx --operation-scope=members --cluster=member1",
          "",
          "  # Describe pods by label name=myLabel in cluster(member1)",
          "  karmadactl describe po -l name=myLabel --operation-scope=members --cluster=member1",
        ].join("\n"),
      ),
  ).action((_type: unknown, _names: unknown, o: KubeconfigFlags & Record<string, unknown>, cmd: Command) =>
    run(io, async () => {
      const clients = clientFactory(o, env);
      try {
        await runDescribe(
          {
            args: cmd.args,
            ...(o.namespace ? { namespace: String(o.namespace) } : {}),
            allNamespaces: o.allNamespaces === true,
            ...(o.selector ? { labelSelector: String(o.selector) } : {}),
            operationScope: o.operationScope as "karmada" | "members" | "all",
            ...(o.cluster ? { cluster: String(o.cluster) } : {}),
            showEvents: o.showEvents !== false,
            showEventsExplicit: cmd.getOptionValueSource("showEvents") === "cli",
            now: Date.now,
          },
          io,
          clients,
        );
      } finally {
        clients.close();
      }
    }),
  );
  // kubectl's and upstream's spellings: `-C=member1`, `--show-events=false`.
  const parseDescribeOptions = describe.parseOptions.bind(describe);
  describe.parseOptions = (argv) => parseDescribeOptions(normalizePflagArgs(argv, [{ long: "show-events" }]));

  const logs = withKubeconfig(
    program
      .command("logs")
      .summary("Print the logs for a container in a pod in a member cluster")
      .description(
        "Print the logs for a container in a pod in a member cluster, read through the control plane's cluster proxy (the member authorizes you). If the pod has only one container, the container name is optional.",
      )
      .usage("[-f] [-p] (POD | TYPE/NAME) [-c CONTAINER] (-C CLUSTER)")
      .argument("<POD>", "the pod, as NAME or pod/NAME")
      .option("-C, --cluster <name>", "Specify a member cluster")
      .option("-n, --namespace <ns>", "If present, the namespace scope for this CLI request.", "default")
      .option("-c, --container <name>", "Print the logs of this container")
      .option("-f, --follow", "Specify if the logs should be streamed.", false)
      .option(
        "-p, --previous",
        "If true, print the logs for the previous instance of the container in a pod if it exists.",
        false,
      )
      .option("--timestamps", "Include timestamps on each line in the log output", false)
      .option(
        "--tail <lines>",
        "Lines of recent log file to display. Defaults to -1 (all lines).",
        (v) => Number.parseInt(v, 10),
        -1,
      )
      .option("--limit-bytes <bytes>", "Maximum bytes of logs to return. Defaults to no limit.", count)
      .option(
        "--since <duration>",
        "Only return logs newer than a relative duration like 5s, 2m, or 3h.",
        duration,
      )
      .option("--since-time <time>", "Only return logs after a specific date (RFC3339)."),
  ).action((target: string, o: KubeconfigFlags & Record<string, unknown>) =>
    run(io, async () => {
      const clients = clientFactory(o, env);
      try {
        const tail = Number(o.tail);
        await runLogs(
          {
            target,
            ...(o.cluster ? { cluster: String(o.cluster) } : {}),
            namespace: String(o.namespace ?? "default"),
            ...(o.container ? { container: String(o.container) } : {}),
            follow: o.follow === true,
            previous: o.previous === true,
            timestamps: o.timestamps === true,
            ...(Number.isInteger(tail) && tail >= 0 ? { tailLines: tail } : {}),
            ...(o.limitBytes !== undefined ? { limitBytes: Number(o.limitBytes) } : {}),
            ...(o.since !== undefined
              ? { sinceSeconds: Math.max(1, Math.ceil(Number(o.since) / 1000)) }
              : {}),
            ...(o.sinceTime ? { sinceTime: String(o.sinceTime) } : {}),
          },
          io,
          clients,
        );
      } finally {
        clients.close();
      }
    }),
  );
  const parseLogsOptions = logs.parseOptions.bind(logs);
  logs.parseOptions = (argv) => parseLogsOptions(normalizePflagArgs(argv, []));

  const promote = withKubeconfig(
    program
      .command("promote")
      .summary("Promote resources from legacy clusters to Karmada control plane")
      .description(
        [
          "Promote resources from legacy clusters to Karmada control plane. Requires the cluster to have been joined or registered.",
          "",
          "If the resource already exists in the Karmada control plane, please edit PropagationPolicy and OverridePolicy to propagate it.",
          "",
          "The member cluster is read with --cluster-kubeconfig (in the context --cluster-context, else the one named like the cluster) or, without it, through the context named like the cluster in the control plane's kubeconfig (--kubeconfig). Upstream goes through the control plane's cluster proxy instead.",
        ].join("\n"),
      )
      .usage("<RESOURCE_TYPE> <RESOURCE_NAME> -n <NAME_SPACE> -C <CLUSTER_NAME> [options]")
      .argument("[RESOURCE_TYPE]", "resource type, e.g. deployment, cm, deployment.v1.apps")
      .argument("[RESOURCE_NAME]", "name of the resource in the member cluster")
      // Upstream checks the count itself, with its own message.
      .allowExcessArguments(true)
      .option("-n, --namespace <ns>", "namespace of the resource (namespaced resources only)", "default")
      .option("-C, --cluster <name>", "Name of the legacy cluster (e.g. -C=member1)")
      .option("--cluster-kubeconfig <path>", "Path of the legacy cluster's kubeconfig.")
      .option(
        "--cluster-context <name>",
        "Context name of legacy cluster in kubeconfig (default: the cluster's name).",
      )
      .option(
        "-d, --dependencies",
        "Promote resource with its dependencies automatically, default to false",
        false,
      )
      .addOption(new Option("--no-dependencies").hideHelp())
      .option(
        "--auto-create-policy",
        "Automatically create a PropagationPolicy for namespace-scoped resources or create a ClusterPropagationPolicy for cluster-scoped resources (--auto-create-policy=false to skip).",
        true,
      )
      .addOption(new Option("--no-auto-create-policy").hideHelp())
      .option(
        "--policy-name <name>",
        "The name of the PropagationPolicy(or ClusterPropagationPolicy) that is automatically created after promotion. If not specified, the name will be the resource name with a hash suffix that is generated by resource metadata.",
      )
      .option("--dry-run", "Run the command in dry-run mode, without making any server requests.")
      .addOption(new Option("--no-dry-run").hideHelp())
      .option("-o, --output <format>", "Output format. One of: json|yaml")
      .addHelpText(
        "after",
        [
          "",
          "Examples:",
          "  # Promote deployment(default/nginx) from cluster1 to Karmada",
          "  karmadactl promote deployment nginx -n default -C cluster1",
          "",
          "  # Promote deployment(default/nginx) with gvk from cluster1 to Karmada",
          "  karmadactl promote deployment.v1.apps nginx -n default -C cluster1",
          "",
          "  # Dumps the artifacts but does not deploy them to Karmada, same as 'dry run'",
          "  karmadactl promote deployment nginx -n default -C cluster1 -o yaml|json",
          "",
          "  # Promote resource with its dependencies automatically",
          "  karmadactl promote deployment nginx -n default -C cluster1 -d=true",
          "",
          "  # Use '--cluster-kubeconfig' and '--cluster-context' to reach the member cluster",
          "  karmadactl promote deployment nginx -n default -C cluster1 --cluster-kubeconfig=<CLUSTER_KUBECONFIG_PATH> --cluster-context=<CLUSTER_CONTEXT>",
        ].join("\n"),
      ),
  ).action((_type: unknown, _name: unknown, o: KubeconfigFlags & Record<string, unknown>, cmd: Command) =>
    run(io, async () => {
      const clients = clientFactory(o, env);
      try {
        await runPromote(
          {
            args: cmd.args,
            cluster: String(o.cluster ?? ""),
            namespace: String(o.namespace),
            ...(o.clusterKubeconfig ? { clusterKubeconfig: String(o.clusterKubeconfig) } : {}),
            ...(o.clusterContext ? { clusterContext: String(o.clusterContext) } : {}),
            controlPlaneKubeconfig: o.kubeconfig ?? defaultKubeconfigPath(env),
            dependencies: o.dependencies === true,
            autoCreatePolicy: o.autoCreatePolicy !== false,
            ...(o.policyName ? { policyName: String(o.policyName) } : {}),
            dryRun: o.dryRun === true,
            ...(o.output !== undefined ? { output: String(o.output) } : {}),
          },
          io,
          clients,
        );
      } finally {
        clients.close();
      }
    }),
  );
  // Upstream's examples use pflag spellings (`-C=member1`, `-d=true`, `--auto-create-policy=false`).
  const parsePromoteOptions = promote.parseOptions.bind(promote);
  promote.parseOptions = (argv) =>
    parsePromoteOptions(
      normalizePflagArgs(argv, [
        { long: "dependencies", short: "d" },
        { long: "auto-create-policy" },
        { long: "dry-run" },
      ]),
    );

  // Cluster management: cordon, uncordon, taint (upstream's flags: kubeconfig, --dry-run, --overwrite).
  const pflagBooleans = (cmd: Command, longs = ["dry-run", "overwrite"]): Command => {
    for (const long of longs) {
      if (!cmd.options.some((o) => o.long === `--no-${long}`))
        cmd.addOption(new Option(`--no-${long}`).hideHelp());
    }
    const parse = cmd.parseOptions.bind(cmd);
    cmd.parseOptions = (argv) =>
      parse(
        normalizePflagArgs(
          argv,
          longs.map((long) => ({ long })),
        ),
      );
    return cmd;
  };
  for (const cordon of [true, false]) {
    const verb = cordon ? "cordon" : "uncordon";
    const mark = cordon ? "unschedulable" : "schedulable";
    pflagBooleans(
      withKubeconfig(
        program
          .command(verb)
          .summary(`Mark cluster as ${mark}`)
          .description(`Mark cluster as ${mark}.`)
          .usage("CLUSTER [options]")
          .argument("[CLUSTER...]", "name of the cluster")
          .option("--dry-run", "Run the command in dry-run mode, without making any server requests.", false)
          .addOption(new Option("--no-dry-run").hideHelp())
          .addHelpText(
            "after",
            ["", "Examples:", `  # Mark cluster "foo" as ${mark}.`, `  karmadactl ${verb} foo`].join("\n"),
          ),
      ).action((args: string[], o: KubeconfigFlags & Record<string, unknown>) =>
        run(io, async () => {
          const clients = clientFactory(o, env);
          try {
            await runCordon(cordon, { args, dryRun: o.dryRun === true }, io, clients);
          } finally {
            clients.close();
          }
        }),
      ),
    );
  }

  pflagBooleans(
    withKubeconfig(
      program
        .command("taint")
        .summary("Update the taints on one or more clusters")
        .description(
          [
            "Update the taints on one or more clusters.",
            "",
            " *  A taint consists of a key, value, and effect. As an argument here, it is expressed as key=value:effect.",
            " *  The key must begin with a letter or number, and may contain letters, numbers, hyphens, dots, and underscores, up to 253 characters.",
            " *  Optionally, the key can begin with a DNS subdomain prefix and a single '/', like example.com/my-app.",
            " *  The value is optional. If given, it must begin with a letter or number, and may contain letters, numbers, hyphens, dots, and underscores, up to  63 characters.",
            " *  The effect must be NoSchedule, PreferNoSchedule or NoExecute.",
            " *  Currently taint can only apply to cluster.",
          ].join("\n"),
        )
        .usage("CLUSTER NAME KEY_1=VAL_1:TAINT_EFFECT_1 ... KEY_N=VAL_N:TAINT_EFFECT_N [options]")
        .argument("[ARGS...]", "`clusters`, the cluster names, then the taint changes")
        .option(
          "--overwrite",
          "If true, allow taints to be overwritten, otherwise reject taint updates that overwrite existing taints.",
          false,
        )
        .addOption(new Option("--no-overwrite").hideHelp())
        .option("--dry-run", "Run the command in dry-run mode, without making any server requests.", false)
        .addOption(new Option("--no-dry-run").hideHelp())
        .addHelpText(
          "after",
          [
            "",
            "Examples:",
            "  # Update cluster 'foo' with a taint with key 'dedicated' and value 'special-user' and effect 'NoSchedule'",
            "  # If a taint with that key and effect already exists, its value is replaced as specified",
            "  karmadactl taint clusters foo dedicated=special-user:NoSchedule",
            "",
            "  # Remove from cluster 'foo' the taint with key 'dedicated' and effect 'NoSchedule' if one exists",
            "  karmadactl taint clusters foo dedicated:NoSchedule-",
            "",
            "  # Remove from cluster 'foo' all the taints with key 'dedicated'",
            "  karmadactl taint clusters foo dedicated-",
            "",
            "  # Add to cluster 'foo' a taint with key 'bar' and no value",
            "  karmadactl taint clusters foo bar:NoSchedule",
          ].join("\n"),
        ),
    ).action((args: string[], o: KubeconfigFlags & Record<string, unknown>) =>
      run(io, async () => {
        const clients = clientFactory(o, env);
        try {
          await runTaint({ args, overwrite: o.overwrite === true, dryRun: o.dryRun === true }, io, clients);
        } finally {
          clients.close();
        }
      }),
    ),
  );

  const repeatable = (value: string, previous: string[] = []): string[] => [...previous, value];
  withKubeconfig(
    program
      .command("simulate")
      .summary("Show where workloads would go on a changed fleet, without changing anything")
      .description(
        [
          "Show where workloads would go on a changed copy of the fleet. Nothing is written to the control plane.",
          "",
          " *  With -f, for each resource template in the files: the policy that would claim it (the files' policies count together with the control plane's; one of the same name replaces it) and, per cluster, the replicas it would get or the scheduler plugin and reason that leave the cluster out.",
          " *  Without -f, every existing binding is replayed against the changed fleet as the taint manager and the scheduler would: it prints what would move (from which cluster to which, with replicas) and what would become unschedulable.",
          " *  --without-cluster, --cordon, --taint and --label change the copy of the fleet first.",
        ].join("\n"),
      )
      .usage(
        "[-f FILENAME] [--without-cluster CLUSTER] [--cordon CLUSTER] [--taint CLUSTER=KEY[=VALUE]:EFFECT] [--label CLUSTER=KEY=VALUE] [options]",
      )
      .option(
        "-f, --filename <file>",
        "Templates and policies to place: files, directories, URLs, or - for stdin (YAML or JSON)",
        list,
      )
      .option("-R, --recursive", "Process the directories used in -f recursively.", false)
      .option("-n, --namespace <ns>", "Namespace of the objects in -f that name none", "default")
      .option(
        "--without-cluster <clusters>",
        "Clusters to remove from the fleet (comma-separated, repeatable)",
        list,
      )
      .option(
        "--cordon <clusters>",
        "Clusters to cordon, as karmadactl cordon does (comma-separated, repeatable)",
        list,
      )
      .option(
        "--taint <CLUSTER=KEY[=VALUE]:EFFECT>",
        "A taint to add to a cluster; CLUSTER=KEY:EFFECT- or CLUSTER=KEY- removes one (repeatable)",
        repeatable,
      )
      .option(
        "--label <CLUSTER=KEY=VALUE>",
        "A label to set on a cluster; CLUSTER=KEY- removes one (repeatable)",
        repeatable,
      )
      .option("-o, --output <format>", "Output format: json or yaml (default: a table)")
      .option(
        "--feature-gates <gates>",
        "The controller manager's feature gates that change the outcome: Failover (the taint manager evicts from NoExecute-tainted clusters) and PropagationPolicyPreemption, e.g. Failover=true",
        repeatable,
      )
      .addHelpText(
        "after",
        [
          "",
          "Examples:",
          "  # What moves, and where to, if member1 is lost",
          "  karmadactl simulate --without-cluster member1",
          "",
          "  # Where these manifests would go if member2 were cordoned",
          "  karmadactl simulate -f deployment.yaml -f propagationpolicy.yaml --cordon member2",
          "",
          "  # What the taint manager and the scheduler would do about a NoExecute taint, as JSON",
          "  karmadactl simulate --taint member1=maintenance:NoExecute --feature-gates Failover=true -o json",
        ].join("\n"),
      ),
  ).action((o: KubeconfigFlags & Record<string, unknown>) =>
    run(io, async () => {
      // Loaded here only: the scheduler, detector and interpreter would slow every other command down.
      const { runSimulate } = await import("./commands/simulate.ts");
      const clients = clientFactory(o, env);
      try {
        await runSimulate(
          {
            filenames: (o.filename as string[] | undefined) ?? [],
            recursive: o.recursive === true,
            namespace: String(o.namespace),
            withoutCluster: (o.withoutCluster as string[] | undefined) ?? [],
            cordon: (o.cordon as string[] | undefined) ?? [],
            taint: (o.taint as string[] | undefined) ?? [],
            label: (o.label as string[] | undefined) ?? [],
            ...(o.output !== undefined ? { output: String(o.output) } : {}),
            featureGates: (o.featureGates as string[] | undefined) ?? [],
          },
          io,
          clients,
        );
      } finally {
        clients.close();
      }
    }),
  );

  const token = program
    .command("token")
    .description("Manage bootstrap tokens for joining member clusters to Karmada")
    .addHelpText("after", ["", "Examples:", "  karmadactl token create --print-register-command"].join("\n"));
  withKubeconfig(
    token
      .command("create")
      .description("Create bootstrap tokens on the server")
      .option(
        "--print-register-command",
        "Instead of printing only the token, print the full 'karmadactl register' flag needed to register the member cluster using the token.",
        false,
      )
      .addOption(
        durationOption(
          "--ttl <duration>",
          "The duration before the token is automatically deleted (e.g. 1s, 2m, 3h). If set to '0', the token will never expire",
          "24h0m0s",
        ),
      )
      .option(
        "--usages <usages>",
        "Describes the ways in which this token can be used. You can pass --usages multiple times or provide a comma separated list of options. Valid options: [signing,authentication]",
        list,
      )
      .option(
        "--groups <groups>",
        'Extra groups that this token will authenticate as when used for authentication. Must match "\\\\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\\\z"',
        list,
      )
      .option("--description <text>", "A human friendly description of how this token is used."),
  ).action((o: KubeconfigFlags & Record<string, unknown>) =>
    run(io, async () => {
      const clients = clientFactory(o, env);
      try {
        await runTokenCreate(
          {
            ttlMs: Number(o.ttl),
            usages: (o.usages as string[] | undefined) ?? DEFAULT_TOKEN_OPTIONS.usages,
            groups: (o.groups as string[] | undefined) ?? DEFAULT_TOKEN_OPTIONS.groups,
            ...(o.description ? { description: String(o.description) } : {}),
            printRegisterCommand: o.printRegisterCommand === true,
            kubeconfig: o.kubeconfig ?? defaultKubeconfigPath(env),
            ...(o.karmadaContext ? { context: o.karmadaContext } : {}),
          },
          io,
          clients,
        );
      } finally {
        clients.close();
      }
    }),
  );
  withKubeconfig(token.command("list").description("List bootstrap tokens on the server")).action(
    (o: KubeconfigFlags & Record<string, unknown>) =>
      run(io, async () => {
        const clients = clientFactory(o, env);
        try {
          await runTokenList(io, clients);
        } finally {
          clients.close();
        }
      }),
  );
  withKubeconfig(
    token
      .command("delete")
      .description(
        'Delete bootstrap tokens on the server. The [token-value] is the full Token of the form "[a-z0-9]{6}.[a-z0-9]{16}" or the Token ID of the form "[a-z0-9]{6}" to delete.',
      )
      .argument("[token-value...]", "tokens or token IDs"),
  ).action((args: string[], o: KubeconfigFlags & Record<string, unknown>) =>
    run(io, async () => {
      const clients = clientFactory(o, env);
      try {
        await runTokenDelete(args, io, clients);
      } finally {
        clients.close();
      }
    }),
  );

  program
    .command("register")
    .description("Register a cluster to Karmada control plane with Pull mode")
    .argument("[karmada-apiserver-endpoint]", "host:port of the Karmada API server")
    .option("--kubeconfig <path>", "Path to the kubeconfig file of member cluster.")
    .option("--context <name>", "Name of the cluster context in kubeconfig file.")
    .option("-n, --namespace <ns>", "Namespace the karmada-agent component deployed.", "karmada-system")
    .option(
      "--cluster-name <name>",
      "The name of member cluster in the control plane, if not specified, the cluster of current-context is used by default.",
    )
    .option(
      "--cluster-namespace <ns>",
      "Namespace in the control plane where member cluster secrets are stored.",
      DEFAULT_CLUSTER_NAMESPACE,
    )
    .option("--cluster-provider <provider>", "Provider of the joining cluster.")
    .option("--cluster-region <region>", "The region of the joining cluster.")
    .option("--cluster-zones <zones>", "The zones of the joining cluster.", list)
    .option(
      "--enable-cert-rotation",
      "Enable means controller would rotate certificate for karmada-agent when the certificate is about to expire.",
      false,
    )
    .option(
      "--token <token>",
      "For token-based discovery, the token used to validate cluster information fetched from the API server.",
    )
    .option(
      "--discovery-token-ca-cert-hash <hashes>",
      'For token-based discovery, validate that the root CA public key matches this hash (format: "<type>:<value>").',
      list,
    )
    .option(
      "--discovery-token-unsafe-skip-ca-verification",
      "For token-based discovery, allow joining without --discovery-token-ca-cert-hash pinning.",
      false,
    )
    .addOption(
      durationOption(
        "--discovery-timeout <duration>",
        "The timeout to discovery karmada apiserver client.",
        "5m0s",
      ),
    )
    .option("--karmada-agent-image <image>", "Karmada agent image.", DEFAULT_AGENT_IMAGE)
    .option("--karmada-agent-replicas <n>", "Karmada agent replicas.", count, 1)
    .option("--cert-expiration-seconds <n>", "The expiration time of certificate.", count, 31536000)
    .option("--dry-run", "Run the command in dry-run mode, without making any server requests.", false)
    .option(
      "--proxy-server-address <url>",
      "Address of the proxy server that is used to proxy to the cluster.",
    )
    .addHelpText(
      "after",
      [
        "",
        "Examples:",
        "  # Register cluster into karmada control plane with Pull mode.",
        "  # If '--cluster-name' isn't specified, the cluster of current-context will be used by default.",
        "  karmadactl register [karmada-apiserver-endpoint] --cluster-name=<CLUSTER_NAME> --token=<TOKEN>  --discovery-token-ca-cert-hash=<CA-CERT-HASH>",
        "",
        "  # UnsafeSkipCAVerification allows token-based discovery without CA verification via CACertHashes. This can weaken",
        "  # the security of register command since other clusters can impersonate the control-plane.",
        "  karmadactl register [karmada-apiserver-endpoint] --token=<TOKEN>  --discovery-token-unsafe-skip-ca-verification=true",
      ].join("\n"),
    )
    .action((endpoint: string | undefined, o: Record<string, unknown>) =>
      run(io, async () => {
        if (!endpoint)
          throw new CommandError("requires the karmada-apiserver endpoint (host:port) as its only argument");
        const clients = clientFactory({}, env);
        try {
          const member = await clients.cluster(
            o.kubeconfig ? String(o.kubeconfig) : defaultKubeconfigPath(env),
            o.context ? String(o.context) : undefined,
          );
          await runRegister(
            {
              endpoint,
              token: String(o.token ?? ""),
              caCertHashes: (o.discoveryTokenCaCertHash as string[] | undefined) ?? [],
              unsafeSkipCaVerification: o.discoveryTokenUnsafeSkipCaVerification === true,
              clusterName: o.clusterName ? String(o.clusterName) : (member.cluster ?? ""),
              member,
              namespace: String(o.namespace),
              clusterNamespace: String(o.clusterNamespace),
              ...(o.clusterProvider ? { clusterProvider: String(o.clusterProvider) } : {}),
              ...(o.clusterRegion ? { clusterRegion: String(o.clusterRegion) } : {}),
              ...(o.clusterZones ? { clusterZones: o.clusterZones as string[] } : {}),
              enableCertRotation: o.enableCertRotation === true,
              discoveryTimeoutMs: Number(o.discoveryTimeout),
              agentImage: String(o.karmadaAgentImage),
              agentReplicas: Number(o.karmadaAgentReplicas),
              certExpirationSeconds: Number(o.certExpirationSeconds),
              dryRun: o.dryRun === true,
              ...(o.proxyServerAddress ? { proxyServerAddress: String(o.proxyServerAddress) } : {}),
            },
            io,
          );
        } finally {
          clients.close();
        }
      }),
    );

  program
    .command("unregister")
    .description("Remove a pull mode cluster from Karmada control plane")
    .argument("[CLUSTER_NAME...]", "name of the cluster in Karmada")
    .option(
      "--cluster-kubeconfig <path>",
      "KUBECONFIG file path to access unregistering member cluster, required.",
    )
    .option(
      "--cluster-context <name>",
      "Context in cluster-kubeconfig to access unregistering member cluster, optional, defaults to current context.",
    )
    .option(
      "--karmada-config <path>",
      "Path of config to access karmada-apiserver, optional, defaults to fetch automatically from member cluster.",
    )
    .option(
      "--karmada-context <name>",
      "Context in karmada-config to access karmada-apiserver, optional, defaults to current context.",
    )
    .option("-n, --namespace <ns>", "Namespace of the karmada-agent component deployed.", "karmada-system")
    .option(
      "--agent-name <name>",
      "Deployment name of the karmada-agent component deployed.",
      "karmada-agent",
    )
    .option(
      "--cluster-namespace <ns>",
      "Namespace in the control plane where member cluster secrets are stored.",
      DEFAULT_CLUSTER_NAMESPACE,
    )
    .addOption(
      durationOption(
        "--wait <duration>",
        "wait for the unregister command execution process (default 60s); A timeout error occurs if it fails to complete within the period.",
        "1m0s",
      ),
    )
    .option("--dry-run", "Run the command in dry-run mode, without making any server requests.", false)
    .action((names: string[], o: Record<string, unknown>) =>
      run(io, async () => {
        if (names.length > 1) throw new CommandError("only the cluster name is allowed as an argument");
        const name = names[0] ?? "";
        const nameErrors = clusterNameErrors(name);
        if (nameErrors.length > 0)
          throw new CommandError(`invalid cluster name(${name}): ${nameErrors.join(";")}`);
        if (!o.clusterKubeconfig) {
          throw new CommandError(
            "--cluster-kubeconfig is required to specify KUBECONFIG file path to access unregistering member cluster",
          );
        }
        if (!(Number(o.wait) > 0)) {
          throw new CommandError(`--wait ${Number(o.wait) / 1000}s must be a positive duration, e.g. 1m0s`);
        }
        const karmadaConfig = o.karmadaConfig ? String(o.karmadaConfig) : undefined;
        const clients = clientFactory(
          {
            ...(karmadaConfig ? { kubeconfig: karmadaConfig } : {}),
            ...(o.karmadaContext ? { karmadaContext: String(o.karmadaContext) } : {}),
          },
          env,
        );
        let agentClient: { close(): void } | undefined;
        try {
          const member = await clients.cluster(
            String(o.clusterKubeconfig),
            o.clusterContext ? String(o.clusterContext) : undefined,
          );
          let karmada: Client;
          if (karmadaConfig) karmada = await clients.controlPlane();
          else {
            const c = await agentControlPlaneClient(member.client, String(o.namespace), String(o.agentName));
            agentClient = c;
            karmada = c;
          }
          await runUnregister(
            {
              clusterName: name,
              member: member.client,
              namespace: String(o.namespace),
              agentName: String(o.agentName),
              clusterNamespace: String(o.clusterNamespace),
              waitMs: Number(o.wait),
              dryRun: o.dryRun === true,
            },
            karmada,
            io,
            karmadaConfig !== undefined,
          );
        } finally {
          agentClient?.close();
          clients.close();
        }
      }),
    );

  program
    .command("interpret")
    .summary("Validate, test and edit interpreter customization before applying it to the control plane")
    .description(
      [
        "Validate and test interpreter customizations before applying them to the control plane.",
        "",
        "1. --check: load every script of the ResourceInterpreterCustomizations in the files (compile, function defined).",
        "2. --operation: run one rule locally on the given objects and print its results.",
        "3. --edit: edit the customization's scripts in $KUBE_EDITOR, $EDITOR or vi, as kubectl edit does.",
      ].join("\n"),
    )
    .usage("(-f FILENAME) (--operation OPERATION) [--ARGS VALUE]...")
    .option(
      "-f, --filename <file>",
      "Filename, or URL to files containing the customizations (YAML or JSON); - reads stdin",
      list,
    )
    .option("--check", "Validates the given ResourceInterpreterCustomization configuration(s)", false)
    .option("--edit", "Edit customizations", false)
    .option("--show-doc", "Show document of rules when editing", false)
    .option(
      "--operation <operation>",
      "The interpret operation to use. One of: (Retain,InterpretReplica,InterpretComponent,ReviseReplica,InterpretStatus,AggregateStatus,InterpretHealth,InterpretDependency)",
    )
    .option(
      "--desired-file <file>",
      "Filename or URL of the resource to use as desiredObj argument in rule script",
    )
    .option(
      "--observed-file <file>",
      "Filename or URL of the resource to use as observedObj argument in rule script",
    )
    .option(
      "--status-file <file>",
      "Filename or URL of the AggregatedStatusItems to use as statusItems argument in rule script",
    )
    .option("--desired-replica <n>", "The desiredReplica argument in rule script", count, 0)
    .addHelpText(
      "after",
      [
        "",
        "Examples:",
        "  # Check the customizations in file (only YAML and JSON formats are supported)",
        "  karmadactl interpret -f customization.json --check",
        "",
        "  # Execute the retention rule",
        "  karmadactl interpret -f customization.yml --operation retain --desired-file desired.yml --observed-file observed.yml",
        "",
        "  # Execute the replicaRevision rule",
        "  karmadactl interpret -f customization.yml --operation reviseReplica --observed-file observed.yml --desired-replica 2",
        "",
        "  # Execute the statusAggregation rule, status items from stdin",
        "  karmadactl interpret -f customization.yml --operation aggregateStatus --observed-file observed.yml --status-file -",
        "",
        "  # Edit customization",
        "  karmadactl interpret -f customization.yml --edit",
      ].join("\n"),
    )
    .action((o: Record<string, unknown>) =>
      run(io, () =>
        runInterpret(
          {
            filenames: (o.filename as string[] | undefined) ?? [],
            check: o.check === true,
            edit: o.edit === true,
            showDoc: o.showDoc === true,
            env,
            ...(o.operation ? { operation: String(o.operation) } : {}),
            ...(o.desiredFile ? { desiredFile: String(o.desiredFile) } : {}),
            ...(o.observedFile ? { observedFile: String(o.observedFile) } : {}),
            ...(o.statusFile ? { statusFile: String(o.statusFile) } : {}),
            desiredReplica: Number(o.desiredReplica ?? 0),
          },
          io,
        ),
      ),
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
  // Upstream's register help spells `--discovery-token-unsafe-skip-ca-verification=true`.
  const sub = (path: string[]) =>
    path.reduce<Command | undefined>((c, n) => c?.commands.find((x) => x.name() === n), program)!;
  pflagBooleans(sub(["register"]), [
    "enable-cert-rotation",
    "discovery-token-unsafe-skip-ca-verification",
    "dry-run",
  ]);
  pflagBooleans(sub(["unregister"]), ["dry-run"]);
  pflagBooleans(sub(["token", "create"]), ["print-register-command"]);
  return program;
}
