/**
 * The flags of each `karmada <component>` that are its own, declared once as option tables
 * (src/runtime/options.ts). The shared ones live with what they configure: the controllers'
 * in src/controllers/options.ts, leader election and health probes in src/runtime/.
 */
import { DEFAULT_TOLERATION_SECONDS } from "../api/karmada/admission/context.ts";
import { DEFAULT_SERVICE_ACCOUNT_ISSUER } from "../apiserver/secure-serving.ts";
import { DEFAULT_AGENT_IMAGE } from "../cli/commands/register.ts";
import { DEFAULT_CLUSTER_NAMESPACE } from "../cluster/register.ts";
import { type Level, LOG_FORMATS } from "../log.ts";
import { PLACEHOLDERS } from "../member-sim/custom-stages.ts";
import { FEATURES } from "../runtime/features.ts";
import { bool, count, duration, list, oneOf, optionTable, port, text, toggle } from "../runtime/options.ts";
import { DEFAULT_SEARCH_CACHE_MAX_BYTES } from "../search/serve.ts";

const LEVELS = ["debug", "info", "warn", "error"] as const satisfies readonly Level[];

/**
 * `--log-level` and `--logging-format`, every component's; `defaultLevel` is `info` for
 * servers, `warn` for `up` and member-sim.
 */
export function logLevelOptions(defaultLevel: Level) {
  return optionTable({
    logLevel: {
      flag: "--log-level",
      type: oneOf(LEVELS, { inHelp: false }),
      arg: "<level>",
      help: "debug, info, warn or error",
      default: defaultLevel,
    },
    loggingFormat: {
      flag: "--logging-format",
      type: oneOf(LOG_FORMATS, { inHelp: false }),
      arg: "<format>",
      help: "text (klog's structured text) or json (component-base's JSON lines), as upstream's --logging-format",
      default: "text",
    },
  });
}

/** `--feature-gates`, read by `FeatureGates.parse` (whose errors name the gate). */
export const FEATURE_GATES_OPTIONS = optionTable({
  featureGates: {
    flag: "--feature-gates",
    type: list,
    arg: "<gates>",
    help: `feature gates as upstream Karmada names them, e.g. Failover=true,PropagationPolicyPreemption=true (AllAlpha=, AllBeta= set a whole stage); known: ${Object.keys(FEATURES).join(", ")}`,
  },
});

/** karmada-webhook's default cluster tolerations, taken by whatever runs admission (`apiserver`, `up`). */
export const TOLERATION_OPTIONS = optionTable({
  defaultNotReadyTolerationSeconds: {
    flag: "--default-not-ready-toleration-seconds",
    type: count,
    help: "tolerationSeconds of the cluster.karmada.io/not-ready:NoExecute toleration added to every propagation policy without one",
    default: DEFAULT_TOLERATION_SECONDS,
  },
  defaultUnreachableTolerationSeconds: {
    flag: "--default-unreachable-toleration-seconds",
    type: count,
    help: "tolerationSeconds of the cluster.karmada.io/unreachable:NoExecute toleration added to every propagation policy without one",
    default: DEFAULT_TOLERATION_SECONDS,
  },
});

/** Set by `karmada up` on the processes it runs: stop when stdin closes, however `up` ended. */
export const STOP_WITH_STDIN_OPTIONS = optionTable({
  stopWithStdin: {
    flag: "--stop-with-stdin",
    type: toggle,
    help: "stop when stdin closes (set by `karmada up`)",
    hidden: true,
  },
});

/** `--kubeconfig` and `--context` of a component that talks to one cluster, `what`. */
export function kubeconfigOptions(what: string) {
  return optionTable({
    kubeconfig: {
      flag: "--kubeconfig",
      type: text,
      arg: "<path>",
      help: `kubeconfig of ${what} (default: $KUBECONFIG, ~/.kube/config)`,
    },
    context: { flag: "--context", type: text, arg: "<name>", help: "kubeconfig context to use" },
  });
}

/** `--controllers`, naming the component's controllers in help. */
export function controllersOptions(known: readonly string[]) {
  return optionTable({
    controllers: {
      flag: "--controllers",
      type: list,
      arg: "<names>",
      help: `controllers to run: * for all, name to enable, -name to disable; known: ${known.join(", ")}`,
    },
  });
}

