/** What every trial module returns and takes (`npm run trials` prints one table of these rows). */

export interface TrialRow {
  /** e.g. "crash: controller-manager", "flapping member" */
  trial: string;
  /** "sqlite" | "etcd" | "-" */
  backend: string;
  /** trials run */
  runs: number;
  /** oracle violations found (0 is the goal) */
  violations: number;
  /** e.g. { evictions: 0, "member API calls": 1234 } */
  figures: Record<string, string | number>;
  /** one line per violation (what, which object), empty when 0 */
  details: string[];
}

export interface TrialOptions {
  seed: number;
  runs: number;
  log: (line: string) => void;
}
