/**
 * `karmadactl`: the command-line tool, mirroring upstream karmadactl's commands as they land.
 */
import { Command } from "commander";
import { VERSION } from "../apiserver/server.ts";

export const CLIENT_VERSION = {
  gitVersion: "v0.1.0-karmada-ts",
  platform: `${process.platform}/${process.arch}`,
};

export function buildProgram(): Command {
  const program = new Command("karmadactl")
    .description("karmadactl controls a Karmada control plane (karmada-ts)")
    .showHelpAfterError()
    .configureOutput({ outputError: (text, write) => write(text) });
  program
    .command("version")
    .description("print the client version information")
    .option("-o, --output <format>", "one of 'yaml' or 'json'")
    .action((opts: { output?: string }) => {
      const info = { ...CLIENT_VERSION, kubernetesApiVersion: VERSION.gitVersion };
      if (opts.output === "json")
        process.stdout.write(`${JSON.stringify({ clientVersion: info }, null, 2)}\n`);
      else if (opts.output === "yaml")
        process.stdout.write(
          `clientVersion:\n  gitVersion: ${info.gitVersion}\n  platform: ${info.platform}\n`,
        );
      else if (opts.output) {
        process.stderr.write(`error: --output must be 'yaml' or 'json'\n`);
        process.exitCode = 1;
      } else
        process.stdout.write(
          `karmadactl version: version.Info{GitVersion:"${info.gitVersion}", Platform:"${info.platform}"}\n`,
        );
    });
  return program;
}

await buildProgram().parseAsync(process.argv);
