import type { EventBus } from "../bus/event-bus.js";
import type { EventName } from "../model/events.js";
import { within } from "../process/timeout.js";
import { type EventArgs, type NamedReporter, REPORTER_METHODS, type Reporter } from "../reporters/types.js";
import type { Logger } from "../util/logger.js";

/** How long one reporter call may take before the reporter is reported as stuck and gets no more events. */
export const DEFAULT_REPORTER_TIMEOUT_MS = 10_000;

export interface ReporterDeps {
  logger: Logger;
  /** One line for the user when a reporter is stuck. */
  warn: (line: string) => void;
  /** 0 for no limit here (the bus's flush timeout still applies). */
  timeoutMs?: number;
}

type Method = keyof Reporter;
const METHOD_OF_EVENT = new Map<EventName, Method>(
  Object.entries(REPORTER_METHODS).map(([method, event]) => [event, method as Method]),
);

/** A reporter method threw or rejected: names the method; the bus names the reporter and the event. */
export class ReporterError extends Error {
  constructor(
    readonly method: Method,
    cause: unknown,
  ) {
    super(`${method}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "ReporterError";
  }
}

/**
 * Each reporter is its own bus subscriber, `reporter:<name>`, so a throw or rejection is reported with its name
 * by the bus and the others go on. A reporter's calls run one after another in event order (`onEvent`, then the
 * named method), and the bus's `flush()` waits for them. A call that has not settled after `timeoutMs` is
 * reported, and that reporter gets no further events, so it cannot hold up the run.
 */
export function wireReporters(
  bus: EventBus,
  reporters: readonly NamedReporter[],
  deps: ReporterDeps,
): () => void {
  const timeoutMs = deps.timeoutMs ?? DEFAULT_REPORTER_TIMEOUT_MS;
  const offs = reporters.map(({ name, reporter }) => {
    const subscriber = `reporter:${name}`;
    let queue: Promise<void> = Promise.resolve();
    let stuck = false;

    const call = async (method: Method, type: EventName, invoke: () => unknown): Promise<void> => {
      let outcome: unknown;
      try {
        outcome = invoke();
      } catch (error) {
        throw new ReporterError(method, error);
      }
      if (typeof (outcome as PromiseLike<unknown> | undefined)?.then !== "function") return;
      try {
        const settled = await within(outcome as PromiseLike<unknown>, { ms: timeoutMs });
        if (settled.kind === "value") return;
      } catch (error) {
        throw new ReporterError(method, error);
      }
      stuck = true;
      deps.logger.warn({ subscriber, event: type, method, timeoutMs }, "reporter did not settle");
      deps.warn(
        `gantry: reporter "${name}" did not finish ${method} (${type}) within ${timeoutMs} ms; it gets no further events`,
      );
    };

    return bus.onAny(subscriber, (type, event) => {
      if (stuck) return;
      const args = [type, event] as EventArgs;
      const method = METHOD_OF_EVENT.get(type);
      const named = method ? (reporter[method] as ((e: unknown) => unknown) | undefined) : undefined;
      if (!reporter.onEvent && !named) return;
      const run = queue.then(async () => {
        const failures: unknown[] = [];
        const note = (error: unknown) => {
          failures.push(error);
        };
        if (reporter.onEvent && !stuck)
          await call("onEvent", type, () => reporter.onEvent?.(...args)).catch(note);
        if (method && named && !stuck)
          await call(method, type, () => named.call(reporter, event)).catch(note);
        if (failures.length === 1) throw failures[0];
        if (failures.length > 1)
          throw new AggregateError(failures, failures.map((f) => (f as Error).message).join("; "));
      });
      queue = run.catch(() => {});
      return run;
    });
  });
  return () => {
    for (const off of offs) off();
  };
}
