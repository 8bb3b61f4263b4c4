/**
 * client-go's REST client metrics, which every upstream component exports for its clients of
 * the control plane and of members: `rest_client_requests_total{code,host,method}` (code
 * `<error>` when no HTTP answer came), `rest_client_request_duration_seconds{verb,host}` and
 * `rest_client_rate_limiter_duration_seconds{verb,host}` (here: the wait for one of the
 * client's concurrency slots) and `rest_client_request_retries_total{code,host,verb}`.
 */
import { counter, histogram, type Registry } from "../metrics/registry.ts";

export interface RestClientMetrics {
  /** A request got an answer (`code` = its status) or none (`code` undefined), after `seconds`. */
  request(method: string, code: number | undefined, seconds: number): void;
  /** A request waited so long for a slot. */
  waited(method: string, seconds: number): void;
  /** A request answered `code` is tried again (429, or a 5xx with Retry-After). */
  retried(method: string, code: number): void;
}

const LATENCY_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0];
const RATE_LIMITER_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0];

/** The metrics of a client of `host` (the server URL's host:port). */
export function restClientMetrics(registry: Registry, host: string): RestClientMetrics {
  const requests = counter(registry, {
    name: "rest_client_requests_total",
    help: "Number of HTTP requests, partitioned by status code, method, and host.",
    labelNames: ["code", "host", "method"],
  });
  const latency = histogram(registry, {
    name: "rest_client_request_duration_seconds",
    help: "Request latency in seconds. Broken down by verb, and host.",
    labelNames: ["verb", "host"],
    buckets: LATENCY_BUCKETS,
  });
  const limiter = histogram(registry, {
    name: "rest_client_rate_limiter_duration_seconds",
    help: "Client side rate limiter latency in seconds. Broken down by verb, and host.",
    labelNames: ["verb", "host"],
    buckets: RATE_LIMITER_BUCKETS,
  });
  const retries = counter(registry, {
    name: "rest_client_request_retries_total",
    help: "Number of request retries, partitioned by status code, verb, and host.",
    labelNames: ["code", "host", "verb"],
  });
  return {
    retried(method, code) {
      retries.inc({ code: String(code), host, verb: method });
    },
    request(method, code, seconds) {
      requests.inc({ code: code === undefined ? "<error>" : String(code), host, method });
      latency.observe({ verb: method, host }, seconds);
    },
    waited(method, seconds) {
      limiter.observe({ verb: method, host }, seconds);
    },
  };
}
