import { within } from "../process/timeout.js";

/** How a plugin call ended: with a value, a throw (or rejection), past its time, or with the run interrupted. */
export type Settled<T> =
  | { kind: "value"; value: T }
  | { kind: "threw"; error: unknown }
  | { kind: "timeout" }
  | { kind: "aborted" };

export interface BoundOptions {
  timeoutMs: number;
  /** The run's signal: once aborted, the call is given `graceMs` to finish, then left behind. */
  signal?: AbortSignal;
  graceMs?: number;
}

/**
 * Calls plugin code so that nothing it does can hang or crash the caller: a synchronous throw and a
 * rejection become `threw`, a promise that never settles becomes `timeout` (and the signal handed to
 * the call is aborted, so a well-behaved plugin can stop its work).
 */
export async function settleWithin<T>(
  work: (signal: AbortSignal) => Promise<T> | T,
  options: BoundOptions,
): Promise<Settled<T>> {
  const controller = new AbortController();
  const outer = options.signal;
  const forward = () => controller.abort(outer?.reason);
  if (outer?.aborted) forward();
  else outer?.addEventListener("abort", forward, { once: true });
  const call = (async () => work(controller.signal))().then(
    (value): Settled<T> => ({ kind: "value", value }),
    (error: unknown): Settled<T> => ({ kind: "threw", error }),
  );
  try {
    const bounded = await within(call, {
      ms: options.timeoutMs,
      ...(outer ? { signal: outer, graceMs: options.graceMs ?? 0 } : {}),
    });
    if (bounded.kind === "timeout") {
      controller.abort(new Error(`timed out after ${Math.round(options.timeoutMs / 1000)} s`));
    }
    const settled = bounded.kind === "value" ? bounded.value : bounded;
    if (settled.kind === "threw" && outer?.aborted) return { kind: "aborted" };
    return settled;
  } finally {
    outer?.removeEventListener("abort", forward);
  }
}

/** `TypeError: boom`, the first line of the message only (errors end up on one line of a report). */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const first = error.message.split("\n")[0]?.trim() ?? "";
    return first ? `${error.name}: ${first}` : error.name;
  }
  return `thrown ${typeof error === "string" ? JSON.stringify(error) : String(error)}`;
}