export const APISERVER_DEFAULT_STORAGE = "sqlite://.karmada/apiserver.db";

/** kube-apiserver's `--request-timeout`, for every API server we serve (control plane, `up`, member-sim). */
export const REQUEST_TIMEOUT_OPTIONS = optionTable({
  /** ms */
  requestTimeout: {
    flag: "--request-timeout",
    type: duration,
    help: "how long a request that is not long-running may take before it is answered 504 Timeout; ?timeout= may lower it (0: no limit)",
    default: "1m0s",
  },
});

export const APISERVER_OPTIONS = optionTable({
  storage: {
    flag: "--storage",
    type: text,
    arg: "<url>",
    help: "memory:, sqlite://<path> or etcd://host:port[,host:port][?cacert=&cert=&key=]",
    default: APISERVER_DEFAULT_STORAGE,
  },
  etcdServers: {
    flag: "--etcd-servers",
    type: list,
    arg: "<urls>",
    help: "kube-apiserver's: etcd servers (https://host:port,...) to store in, instead of --storage",
  },
  etcdCafile: {
    flag: "--etcd-cafile",
    type: text,
    arg: "<file>",
    help: "the CA that signed the etcd servers' certificates",
  },
  etcdCertfile: { flag: "--etcd-certfile", type: text, arg: "<file>", help: "client certificate for etcd" },
  etcdKeyfile: { flag: "--etcd-keyfile", type: text, arg: "<file>", help: "its key" },
  etcdPrefix: {
    flag: "--etcd-prefix",
    type: text,
    arg: "<prefix>",
    help: "the key prefix in etcd",
    default: "/registry",
  },
  /** ms */
  etcdCompactionInterval: {
    flag: "--etcd-compaction-interval",
    type: duration,
    help: "how often history older than one interval is compacted, any backend (0: never)",
    default: "5m",
  },
  maxRequestsInflight: {
    flag: "--max-requests-inflight",
    type: count,
    help: "read-only requests served at once; more are answered 429 (0: no limit; watches and proxies not counted)",
    default: 400,
  },
  maxMutatingRequestsInflight: {
    flag: "--max-mutating-requests-inflight",
    type: count,
    help: "mutating requests served at once; more are answered 429 (0: no limit)",
    default: 200,
  },
  minRequestTimeout: {
    flag: "--min-request-timeout",
    type: count,
    help: "seconds a watch that names no timeoutSeconds is kept open at least (it ends at random between this and twice this, so that clients do not all reconnect at once)",
    default: 1800,
  },
  bindAddress: {
    flag: "--bind-address",
    type: text,
    arg: "<ip>",
    help: "address to listen on",
    default: "127.0.0.1",
  },
  securePort: {
    flag: "--secure-port",
    type: port,
    help: "HTTPS port to listen on (0: a free port, logged)",
    default: 5443,
  },
  advertiseAddress: {
    flag: "--advertise-address",
    type: text,
    arg: "<ip>",
    help: "the address members and registering clusters reach this server at (kube-public/cluster-info); default: --bind-address, or this host's name when that is 0.0.0.0",
  },
  /** The old name of `--secure-port`. */
  port: { flag: "--port", type: port, help: "the same as --secure-port" },
  certDir: {
    flag: "--cert-dir",
    type: text,
    arg: "<dir>",
    help: "where the self-signed serving certificate (and the service-account key, when no --service-account-signing-key-file) is kept",
    default: ".karmada/certs",
  },
  tlsCertFile: {
    flag: "--tls-cert-file",
    type: text,
    arg: "<file>",
    help: "serving certificate (PEM, followed by its CA chain); default: self-signed in --cert-dir",
  },
  tlsPrivateKeyFile: {
    flag: "--tls-private-key-file",
    type: text,
    arg: "<file>",
    help: "the serving certificate's key",
  },
  clientCaFile: {
    flag: "--client-ca-file",
    type: text,
    arg: "<file>",
    help: "CA bundle that client certificates are verified against (CN user, O groups)",
  },
  tokenAuthFile: {
    flag: "--token-auth-file",
    type: text,
    arg: "<file>",
    help: 'static bearer tokens: token,user,uid,"group1,group2" per line',
  },
  serviceAccountSigningKeyFile: {
    flag: "--service-account-signing-key-file",
    type: text,
    arg: "<file>",
    help: "private key service-account tokens are signed with (default: sa.key in --cert-dir)",
  },
  serviceAccountKeyFile: {
    flag: "--service-account-key-file",
    type: list,
    arg: "<file>",
    help: "public key (or certificate) service-account tokens are verified with; repeatable",
  },
  serviceAccountIssuer: {
    flag: "--service-account-issuer",
    type: list,
    arg: "<url>",
    help: `issuer of service-account tokens (the first issues, all are accepted; default ${DEFAULT_SERVICE_ACCOUNT_ISSUER}); repeatable`,
  },
  apiAudiences: {
    flag: "--api-audiences",
    type: list,
    arg: "<list>",
    help: "audiences a service-account token must name (default: the issuers)",
  },
  serviceAccountJwksUri: {
    flag: "--service-account-jwks-uri",
    type: text,
    arg: "<url>",
    help: "the JWKS URI issuer discovery advertises (default: https://<advertise address>:<port>/openid/v1/jwks)",
  },
  serviceAccountMaxTokenExpiration: {
    flag: "--service-account-max-token-expiration",
    type: duration,
    help: "the longest a requested token lives (0: no limit)",
    default: "0s",
  },
  enableBootstrapTokenAuth: {
    flag: "--enable-bootstrap-token-auth",
    type: bool,
    help: "authenticate bootstrap tokens (kube-system/bootstrap-token-<id> Secrets)",
    default: false,
  },
  anonymousAuth: {
    flag: "--anonymous-auth",
    type: bool,
    help: "requests without credentials are system:anonymous (else 401)",
    default: true,
  },
  authorizationMode: {
    flag: "--authorization-mode",
    type: list,
    arg: "<modes>",
    help: "RBAC (default) or AlwaysAllow",
    default: "RBAC",
  },
  clusterSigningCertFile: {
    flag: "--cluster-signing-cert-file",
    type: text,
    arg: "<file>",
    help: "CA certificate that signs kubernetes.io/kube-apiserver-client CSRs",
  },
  clusterSigningKeyFile: {
    flag: "--cluster-signing-key-file",
    type: text,
    arg: "<file>",
    help: "its private key",
  },
  clusterSigningDuration: {
    flag: "--cluster-signing-duration",
    type: duration,
    help: "the longest a signed certificate lives",
    default: "8760h",
  },
  rootCaFile: {
    flag: "--root-ca-file",
    type: text,
    arg: "<file>",
    help: "CA written as ca.crt into service-account token Secrets (default: the serving CA)",
  },
  insecure: {
    flag: "--insecure",
    type: toggle,
    help: "serve plain HTTP with no authentication or authorization: for benchmarks and tests only, never exposed",
    default: false,
  },
  disableSearch: {
    flag: "--disable-search",
    type: toggle,
    help: "karmada-search's flag: do not serve the search API (/apis/search.karmada.io/v1alpha1/search/...)",
    default: false,
  },
  disableProxy: {
    flag: "--disable-proxy",
    type: toggle,
    help: "karmada-search's flag: do not serve the proxy (/apis/search.karmada.io/v1alpha1/proxying/...)",
    default: false,
  },
  searchCacheMaxBytes: {
    flag: "--search-cache-max-bytes",
    type: count,
    arg: "<bytes>",
    help: "what the member caches behind search and the proxy may hold together (0: no bound); a cache that would go past it is dropped and its ResourceRegistry says so",
    default: DEFAULT_SEARCH_CACHE_MAX_BYTES,
  },
});

