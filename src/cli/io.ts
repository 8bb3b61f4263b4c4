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
  /**
   * A member cluster through the control plane's cluster proxy
   * (`<server>/apis/cluster.karmada.io/v1alpha1/clusters/<name>/proxy`), with the control
   * plane's credentials, as upstream's FactoryForMemberCluster: the member sees the caller.
   */
  memberCluster(name: string): Promise<Client>;
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

/**
 * Rows aligned as kubectl's table printer aligns them (Go's tabwriter: minimum cell width 6,
 * padding 3), the last column unpadded.
 */
export function tabwriterTable(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [i, c] of row.entries()) widths[i] = Math.max(widths[i] ?? 6, c.length + 3);
  }
  const lines = rows.map((row) =>
    row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join(""),
  );
  return `${lines.join("\n")}\n`;
}
