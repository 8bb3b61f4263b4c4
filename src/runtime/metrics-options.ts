/**
 * Upstream's `--metrics-bind-address` (":8080" for the controller manager, scheduler, agent
 * and operator; "0" turns the endpoint off). Ours serve HTTPS with delegated authentication
 * and authorization (metrics-server.ts), with Kubernetes components' secure-serving flags for
 * the certificate and for client certificates.
 */
import { parseListenAddress } from "./health.ts";
import { checkedText, type OptionValues, optionTable, text } from "./options.ts";

const metricsAddress = checkedText((address) => {
  if (address !== "0") parseListenAddress(address);
});

export function metricsOptions(defaultAddress: string) {
  return optionTable({
    metricsBindAddress: {
      flag: "--metrics-bind-address",
      type: metricsAddress,
      arg: "<address>",
      help: "serve /metrics over HTTPS here, to callers whom the API server the component talks to authenticates and allows get on /metrics (host:port or :port; 0 disables)",
      default: defaultAddress,
    },
    tlsCertFile: {
      flag: "--tls-cert-file",
      type: text,
      arg: "<file>",
      help: "the certificate (and chain) /metrics is served with, PEM (default: a self-signed one made at start)",
    },
    tlsPrivateKeyFile: {
      flag: "--tls-private-key-file",
      type: text,
      arg: "<file>",
      help: "its private key, PEM",
    },
    clientCaFile: {
      flag: "--client-ca-file",
      type: text,
      arg: "<file>",
      help: "client certificates signed by this CA authenticate on /metrics too (their CN and O, authorized as a token's user is)",
    },
  });
}

export type MetricsOptions = OptionValues<ReturnType<typeof metricsOptions>>;