export const UP_OPTIONS = optionTable({
  dataDir: {
    flag: "--data-dir",
    type: text,
    arg: "<dir>",
    help: "where state, member logs and karmada.config live; running again resumes",
    default: ".karmada",
  },
  port: { flag: "--port", type: port, help: "control plane port (0: a free port)", default: 5443 },
  members: { flag: "--members", type: count, help: "simulated member clusters", default: 3 },
  memberStages: {
    flag: "--member-stages",
    type: text,
    arg: "<file.yaml>",
    help: "custom-resource stages every member runs (see member-sim --stages), e.g. a FlinkDeployment getting a jobID",
  },
  caCertFile: {
    flag: "--ca-cert-file",
    type: text,
    arg: "<file>",
    help: "your own CA certificate for the control plane (with --ca-key-file); default: a new CA in <data-dir>/pki",
  },
  caKeyFile: { flag: "--ca-key-file", type: text, arg: "<file>", help: "the CA's private key" },
  ha: {
    flag: "--ha",
    type: toggle,
    help: "the HA topology instead of one process on SQLite: 3 etcd members (Debian's etcd, TLS), 3 control-plane nodes each with its own API server, controller manager and scheduler processes, behind a load balancer on --port (contexts karmada-apiserver, karmada-apiserver-1..3)",
    default: false,
  },
  dashboard: {
    flag: "--dashboard",
    type: bool,
    help: "start the web dashboard on 127.0.0.1, signed in as the local admin (as kubectl proxy); --dashboard=false or --no-dashboard to leave it off",
    default: true,
    negation: "do not start the web dashboard",
  },
  dashboardPort: {
    flag: "--dashboard-port",
    type: port,
    help: "the dashboard's port on 127.0.0.1 (0: a free port; when it is taken, a free one is used and up says so)",
    default: 8000,
  },
});

