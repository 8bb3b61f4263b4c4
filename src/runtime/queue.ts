/**
 * A keyed work queue: a key waiting is queued once however often it is added; a key is
 * processed by one worker at a time (added again while processing, it runs once more
 * after); failures retry with exponential backoff per key, jittered so that keys failing
 * together (a server answering 429 or 503 to all of them) do not all come back together; N
 * workers.
 */

import type { QueueMetrics, QueueState } from "./queue-metrics.ts";

/** The longest delay `setTimeout` honours (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** A failure's backoff grows by up to this fraction of itself, at random. */
const BACKOFF_JITTER = 0.5;

export interface QueueOptions {
  workers?: number;
  /** First retry delay (ms); doubles per consecutive failure of the key. */
  baseDelayMs?: number;
  /** The doubling stops here; jitter may add up to half of it again. */
  maxDelayMs?: number;
  /** In [0, 1): the jitter of failure backoffs (default Math.random). */
  random?: () => number;
  /** Called when processing throws; the key is retried unless `retry` returns false. */
  onError?: (key: string, err: unknown, attempt: number) => boolean | undefined;
  /** Keys are collected but not processed until `resume()` (e.g. until caches have synced). */
  paused?: boolean;
  /** Reports adds, waits, work and retries (see queue-metrics.ts); closed when the queue stops. */
  metrics?: (state: QueueState) => QueueMetrics & { close(): void };
}

export type RequeueResult = undefined | { requeueAfterMs: number };

/** Processes one key; `attempt` counts from 1 and grows with each consecutive failure of the key. */
export type Processor = (
  key: string,
  attempt: number,
) => Promise<RequeueResult | undefined> | RequeueResult | undefined;

export class WorkQueue {
  /** FIFO of waiting keys from `#head` on (shifting a long array is linear; we compact instead). */
  #queue: string[] = [];
  #head = 0;
  #queued = new Set<string>();
  #processing = new Set<string>();
  #dirty = new Set<string>();
  #failures = new Map<string, number>();
  #timers = new Map<string, NodeJS.Timeout>();
  #idleWaiters: Array<() => void> = [];
  #running = 0;
  #stopped = false;
  #paused = false;
  #workers: number;
  #base: number;
  #max: number;
  #random: () => number;
  #process: Processor;
  #onError: QueueOptions["onError"];
  #metrics: (QueueMetrics & { close(): void }) | undefined;
  /** With metrics: when each waiting key was queued, and when each key in hand was taken. */
  #queuedAt = new Map<string, number>();
  #startedAt = new Map<string, number>();

