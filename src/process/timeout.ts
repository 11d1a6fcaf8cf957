/** How a bounded wait ended: the work settled first, its time ran out, or the signal stopped it. */
export type Bounded<T> = { kind: "value"; value: T } | { kind: "timeout" } | { kind: "aborted" };

export interface Bound {
  /** Milliseconds to wait; undefined (or not a positive number) waits without a time limit. */
  ms?: number;
  /** Once aborted, the wait ends as `aborted`: at once, or after `graceMs` when given (the work may still finish within it). */
  signal?: AbortSignal;
  graceMs?: number;
}

/** setTimeout fires at once for anything larger. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Waits for `work` at most until the bound: the one timeout race of gantry. A rejection of `work` is
 * thrown as it is; the work itself is never cancelled here (callers abort their own signal for that).
 * Every timer and listener is gone when this settles.
 */
export async function within<T>(work: PromiseLike<T>, bound: Bound): Promise<Bounded<T>> {
  const timers: NodeJS.Timeout[] = [];
  const { signal } = bound;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<Bounded<T>>((resolve) => {
    const { ms } = bound;
    if (ms !== undefined && ms > 0) {
      timers.push(setTimeout(() => resolve({ kind: "timeout" }), Math.min(ms, MAX_TIMER_MS)));
    }
    if (!signal) return;
    onAbort = () => {
      if (bound.graceMs === undefined) resolve({ kind: "aborted" });
      else timers.push(setTimeout(() => resolve({ kind: "aborted" }), bound.graceMs));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  const settled = Promise.resolve(work).then((value): Bounded<T> => ({ kind: "value", value }));
  try {
    return await Promise.race([settled, stopped]);
  } finally {
    for (const timer of timers) clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}
