/**
 * Command lines and files for the karmadactl fuzzer: each command's own flags with hostile
 * values, unknown flags, missing values, and files (YAML/JSON) that are broken in the ways
 * users and attackers break them.
 */
import fc from "fast-check";

/** A flag and whether it takes a value (booleans do not). */
interface Flag {
  flag: string;
  value: boolean;
}

const KUBECONFIG_FLAGS: Flag[] = [
  { flag: "--kubeconfig", value: true },
  { flag: "--karmada-context", value: true },
];

/** Every command with its flags, as `karmadactl <command> --help` lists them. */
export const COMMANDS: Record<string, Flag[]> = {
  join: [
    ...KUBECONFIG_FLAGS,
    ...["--cluster-kubeconfig", "--cluster-context", "--cluster-namespace", "--cluster-provider"].map(
      (f) => ({
        flag: f,
        value: true,
      }),
    ),
    { flag: "--cluster-region", value: true },
    { flag: "--cluster-zones", value: true },
    { flag: "--dry-run", value: false },
  ],
  unjoin: [
    ...KUBECONFIG_FLAGS,
    { flag: "--cluster-kubeconfig", value: true },
    { flag: "--cluster-context", value: true },
    { flag: "--cluster-namespace", value: true },
    { flag: "--wait", value: true },
    { flag: "--force", value: false },
    { flag: "--dry-run", value: false },
  ],
  get: [
    ...KUBECONFIG_FLAGS,
    { flag: "-n", value: true },
    { flag: "-A", value: false },
    { flag: "-o", value: true },
    { flag: "-l", value: true },
    { flag: "-s", value: true },
    { flag: "-C", value: true },
  ],
  describe: [
    ...KUBECONFIG_FLAGS,
    { flag: "-n", value: true },
    { flag: "-l", value: true },
    { flag: "-C", value: true },
    { flag: "--operation-scope", value: true },
    { flag: "--show-events", value: true },
  ],
  logs: [
    ...KUBECONFIG_FLAGS,
    { flag: "-C", value: true },
    { flag: "-n", value: true },
    { flag: "-c", value: true },
    { flag: "-p", value: false },
    { flag: "--timestamps", value: false },
    { flag: "--tail", value: true },
    { flag: "--limit-bytes", value: true },
    { flag: "--since", value: true },
    { flag: "--since-time", value: true },
  ],
  promote: [
    ...KUBECONFIG_FLAGS,
    { flag: "-n", value: true },
    { flag: "-C", value: true },
    { flag: "--cluster-kubeconfig", value: true },
    { flag: "--cluster-context", value: true },
    { flag: "-d", value: false },
    { flag: "--auto-create-policy", value: false },
    { flag: "--policy-name", value: true },
    { flag: "--dry-run", value: false },
    { flag: "-o", value: true },
  ],
  cordon: [...KUBECONFIG_FLAGS, { flag: "--dry-run", value: false }],
  uncordon: [...KUBECONFIG_FLAGS, { flag: "--dry-run", value: false }],
  taint: [...KUBECONFIG_FLAGS, { flag: "--overwrite", value: false }, { flag: "--dry-run", value: false }],
  simulate: [
    ...KUBECONFIG_FLAGS,
    { flag: "-f", value: true },
    { flag: "-R", value: false },
    { flag: "-n", value: true },
    { flag: "--without-cluster", value: true },
    { flag: "--cordon", value: true },
    { flag: "--taint", value: true },
    { flag: "--label", value: true },
    { flag: "-o", value: true },
    { flag: "--feature-gates", value: true },
  ],
  "token create": [
    ...KUBECONFIG_FLAGS,
    { flag: "--print-register-command", value: false },
    { flag: "--ttl", value: true },
    { flag: "--usages", value: true },
    { flag: "--groups", value: true },
    { flag: "--description", value: true },
  ],
  "token list": KUBECONFIG_FLAGS,
  "token delete": KUBECONFIG_FLAGS,
  register: [
    // Its --kubeconfig is the member's: the fuzzer never hands it a reachable one (see below).
    { flag: "--context", value: true },
    { flag: "-n", value: true },
    { flag: "--cluster-name", value: true },
    { flag: "--cluster-namespace", value: true },
    { flag: "--cluster-zones", value: true },
    { flag: "--enable-cert-rotation", value: false },
    { flag: "--token", value: true },
    { flag: "--discovery-token-ca-cert-hash", value: true },
    { flag: "--discovery-token-unsafe-skip-ca-verification", value: false },
    { flag: "--discovery-timeout", value: true },
    { flag: "--karmada-agent-replicas", value: true },
    { flag: "--cert-expiration-seconds", value: true },
    { flag: "--dry-run", value: false },
    { flag: "--proxy-server-address", value: true },
  ],
  unregister: [
    { flag: "--cluster-kubeconfig", value: true },
    { flag: "--cluster-context", value: true },
    { flag: "--karmada-config", value: true },
    { flag: "--karmada-context", value: true },
    { flag: "-n", value: true },
    { flag: "--agent-name", value: true },
    { flag: "--wait", value: true },
    { flag: "--dry-run", value: false },
  ],
  interpret: [
    { flag: "-f", value: true },
    { flag: "--check", value: false },
    { flag: "--operation", value: true },
    { flag: "--desired-file", value: true },
    { flag: "--observed-file", value: true },
    { flag: "--status-file", value: true },
    { flag: "--desired-replica", value: true },
  ],
  version: [{ flag: "-o", value: true }],
};

