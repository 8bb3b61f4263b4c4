/**
 * Upstream's `--metrics-bind-address` (":8080" for the controller manager, scheduler, agent
 * and operator; "0" turns the endpoint off). Ours serve HTTPS with delegated authentication
 * and authorization (metrics-server.ts).
 */
import { parseListenAddress } from "./health.ts";
import { checkedText, type OptionValues, optionTable } from "./options.ts";

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
  });
}

export type MetricsOptions = OptionValues<ReturnType<typeof metricsOptions>>;