export const SCHEDULER_OPTIONS = optionTable({
  plugins: {
    flag: "--plugins",
    type: list,
    arg: "<names>",
    help: "scheduler plugins: * for all, Name to enable, -Name to disable (e.g. *,-ClusterLocality)",
  },
  enableEmptyWorkloadPropagation: {
    flag: "--enable-empty-workload-propagation",
    type: toggle,
    help: "propagate workloads with 0 replicas too",
    default: false,
  },
});

export const OPERATOR_OPTIONS = optionTable({
  karmadaImage: {
    flag: "--karmada-image",
    type: text,
    arg: "<image>",
    help: "the image the control-plane components run",
    default: DEFAULT_AGENT_IMAGE,
  },
  concurrentKarmadaSyncs: {
    flag: "--concurrent-karmada-syncs",
    type: count,
    help: "Karmada objects reconciled at once",
    default: 5,
  },
});

/** The agent's connection to the control plane (before `--karmada-kubeconfig-namespace`). */
export const AGENT_KARMADA_KUBECONFIG_OPTIONS = optionTable({
  karmadaKubeconfig: {
    flag: "--karmada-kubeconfig",
    type: text,
    arg: "<path>",
    help: "kubeconfig of the Karmada control plane (default: the member's Secret <--karmada-kubeconfig-namespace>/karmada-kubeconfig, as `karmadactl register` writes it)",
  },
});

/** The agent's own flags, after `--karmada-kubeconfig-namespace` (before `--controllers`). */
export const AGENT_OPTIONS = optionTable({
  karmadaContext: {
    flag: "--karmada-context",
    type: text,
    arg: "<name>",
    help: "context in --karmada-kubeconfig",
  },
  kubeconfig: {
    flag: "--kubeconfig",
    type: text,
    arg: "<path>",
    help: "kubeconfig of the member cluster the agent serves (default: $KUBECONFIG, ~/.kube/config)",
  },
  clusterContext: {
    flag: "--cluster-context",
    type: text,
    arg: "<name>",
    help: "context in --kubeconfig (karmada-ts addition)",
  },
  clusterName: {
    flag: "--cluster-name",
    type: text,
    arg: "<name>",
    help: "name of the member cluster the agent serves (required)",
    required: true,
  },
  clusterNamespace: {
    flag: "--cluster-namespace",
    type: text,
    arg: "<ns>",
    help: "control-plane namespace of the cluster's secrets",
    default: DEFAULT_CLUSTER_NAMESPACE,
  },
  clusterApiEndpoint: {
    flag: "--cluster-api-endpoint",
    type: text,
    arg: "<url>",
    help: "the member's API endpoint to record (default: --kubeconfig's server)",
  },
  proxyServerAddress: {
    flag: "--proxy-server-address",
    type: text,
    arg: "<url>",
    help: "proxy through which the member is reached",
  },
  clusterProvider: { flag: "--cluster-provider", type: text, arg: "<name>", help: "provider of the cluster" },
  clusterRegion: { flag: "--cluster-region", type: text, arg: "<region>", help: "region of the cluster" },
  clusterZones: {
    flag: "--cluster-zones",
    type: list,
    arg: "<zones>",
    help: "zones of the cluster (comma-separated)",
  },
  reportSecrets: {
    flag: "--report-secrets",
    type: list,
    arg: "<kinds>",
    help: "secrets reported to the control plane: KubeCredentials,KubeImpersonator or None",
  },
});

