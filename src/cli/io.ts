/**
 * What a CLI command gets instead of the process: output streams and a way to build clients
 * from kubeconfig flags. Tests pass their own.
 */
import type { Client } from "../client/client.ts";

export interface Output {
  write(text: string): void;
}

export interface CommandIO {
  stdout: Output;
  stderr: Output;
}

/** A user-facing failure: printed as `error: <message>`, exit code 1, no stack trace. */
export class CommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CommandError";
  }
}

export interface ClientFactory {
  /** The control plane (`--kubeconfig`, `--karmada-context`). */
  controlPlane(): Promise<Client>;
  /** Any cluster from a kubeconfig file and context; `server` is the URL that context points at. */
  cluster(
    kubeconfig: string,
    context?: string,
  ): Promise<{
    client: Client;
    server: string;
    insecureSkipTLSVerify: boolean;
    caData?: string;
    /** The kubeconfig cluster's name the context points at. */
    cluster?: string;
  }>;
}
