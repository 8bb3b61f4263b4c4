import { describe, expect, it } from "vitest";
import { fnv32a } from "../../karmada/names.ts";
import {
  allocateWebsterSeats,
  divideByWeight,
  type Party,
  type TieBreaker,
  tieBreakerForUid,
} from "./webster.ts";

const seats = (parties: Party[]): Record<string, number> =>
  Object.fromEntries(parties.map((p) => [p.name, p.seats]));

describe("allocateWebsterSeats", () => {
  // Wikipedia's Sainte-Laguë example: 8 seats among 4 parties, seat by seat.
  const votes = { PartyA: 100000, PartyB: 80000, PartyC: 30000, PartyD: 20000 };
  const rounds: Array<[number, [number, number, number, number]]> = [
    [1, [1, 0, 0, 0]],
    [2, [1, 1, 0, 0]],
    [3, [2, 1, 0, 0]],
    [4, [2, 1, 1, 0]],
    [5, [2, 2, 1, 0]],
    [6, [2, 2, 1, 1]],
    [7, [3, 2, 1, 1]],
    [8, [3, 3, 1, 1]],
  ];
  it.each(rounds)("classic example, %i seats", (n, [a, b, c, d]) => {
    expect(seats(allocateWebsterSeats(n, votes))).toEqual({ PartyA: a, PartyB: b, PartyC: c, PartyD: d });
  });

  it("4 seats over Alpha 1200, Beta 900, Gamma 400", () => {
    expect(seats(allocateWebsterSeats(4, { Alpha: 1200, Beta: 900, Gamma: 400 }))).toEqual({
      Alpha: 2,
      Beta: 1,
      Gamma: 1,
    });
  });

  const cases: Array<{
    name: string;
    seats: number;
    votes: Record<string, number>;
    initial?: Record<string, number>;
    tieBreaker?: TieBreaker;
    want: Party[];
  }> = [
    { name: "no parties: empty result", seats: 1, votes: {}, want: [] },
    {
      name: "no seats: every party at 0, sorted by name",
      seats: 0,
      votes: { PartyB: 200, PartyA: 100 },
      want: [
        { name: "PartyA", votes: 100, seats: 0 },
        { name: "PartyB", votes: 200, seats: 0 },
      ],
    },
    {
      name: "equal priority: fewer seats wins",
      seats: 1,
      votes: { PartyA: 3, PartyB: 1 },
      initial: { PartyA: 1, PartyB: 0 },
      want: [
        { name: "PartyA", votes: 3, seats: 1 },
        { name: "PartyB", votes: 1, seats: 1 },
      ],
    },
    {
      name: "equal priority and seats: smaller name wins",
      seats: 1,
      votes: { PartyA: 1, PartyB: 1 },
      want: [
        { name: "PartyA", votes: 1, seats: 1 },
        { name: "PartyB", votes: 1, seats: 0 },
      ],
    },
    {
      name: "a tie-breaker preferring larger names decides",
      seats: 1,
      votes: { PartyA: 1, PartyB: 1 },
      tieBreaker: (a, b) => a.name > b.name,
      want: [
        { name: "PartyA", votes: 1, seats: 0 },
        { name: "PartyB", votes: 1, seats: 1 },
      ],
    },
    {
      name: "a party with initial seats but no votes gets nothing new",
      seats: 2,
      votes: { NewParty1: 1, NewParty2: 1 },
      initial: { OldParty: 0 },
      want: [
        { name: "NewParty1", votes: 1, seats: 1 },
        { name: "NewParty2", votes: 1, seats: 1 },
        { name: "OldParty", votes: 0, seats: 0 },
      ],
    },
    {
      name: "old and new parties compete for the new seats",
      seats: 2,
      votes: { OldParty: 1, NewParty: 1 },
      initial: { OldParty: 1 },
      want: [
        { name: "NewParty", votes: 1, seats: 2 },
        { name: "OldParty", votes: 1, seats: 1 },
      ],
    },
    {
      name: "initial seats of a party without votes are kept",
      seats: 2,
      votes: { PartyA: 100 },
      initial: { PartyB: 3 },
      want: [
        { name: "PartyA", votes: 100, seats: 2 },
        { name: "PartyB", votes: 0, seats: 3 },
      ],
    },
  ];
  it.each(cases)("$name", (c) => {
    expect(allocateWebsterSeats(c.seats, c.votes, c.initial, c.tieBreaker)).toEqual(c.want);
  });
});

describe("divideByWeight (the reference's verified examples)", () => {
  const cases: Array<[string, number, Record<string, number>, Record<string, number>]> = [
    ["9 by 1:2", 9, { A: 1, B: 2 }, { A: 3, B: 6 }],
    ["9 by 1:3", 9, { A: 1, B: 3 }, { A: 2, B: 7 }],
    ["12 by 6:12:18", 12, { A: 6, B: 12, C: 18 }, { A: 2, B: 4, C: 6 }],
    ["5 by 1:1:1 (ascending)", 5, { m1: 1, m2: 1, m3: 1 }, { m1: 2, m2: 2, m3: 1 }],
    ["7 by 1:1 (ascending)", 7, { a: 1, b: 1 }, { a: 4, b: 3 }],
    ["12 by 18:12:6", 12, { member1: 18, member2: 12, member3: 6 }, { member1: 6, member2: 4, member3: 2 }],
    ["12 by 20:12:6", 12, { member1: 20, member2: 12, member3: 6 }, { member1: 6, member2: 4, member3: 2 }],
    ["12 by 6:12:6", 12, { member1: 6, member2: 12, member3: 6 }, { member1: 3, member2: 6, member3: 3 }],
  ];
  it.each(cases)("%s", (_, replicas, weights, want) => {
    const result = divideByWeight(
      replicas,
      Object.entries(weights).map(([name, weight]) => ({ name, weight })),
      undefined,
    );
    expect(Object.fromEntries(result.map((c) => [c.name, c.replicas]))).toEqual(want);
    expect(result.map((c) => c.name)).toEqual(Object.keys(want).sort());
  });

  it("a UID with an odd FNV-1a hash breaks name ties descending", () => {
    const odd = ["uid-1", "uid-2", "uid-3", "uid-4"].find((u) => (fnv32a(u) & 1) === 1)!;
    const even = ["uid-1", "uid-2", "uid-3", "uid-4"].find((u) => (fnv32a(u) & 1) === 0)!;
    const weights = [
      { name: "m1", weight: 1 },
      { name: "m2", weight: 1 },
      { name: "m3", weight: 1 },
    ];
    expect(divideByWeight(5, weights, odd)).toEqual([
      { name: "m1", replicas: 1 },
      { name: "m2", replicas: 2 },
      { name: "m3", replicas: 2 },
    ]);
    expect(divideByWeight(5, weights, even)).toEqual([
      { name: "m1", replicas: 2 },
      { name: "m2", replicas: 2 },
      { name: "m3", replicas: 1 },
    ]);
    expect(tieBreakerForUid("")({ name: "a", votes: 1, seats: 0 }, { name: "b", votes: 1, seats: 0 })).toBe(
      true,
    );
  });

  it("all weights zero: nothing to divide by", () => {
    expect(divideByWeight(3, [{ name: "a", weight: 0 }], undefined)).toEqual([]);
  });
});