/** A flag the Deployment `karmadactl register` writes passes; accepted so the same command line runs here. */
export const AGENT_COMPATIBILITY_OPTIONS = optionTable({
  v: {
    flag: "--v",
    type: text,
    arg: "<level>",
    help: "klog verbosity, accepted for compatibility (use --log-level)",
    hidden: true,
  },
});

export const MEMBER_SIM_OPTIONS = optionTable({
  name: {
    flag: "--name",
    type: text,
    arg: "<name>",
    help: "cluster name (node names <name>-node-<i>, kubeconfig context)",
    default: "member1",
  },
  bindAddress: {
    flag: "--bind-address",
    type: text,
    arg: "<ip>",
    help: "address to listen on",
    default: "127.0.0.1",
  },
  port: {
    flag: "--port",
    type: port,
    help: "port for the API and the admin endpoint /sim/faults (0: a free port)",
    default: 0,
  },
  nodes: { flag: "--nodes", type: count, help: "simulated nodes", default: 3 },
  nodeCpu: {
    flag: "--node-cpu",
    type: text,
    arg: "<quantity>",
    help: "cpu capacity of each node",
    default: "8",
  },
  nodeMemory: {
    flag: "--node-memory",
    type: text,
    arg: "<quantity>",
    help: "memory capacity of each node",
    default: "32Gi",
  },
  nodePods: { flag: "--node-pods", type: count, help: "pod capacity of each node", default: 110 },
  region: {
    flag: "--region",
    type: text,
    arg: "<region>",
    help: "topology.kubernetes.io/region label on every node",
  },
  zone: {
    flag: "--zone",
    type: text,
    arg: "<zone>",
    help: "topology.kubernetes.io/zone label on every node",
  },
  provider: {
    flag: "--provider",
    type: text,
    arg: "<name>",
    help: "cloud provider (nodes' spec.providerID <provider>://<cluster>/<node>)",
  },
  stages: {
    flag: "--stages",
    type: text,
    arg: "<file.yaml>",
    help: `custom-resource stages: a YAML list of {name, apiVersion, kind, delayMs?, when?: once | {missing: <path>} | {equals: {<path>: <value>}}, set: {status: {...}}}; status strings may use ${PLACEHOLDERS.join(" ")}`,
  },
  sink: {
    flag: "--sink",
    type: toggle,
    help: "a member that costs next to nothing (benchmarks of the control plane): it stores and watches objects and reports Deployments and StatefulSets ready at once; no pods, no heartbeats, no other controllers",
    default: false,
  },
  kubeconfigOut: {
    flag: "--kubeconfig-out",
    type: text,
    arg: "<path>",
    help: "write a kubeconfig reaching the cluster as its administrator (context named after it; CA and client certificate inline)",
  },
  certDir: {
    flag: "--cert-dir",
    type: text,
    arg: "<dir>",
    help: "keep the cluster's CA, serving certificate, admin certificate and service-account key here (made on first start, reused after); default: new ones in memory",
  },
  insecure: {
    flag: "--insecure",
    type: toggle,
    help: "serve plain HTTP with no authentication or authorization (benchmarks only)",
    default: false,
  },
  storage: {
    flag: "--storage",
    type: text,
    arg: "<url>",
    help: "memory:, sqlite://<path> or etcd://host:port",
    default: "memory:",
  },
});
