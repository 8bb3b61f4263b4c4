/**
 * `karmadactl`: the only place that reads argv and the environment for the CLI.
 */
import { buildProgram } from "../cli/main.ts";

const io = { stdout: process.stdout, stderr: process.stderr };
await buildProgram(io, { ...process.env }).parseAsync(process.argv);