  constructor(process: Processor, opts: QueueOptions = {}) {
    this.#process = process;
    this.#workers = opts.workers ?? 1;
    this.#base = opts.baseDelayMs ?? 5;
    this.#max = opts.maxDelayMs ?? 60_000;
    this.#random = opts.random ?? Math.random;
    this.#onError = opts.onError;
    this.#paused = opts.paused === true;
    this.#metrics = opts.metrics?.({
      depth: () => this.length,
      processingSince: () => this.#startedAt.values(),
    });
  }

  /** Starts processing the keys collected while paused. */
  resume(): void {
    this.#paused = false;
    this.#pump();
  }

  add(key: string): void {
    if (this.#stopped) return;
    if (this.#processing.has(key)) {
      this.#dirty.add(key);
      return;
    }
    if (this.#queued.has(key)) return;
    this.#queued.add(key);
    this.#queue.push(key);
    if (this.#metrics) {
      this.#metrics.added();
      this.#queuedAt.set(key, performance.now());
    }
    this.#pump();
  }

  addAfter(key: string, delayMs: number): void {
    if (this.#stopped) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const existing = this.#timers.get(key);
    if (existing) clearTimeout(existing);
    // Node fires a longer timer at once; a key due later is processed at the cap and can
    // requeue itself for the rest.
    const t = setTimeout(
      () => {
        this.#timers.delete(key);
        this.add(key);
      },
      Math.min(delayMs, MAX_TIMER_MS),
    );
    t.unref();
    this.#timers.set(key, t);
  }

  /**
   * Adds the key within `windowMs`, unless it is already waiting (queued or timed): a burst of
   * changes to one object becomes one reconcile, and a steady stream still gets one per window.
   */
  addCoalesced(key: string, windowMs: number): void {
    if (this.#stopped || this.#timers.has(key) || this.#queued.has(key)) return;
    const t = setTimeout(() => {
      this.#timers.delete(key);
      this.add(key);
    }, windowMs);
    t.unref();
    this.#timers.set(key, t);
  }

  /**
   * Retries now the keys waiting out a failure backoff (those `matches` selects, default all),
   * their failure counts forgotten: what they failed on (a server they could not reach) is
   * back, and a key that failed a dozen times need not sit out its minute.
   */
  retryFailing(matches: (key: string) => boolean = () => true): void {
    if (this.#stopped) return;
    for (const key of [...this.#failures.keys()]) {
      if (!matches(key)) continue;
      this.#failures.delete(key);
      const t = this.#timers.get(key);
      if (!t) continue;
      clearTimeout(t);
      this.#timers.delete(key);
      this.add(key);
    }
  }

  /** Forgets a key's failure count (after success or when the key no longer matters). */
  forget(key: string): void {
    this.#failures.delete(key);
  }

  get length(): number {
    return this.#queue.length - this.#head;
  }

  /** Resolves when nothing is queued, processing or waiting for a retry timer. */
  async idle(): Promise<void> {
    if (this.#isIdle()) return;
    await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }

  stop(): void {
    this.#stopped = true;
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
    this.#queue = [];
    this.#head = 0;
    this.#queued.clear();
    this.#queuedAt.clear();
    this.#metrics?.close();
    this.#notifyIdle();
  }

  #isIdle(): boolean {
    return this.length === 0 && this.#processing.size === 0 && this.#timers.size === 0;
  }

  #notifyIdle(): void {
    if (!this.#isIdle() && !this.#stopped) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }

  #pump(): void {
    while (!this.#stopped && !this.#paused && this.#running < this.#workers && this.length > 0) {
      const key = this.#queue[this.#head++]!;
      if (this.#head === this.#queue.length) {
        this.#queue = [];
        this.#head = 0;
      } else if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      this.#queued.delete(key);
      this.#processing.add(key);
      this.#running++;
      if (this.#metrics) {
        const now = performance.now();
        this.#metrics.started((now - (this.#queuedAt.get(key) ?? now)) / 1000);
        this.#queuedAt.delete(key);
        this.#startedAt.set(key, now);
      }
      void this.#run(key);
    }
  }

  async #run(key: string): Promise<void> {
    let retryAfter: number | undefined;
    try {
      const result = await this.#process(key, (this.#failures.get(key) ?? 0) + 1);
      this.#failures.delete(key);
      if (result && result.requeueAfterMs >= 0) retryAfter = result.requeueAfterMs;
    } catch (err) {
      const attempt = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, attempt);
      const retry = this.#onError?.(key, err, attempt) ?? true;
      if (retry) {
        retryAfter = failureBackoffMs(attempt, this.#base, this.#max, this.#random());
        this.#metrics?.retried();
      }
    } finally {
      this.#processing.delete(key);
      this.#running--;
      if (this.#metrics) {
        this.#metrics.finished((performance.now() - this.#startedAt.get(key)!) / 1000);
        this.#startedAt.delete(key);
      }
    }
    if (this.#dirty.delete(key)) this.add(key);
    else if (retryAfter !== undefined) this.addAfter(key, retryAfter);
    this.#pump();
    this.#notifyIdle();
  }
}

/**
 * The wait before the `attempt`th retry of a failing key: `base` doubled per consecutive
 * failure up to `max`, plus up to BACKOFF_JITTER of that at random (`random` in [0, 1)).
 */
export function failureBackoffMs(attempt: number, base: number, max: number, random: number): number {
  const backoff = Math.min(max, base * 2 ** (attempt - 1));
  return backoff * (1 + BACKOFF_JITTER * random);
}
