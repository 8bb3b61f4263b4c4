/**
 * What kube-apiserver's Service storage does on create: allocate a cluster IP from the
 * service CIDR (default 10.96.0.0/12, the first address reserved) and node ports from
 * 30000-32767 for NodePort and LoadBalancer services; refuse addresses already taken.
 * Allocations are tracked in memory from a watch of every Service; a reservation the store
 * never confirms (a create that failed later) is released after a while.
 */
import { isObject, type StoredObject } from "../../api/meta.ts";
import type { FieldError } from "../../machinery/errors.ts";
import type { Watch } from "../../storage/store.ts";
import type { AdmissionPlugin, ServerContext } from "../context.ts";
import { decodeStored } from "../objects.ts";
import { type ResourceType, storagePrefix } from "../resource-type.ts";

export interface ServiceIpOptions {
  /** IPv4 CIDR, e.g. `10.96.0.0/12`. */
  serviceCidr: string;
  nodePortRange: [number, number];
  /** How long an unconfirmed reservation is kept (ms). */
  reservationMs: number;
}

export const DEFAULT_SERVICE_IP_OPTIONS: ServiceIpOptions = {
  serviceCidr: "10.96.0.0/12",
  nodePortRange: [30000, 32767],
  reservationMs: 30_000,
};

function ipToNumber(ip: string): number | undefined {
  const parts = ip.split(".");
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined;
    n = n * 256 + Number(p);
  }
  return n;
}

function numberToIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join(".");
}

interface Spec {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
  ports?: Array<{ nodePort?: number; port?: number }>;
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
}

export class ServiceIpAllocator {
  #base: number;
  #size: number;
  #ports: [number, number];
  #reservationMs: number;
  #now: () => number;
  /** Confirmed (stored) addresses and ports, by owning service key. */
  #ipOwners = new Map<number, string>();
  #portOwners = new Map<number, string>();
  /** Unconfirmed reservations and when they were made. */
  #reservedIps = new Map<number, number>();
  #reservedPorts = new Map<number, number>();

  constructor(opts: ServiceIpOptions, now: () => number) {
    const [net, bits] = opts.serviceCidr.split("/");
    const base = ipToNumber(net ?? "");
    const prefix = Number(bits);
    if (base === undefined || !Number.isInteger(prefix) || prefix < 8 || prefix > 30) {
      throw new Error(`invalid service CIDR ${JSON.stringify(opts.serviceCidr)}`);
    }
    this.#size = 2 ** (32 - prefix);
    this.#base = base - (base % this.#size);
    this.#ports = opts.nodePortRange;
    this.#reservationMs = opts.reservationMs;
    this.#now = now;
  }

