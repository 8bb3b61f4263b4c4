/**
 * Webster (Sainte-Laguë) apportionment, the one division rule behind every Divided strategy:
 * seat by seat, the party with the highest `votes / (2 * seats + 1)` wins. Ties (exactly equal
 * priorities) go to the party with fewer seats, then by name; a binding breaks name ties in a
 * direction picked by the hash of its resource template's UID, so equal clusters do not always
 * favour the same name across workloads.
 */
import { fnv32a } from "../../karmada/names.ts";
import type { TargetCluster } from "../../karmada/types.ts";

export interface Party {
  name: string;
  votes: number;
  seats: number;
}

/** True when `a` should get the seat before `b` at equal priority. */
export type TieBreaker = (a: Party, b: Party) => boolean;

const fewerSeatsThenName =
  (descending: boolean): TieBreaker =>
  (a, b) => {
    if (a.seats !== b.seats) return a.seats < b.seats;
    return descending ? a.name > b.name : a.name < b.name;
  };

const ascending = fewerSeatsThenName(false);
const descending = fewerSeatsThenName(true);

/** Name order for ties: descending when FNV-1a(uid) is odd, ascending otherwise (or without a UID). */
export function tieBreakerForUid(uid: string | undefined): TieBreaker {
  if (!uid) return ascending;
  return (fnv32a(uid) & 1) === 1 ? descending : ascending;
}

function priority(p: Party): number {
  return p.votes / (2 * p.seats + 1);
}

/**
 * Hands out `newSeats` seats. Parties in `initialSeats` but without votes keep their seats and
 * get no more unless nobody else can. Returns every party, sorted by name.
 */
export function allocateWebsterSeats(
  newSeats: number,
  votes: Readonly<Record<string, number>>,
  initialSeats?: Readonly<Record<string, number>>,
  tieBreaker: TieBreaker = ascending,
): Party[] {
  const parties = new Map<string, Party>();
  for (const [name, seats] of Object.entries(initialSeats ?? {}))
    parties.set(name, { name, votes: 0, seats });
  for (const [name, v] of Object.entries(votes)) {
    const p = parties.get(name);
    if (p) p.votes = v;
    else parties.set(name, { name, votes: v, seats: 0 });
  }
  return seatParties([...parties.values()], newSeats, tieBreaker);
}

/** Webster over `heap` (one party per name; reordered and returned sorted by name). */
function seatParties(heap: Party[], newSeats: number, tieBreaker: TieBreaker): Party[] {
  if (heap.length === 0) return [];
  const before = (a: Party, b: Party): boolean => {
    const pa = priority(a);
    const pb = priority(b);
    return pa === pb ? tieBreaker(a, b) : pa > pb;
  };
  const siftDown = (i: number): void => {
    const n = heap.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < n && before(heap[l]!, heap[best]!)) best = l;
      if (r < n && before(heap[r]!, heap[best]!)) best = r;
      if (best === i) return;
      [heap[i], heap[best]] = [heap[best]!, heap[i]!];
      i = best;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(i);
  // The order is total, so the winner of every round is unique: give it the seat and re-sink it.
  for (let left = newSeats; left > 0; left--) {
    heap[0]!.seats++;
    siftDown(0);
  }
  return heap.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Divides `replicas` by weight (upstream's Dispenser): every weighted cluster appears in the
 * result, sorted by name, zero-replica ones included.
 */
export function divideByWeight(
  replicas: number,
  weights: ReadonlyArray<{ name: string; weight: number }>,
  uid: string | undefined,
): TargetCluster[] {
  // A Map, not a record: a fresh object given hundreds of cluster names as keys costs V8 a
  // hidden class per key, super-linear in the clusters (a name given twice keeps the last weight).
  const parties = new Map<string, Party>();
  let sum = 0;
  for (const w of weights) {
    parties.set(w.name, { name: w.name, votes: w.weight, seats: 0 });
    sum += w.weight;
  }
  if (sum === 0) return [];
  return seatParties([...parties.values()], replicas, tieBreakerForUid(uid)).map((p) => ({
    name: p.name,
    replicas: p.seats,
  }));
}
