/**
 * Merging the load-balancer ingress points several members report for one Service or Ingress:
 * one entry per address (hostname, IP and, for Services, IP mode), the port statuses of equal
 * addresses united, and a stable order so an unchanged fleet yields an unchanged status.
 */
import { arrayAt, type JsonObject, numberAt, stringAt, valueAt } from "./fields.ts";

interface PortStatus {
  port: number;
  protocol: string;
  error?: string;
}

interface IngressPoint {
  ip: string;
  hostname: string;
  ipMode?: string;
  ports: PortStatus[];
}

function optionalString(obj: unknown, field: string): string | undefined {
  const v = valueAt(obj, field);
  return typeof v === "string" ? v : undefined;
}

function readPort(raw: unknown): PortStatus {
  const port: PortStatus = { port: numberAt(raw, "port"), protocol: stringAt(raw, "protocol") };
  const error = optionalString(raw, "error");
  if (error !== undefined) port.error = error;
  return port;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Absent sorts first for errors (`nil` before any message). */
function comparePorts(a: PortStatus, b: PortStatus): number {
  if (a.port !== b.port) return a.port - b.port;
  if (a.protocol !== b.protocol) return compareStrings(a.protocol, b.protocol);
  if (a.error === b.error) return 0;
  if (a.error === undefined) return -1;
  if (b.error === undefined) return 1;
  return compareStrings(a.error, b.error);
}

/** Entries with a hostname first (by hostname), then by IP, then IP mode (absent last). */
function compareIngress(a: IngressPoint, b: IngressPoint): number {
  if (a.hostname !== b.hostname) {
    if (b.hostname === "") return -1;
    if (a.hostname === "") return 1;
    return compareStrings(a.hostname, b.hostname);
  }
  if (a.ip !== b.ip) return compareStrings(a.ip, b.ip);
  if (a.ipMode === b.ipMode) return 0;
  if (b.ipMode === undefined) return -1;
  if (a.ipMode === undefined) return 1;
  return compareStrings(a.ipMode, b.ipMode);
}

function dedupeAndSort(ingresses: readonly unknown[], withIpMode: boolean): JsonObject[] {
  const byAddress = new Map<string, { point: IngressPoint; ports: Map<string, PortStatus> }>();
  for (const raw of ingresses) {
    const point: IngressPoint = { ip: stringAt(raw, "ip"), hostname: stringAt(raw, "hostname"), ports: [] };
    const ipMode = withIpMode ? optionalString(raw, "ipMode") : undefined;
    if (ipMode !== undefined) point.ipMode = ipMode;
    const key = JSON.stringify([point.hostname, point.ip, point.ipMode ?? null]);
    const entry = byAddress.get(key) ?? { point, ports: new Map<string, PortStatus>() };
    byAddress.set(key, entry);
    for (const port of arrayAt(raw, "ports").map(readPort)) {
      entry.ports.set(JSON.stringify([port.port, port.protocol, port.error ?? null]), port);
    }
  }
  const points = [...byAddress.values()].map(({ point, ports }) => ({
    ...point,
    ports: [...ports.values()].sort(comparePorts),
  }));
  return points.sort(compareIngress).map(toJson);
}

function toJson(point: IngressPoint): JsonObject {
  const out: JsonObject = {};
  if (point.ip !== "") out.ip = point.ip;
  if (point.hostname !== "") out.hostname = point.hostname;
  if (point.ipMode !== undefined) out.ipMode = point.ipMode;
  if (point.ports.length > 0) out.ports = point.ports.map((p) => ({ ...p }));
  return out;
}

/** `status.loadBalancer.ingress` entries of Services (`ip`, `hostname`, `ipMode`, `ports`). */
export function mergeServiceIngress(ingresses: readonly unknown[]): JsonObject[] {
  return dedupeAndSort(ingresses, true);
}

/** `status.loadBalancer.ingress` entries of Ingresses (`ip`, `hostname`, `ports`). */
export function mergeIngressIngress(ingresses: readonly unknown[]): JsonObject[] {
  return dedupeAndSort(ingresses, false);
}
