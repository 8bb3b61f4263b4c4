/**
 * Upstream's health-probe flags: `--health-probe-bind-address` (HTTP) and the older
 * `--bind-address`/`--secure-port` (HTTPS), shared by the controller manager, the scheduler
 * and the operator; each has its own default port.
 */
import { parseListenAddress } from "./health.ts";
import { checkedText, type OptionValues, optionTable, port, text } from "./options.ts";

/** host:port, :port, or 0 (no probes). */
const probeAddress = checkedText((address) => {
  if (address !== "0") parseListenAddress(address);
});

/** The health flags of a component whose probes listen on `defaultProbe` (`:10357`). */
export function healthProbeOptions(defaultProbe: string) {
  return optionTable({
    healthProbeBindAddress: {
      flag: "--health-probe-bind-address",
      type: probeAddress,
      arg: "<address>",
      help: "serve /healthz, /livez and /readyz over HTTP here (host:port or :port; 0 disables)",
      default: defaultProbe,
    },
    bindAddress: {
      flag: "--bind-address",
      type: text,
      arg: "<ip>",
      help: "the address --secure-port listens on",
      default: "0.0.0.0",
    },
    securePort: {
      flag: "--secure-port",
      type: port,
      help: "also serve the health endpoints over HTTPS (self-signed) on this port",
    },
  });
}

export type HealthProbeOptions = OptionValues<ReturnType<typeof healthProbeOptions>>;