  /** Records what a stored service holds (create/update events). */
  observe(key: string, svc: StoredObject | undefined): void {
    for (const [ip, owner] of this.#ipOwners) if (owner === key) this.#ipOwners.delete(ip);
    for (const [port, owner] of this.#portOwners) if (owner === key) this.#portOwners.delete(port);
    if (!svc) return;
    const spec = (isObject(svc.spec) ? svc.spec : {}) as Spec;
    for (const ip of spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : [])) {
      const n = ipToNumber(ip);
      if (n !== undefined) {
        this.#ipOwners.set(n, key);
        this.#reservedIps.delete(n);
      }
    }
    for (const p of spec.ports ?? []) {
      if (p.nodePort) {
        this.#portOwners.set(p.nodePort, key);
        this.#reservedPorts.delete(p.nodePort);
      }
    }
  }

  #expire(): void {
    const cutoff = this.#now() - this.#reservationMs;
    for (const [k, t] of this.#reservedIps) if (t < cutoff) this.#reservedIps.delete(k);
    for (const [k, t] of this.#reservedPorts) if (t < cutoff) this.#reservedPorts.delete(k);
  }

  #ipTaken(n: number, key: string): boolean {
    const owner = this.#ipOwners.get(n);
    return (owner !== undefined && owner !== key) || this.#reservedIps.has(n);
  }

  inRange(ip: string): boolean {
    const n = ipToNumber(ip);
    return n !== undefined && n > this.#base && n < this.#base + this.#size - 1;
  }

  /** Reserves `ip` (or a free one) for `key`; undefined when taken or the range is full. */
  allocateIp(key: string, ip?: string): string | undefined {
    this.#expire();
    if (ip !== undefined) {
      const n = ipToNumber(ip);
      if (n === undefined || this.#ipTaken(n, key)) return undefined;
      this.#reservedIps.set(n, this.#now());
      return ip;
    }
    // Start at a random offset, as kube-apiserver does, then probe linearly; skip the
    // network address, the first address (the `kubernetes` service) and the broadcast one.
    const usable = this.#size - 3;
    const start = Math.floor(Math.random() * usable);
    for (let i = 0; i < usable; i++) {
      const n = this.#base + 2 + ((start + i) % usable);
      if (!this.#ipTaken(n, key)) {
        this.#reservedIps.set(n, this.#now());
        return numberToIp(n);
      }
    }
    return undefined;
  }

  allocatePort(key: string, port?: number): number | undefined {
    this.#expire();
    const [lo, hi] = this.#ports;
    const taken = (p: number): boolean => {
      const owner = this.#portOwners.get(p);
      return (owner !== undefined && owner !== key) || this.#reservedPorts.has(p);
    };
    if (port !== undefined) {
      if (taken(port)) return undefined;
      this.#reservedPorts.set(port, this.#now());
      return port;
    }
    const span = hi - lo + 1;
    const start = Math.floor(Math.random() * span);
    for (let i = 0; i < span; i++) {
      const p = lo + ((start + i) % span);
      if (!taken(p)) {
        this.#reservedPorts.set(p, this.#now());
        return p;
      }
    }
    return undefined;
  }

  get nodePortRange(): [number, number] {
    return this.#ports;
  }
}

function serviceKey(obj: StoredObject): string {
  return `${obj.metadata.namespace}/${obj.metadata.name}`;
}

/** The admission plugin: allocates on create, keeps addresses on update, refuses taken ones. */
export function serviceIpAdmission(alloc: ServiceIpAllocator): AdmissionPlugin {
  const errors = new WeakMap<StoredObject, FieldError[]>();
  return {
    name: "service-ip-allocation",
    handles: (rt: ResourceType) => rt.group === "" && rt.kind === "Service",
    mutate(obj, old, op) {
      if (!isObject(obj.spec)) obj.spec = {};
      const spec = obj.spec as Spec;
      const oldSpec = (old && isObject(old.spec) ? old.spec : {}) as Spec;
      const key = serviceKey(obj);
      const found: FieldError[] = [];
      if (spec.type === "ExternalName") {
        delete spec.clusterIP;
        delete spec.clusterIPs;
      } else if (op === "UPDATE" && oldSpec.clusterIP && !spec.clusterIP) {
        spec.clusterIP = oldSpec.clusterIP;
        if (oldSpec.clusterIPs) spec.clusterIPs = oldSpec.clusterIPs;
      } else if (spec.clusterIP === "None") {
        spec.clusterIPs = ["None"];
      } else if (op === "CREATE" || !oldSpec.clusterIP) {
        const wanted = spec.clusterIP || undefined;
        if (wanted !== undefined && !alloc.inRange(wanted)) {
          found.push({
            type: "FieldValueInvalid",
            field: "spec.clusterIPs",
            value: [wanted],
            detail: `failed to allocate IP ${wanted}: the provided IP (${wanted}) is not in the valid range`,
          });
        } else {
          const ip = alloc.allocateIp(key, wanted);
          if (ip === undefined) {
            found.push({
              type: "FieldValueInvalid",
              field: "spec.clusterIPs",
              value: wanted ? [wanted] : [],
              detail: wanted
                ? `failed to allocate IP ${wanted}: provided IP is already allocated`
                : "failed to allocate a serviceIP: range is full",
            });
          } else {
            spec.clusterIP = ip;
            spec.clusterIPs = [ip];
          }
        }
      }
      if (spec.type !== "ExternalName" && spec.clusterIP && spec.clusterIP !== "None") {
        spec.ipFamilies ??= ["IPv4"];
        spec.ipFamilyPolicy ??= "SingleStack";
      }
      if (spec.type === "NodePort" || spec.type === "LoadBalancer") {
        const oldPorts = new Map((oldSpec.ports ?? []).map((p) => [p.port, p.nodePort]));
        (spec.ports ?? []).forEach((p, i) => {
          if (!p.nodePort && oldPorts.get(p.port)) p.nodePort = oldPorts.get(p.port)!;
          if (p.nodePort && p.nodePort === oldPorts.get(p.port)) return;
          const [lo, hi] = alloc.nodePortRange;
          if (p.nodePort !== undefined && (p.nodePort < lo || p.nodePort > hi)) {
            found.push({
              type: "FieldValueInvalid",
              field: `spec.ports[${i}].nodePort`,
              value: p.nodePort,
              detail: `provided port is not in the valid range. The range of valid ports is ${lo}-${hi}`,
            });
            return;
          }
          const port = alloc.allocatePort(key, p.nodePort);
          if (port === undefined) {
            found.push({
              type: "FieldValueInvalid",
              field: `spec.ports[${i}].nodePort`,
              value: p.nodePort,
              detail: "provided port is already allocated",
            });
          } else {
            p.nodePort = port;
          }
        });
      }
      errors.set(obj, found);
    },
    validate(obj) {
      return errors.get(obj) ?? [];
    },
  };
}

/** Feeds the allocator from the store: every Service now and every change after. */
export async function followServices(
  server: ServerContext,
  alloc: ServiceIpAllocator,
): Promise<Watch | undefined> {
  const rt = server.registry.get("", "v1", "services");
  if (!rt) return undefined;
  const prefix = storagePrefix(rt);
  const { kvs, revision } = await server.store.list(prefix);
  for (const kv of kvs) {
    const svc = decodeStored(rt, kv);
    alloc.observe(serviceKey(svc), svc);
  }
  return server.store.watch(prefix, revision, {
    onEvents: (events) => {
      for (const e of events) {
        const key = e.kv.key.slice(prefix.length);
        alloc.observe(key, e.type === "delete" ? undefined : decodeStored(rt, e.kv));
      }
    },
    onError: (err) => server.log.error(err, "service IP allocator watch ended"),
  });
}