/** Values a flag or an argument may get: every type the commands parse, right and wrong. */
export const hostileValue: fc.Arbitrary<string> = fc.oneof(
  // durations
  fc.constantFrom(
    "10s",
    "1m0s",
    "0",
    "-1s",
    "1.5h",
    ".5s",
    "1d",
    "10",
    "1e3s",
    "9999999999999h",
    "s",
    "1h-1m",
  ),
  // integers and quantities
  fc.constantFrom(
    "0",
    "-1",
    "3",
    "1.5",
    "1e400",
    "0x10",
    "NaN",
    "Infinity",
    "9007199254740993",
    "100Mi",
    "1Gi",
    "-0",
  ),
  // label selectors
  fc.constantFrom(
    "app=web",
    "app in (a,b)",
    "app notin (",
    "!app",
    "a=b,c!=d",
    "=",
    "app=",
    "a b",
    "x==y==z",
    "a in ()",
  ),
  // taints and cluster=... specs
  fc.constantFrom(
    "k=v:NoSchedule",
    "k:NoExecute-",
    "k-",
    "k=v:Bogus",
    ":NoSchedule",
    "=v:NoSchedule",
    "member1=k=v:NoExecute",
    "m=k-",
    "a=b=c=d",
  ),
  // cluster and object names
  fc.constantFrom(
    "member1",
    "Member_1",
    "-lead",
    "a".repeat(300),
    "../../etc/passwd",
    "a/b",
    "",
    " ",
    "名前",
    "x\ny",
  ),
  // formats, scopes, feature gates, endpoints
  fc.constantFrom(
    "json",
    "yaml",
    "wide",
    "name",
    "jsonpath={.x}",
    "karmada",
    "members",
    "all",
    "Failover=true",
    "Bogus=1",
    "127.0.0.1:1",
    "https://[::1",
  ),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.nat({ max: 200_000 }).map((n) => "x".repeat(n)),
);

/** A command line for `command`: its own flags with hostile values, unknown flags, loose arguments. */
export function commandLine(command: string, files: readonly string[]): fc.Arbitrary<string[]> {
  const flags = COMMANDS[command]!;
  const value = files.length > 0 ? fc.oneof(hostileValue, fc.constantFrom(...files)) : hostileValue;
  const piece: fc.Arbitrary<string[]> = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.constantFrom(...flags), value)
        .map(([f, v]) => (f.value ? [f.flag, v] : [f.flag])),
    },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...flags), value).map(([f, v]) => [`${f.flag}=${v}`]) },
    { weight: 2, arbitrary: value.map((v) => [v]) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("--no-such-flag", "-Z", "--", "-", "--kubeconfig", "---x", "--help")
        .map((f) => [f]),
    },
  );
  return fc.array(piece, { maxLength: 6 }).map((pieces) => [...command.split(" "), ...pieces.flat()]);
}

/** Broken documents: text for a -f file. */
export const hostileDocument: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.constantFrom(
    "",
    "---",
    "--- \n---\n",
    "{",
    "[1, 2",
    ": : :",
    "a: b\na: c\n",
    '{"kind": "Deployment", "kind": "Service"}',
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\n}{garbage\n",
    "apiVersion: v1\n",
    "kind: ResourceInterpreterCustomization\n",
    "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata:\n  name: x\nspec: 3\n",
    "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata:\n  name: x\nspec:\n  target: {apiVersion: apps/v1, kind: Deployment}\n  customizations:\n    healthInterpretation:\n      luaScript: 'function InterpretHealth(o) while true do end end'\n",
    "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata:\n  name: x\nspec:\n  target: {apiVersion: apps/v1, kind: Deployment}\n  customizations:\n    retention:\n      luaScript: 7\n",
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 99999999999999999999\n",
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: []\n",
    "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: p\nspec:\n  resourceSelectors: 5\n",
    "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: p\nspec:\n  resourceSelectors:\n  - apiVersion: apps/v1\n    kind: Deployment\n  placement:\n    replicaScheduling:\n      replicaSchedulingType: Divided\n      weightPreference: {staticWeightList: [{targetCluster: {}, weight: -1}]}\n",
    "a: &a [*a]\n",
    "a: &x [1]\nb: *x\nc: *y\n",
    "!!binary AAAA\n",
    "%YAML 9.9\n---\na: 1\n",
    "a: !!js/function 'function(){}'\n",
    "- - - - - - - - - - - - - - - - -\n",
    "\t\ttabs: here\n",
    "\uFEFFapiVersion: v1\nkind: ConfigMap\n",
    "items: [1, 2, 3]\nkind: List\napiVersion: v1\n",
  ),
  // Deeply nested JSON and YAML flow collections.
  fc.nat({ max: 20_000 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`),
  fc
    .nat({ max: 20_000 })
    .map(
      (n) =>
        `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":${'{"a":'.repeat(n)}1${"}".repeat(n)}}`,
    ),
  // Huge and many documents.
  fc.nat({ max: 3_000 }).map((n) => "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n".repeat(n)),
  fc.constant(
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  x: ${"y".repeat(5_000_000)}\n`,
  ),
  // A YAML alias bomb (billion laughs), kept small in bytes.
  fc.constant(
    [
      "a: &a [x,x,x,x,x,x,x,x,x]",
      ...Array.from(
        { length: 9 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(",")}]`,
      ),
    ].join("\n"),
  ),
  // Invalid UTF-8 and random bytes.
  fc.uint8Array({ maxLength: 200 }),
  fc.constant(Uint8Array.from([0x61, 0x3a, 0x20, 0xff, 0xfe, 0xc0, 0x80, 0x0a])),
  fc.string({ maxLength: 200 }),
);
