/**
 * Pod IPs from each node's pod CIDR (`spec.podCIDR`, a /24 per node by default): the lowest
 * free address from .2 up, skipping what running pods on the node hold and what was just
 * handed out but is not in the informer yet.
 */
import type { StoredObject } from "../api/meta.ts";
import type { Informer } from "../runtime/informer.ts";
import { objectKey } from "../runtime/keys.ts";
import type { NodeSpec } from "./types.ts";
import { BY_NODE, isTerminal, podStatus } from "./workload.ts";

function ipToNumber(ip: string): number {
  return ip.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

function numberToIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join(".");
}

/** The first and last usable host numbers of an IPv4 CIDR (pods start at network + 2). */
export function cidrRange(cidr: string): { first: number; last: number } | undefined {
  const m = /^(\d+\.\d+\.\d+\.\d+)\/(\d+)$/.exec(cidr);
  if (!m) return undefined;
  const bits = Number(m[2]);
  if (bits < 8 || bits > 30) return undefined;
  const size = 2 ** (32 - bits);
  const base = ipToNumber(m[1]!) - (ipToNumber(m[1]!) % size);
  return { first: base + 2, last: base + size - 2 };
}

export class PodIpAllocator {
  #pods: Informer;
  /** Handed out, maybe not visible yet: ip → pod key and uid. */
  #recent = new Map<string, { key: string; uid: string }>();

  constructor(pods: Informer) {
    this.#pods = pods;
  }

  /** An address for `pod` on `node`; its current one if it has one. */
  allocate(pod: StoredObject, node: StoredObject): string | undefined {
    const current = podStatus(pod).podIP;
    if (current) return current;
    const range = cidrRange(((node.spec ?? {}) as NodeSpec).podCIDR ?? "");
    if (!range) return undefined;
    const used = new Set<string>();
    for (const p of this.#pods.byIndex(BY_NODE, node.metadata.name)) {
      // Finished pods' sandboxes are gone, their addresses free again.
      if (isTerminal(p)) continue;
      const ip = podStatus(p).podIP;
      if (ip) used.add(ip);
    }
    for (const [ip, owner] of this.#recent) {
      const cached = this.#pods.getByKey(owner.key);
      // Released once the pod is gone or the cache shows its address.
      if (!cached || cached.metadata.uid !== owner.uid || podStatus(cached).podIP === ip)
        this.#recent.delete(ip);
      else used.add(ip);
    }
    for (let n = range.first; n <= range.last; n++) {
      const ip = numberToIp(n);
      if (!used.has(ip)) {
        this.#recent.set(ip, { key: objectKey(pod), uid: pod.metadata.uid ?? "" });
        return ip;
      }
    }
    return undefined;
  }
}
