import mittImport, { type Emitter } from "mitt";
import type { EventName, EventOf, EventPayloads } from "../model/events.js";
import { within } from "../process/timeout.js";

// mitt's CommonJS-style default export does not type-check under NodeNext; re-type it once here.
const mitt = mittImport as unknown as <T extends Record<string, unknown>>() => Emitter<T>;

type Events = { [K in EventName]: EventOf<K> };
export type Handler<K extends EventName> = (event: EventOf<K>) => void | Promise<void>;

export interface SubscriberFault {
  subscriber: string;
  event: EventName;
  error: unknown;
}

export interface BusOptions {
  runId: string;
  /** Called when a subscriber throws or rejects; the other subscribers still run. */
  onFault?: (fault: SubscriberFault) => void;
  /** How long `flush()` waits for a pending subscriber before reporting it as stuck. */
  flushTimeoutMs?: number;
  now?: () => Date;
  /** Applied to every payload before any subscriber sees it: secrets never reach files, hooks or reports. */
  redact?: <T>(payload: T) => T;
}

export interface EventBus {
  readonly runId: string;
  /** Announces an event; returns it as the subscribers got it (redacted, with `runId` and `at`). */
  emit<K extends EventName>(type: K, payload: EventPayloads[K]): EventOf<K>;
  on<K extends EventName>(type: K, subscriber: string, handler: Handler<K>): () => void;
  onAny(
    subscriber: string,
    handler: <K extends EventName>(type: K, event: EventOf<K>) => void | Promise<void>,
  ): () => void;
  /** Waits for every async subscriber started so far; returns the names of those that did not settle in time. */
  flush(timeoutMs?: number): Promise<string[]>;
}

/** A thin typed layer over mitt: isolated subscribers, tracked async work, a bounded flush. */
export function createEventBus(options: BusOptions): EventBus {
  const emitter = mitt<Events>();
  const pending = new Map<Promise<void>, string>();
  const now = options.now ?? (() => new Date());
  const report = options.onFault ?? (() => {});
  const redact = options.redact;

  const track = (subscriber: string, type: EventName, outcome: unknown): void => {
    if (!(outcome instanceof Promise)) return;
    const settled: Promise<void> = outcome.then(
      () => {},
      (error: unknown) => report({ subscriber, event: type, error }),
    );
    const tracked = settled.finally(() => pending.delete(tracked));
    pending.set(tracked, subscriber);
  };

  const isolate = (subscriber: string, type: EventName, call: () => unknown): void => {
    try {
      track(subscriber, type, call());
    } catch (error) {
      report({ subscriber, event: type, error });
    }
  };

  return {
    runId: options.runId,
    emit(type, payload) {
      const clean = redact ? redact(payload) : payload;
      // A payload that has its own time keeps it (a gate verdict is signed with the time of its result).
      const stamped = now().toISOString();
      const own = (clean as { at?: unknown }).at;
      const event = {
        ...clean,
        runId: options.runId,
        at: typeof own === "string" ? own : stamped,
      } as Events[typeof type];
      emitter.emit(type, event);
      return event;
    },
    on(type, subscriber, handler) {
      const wrapped = (event: Events[typeof type]) => isolate(subscriber, type, () => handler(event));
      emitter.on(type, wrapped);
      return () => emitter.off(type, wrapped);
    },
    onAny(subscriber, handler) {
      const wrapped = (type: EventName, event: Events[EventName]) =>
        isolate(subscriber, type, () => handler(type, event));
      emitter.on("*", wrapped);
      return () => emitter.off("*", wrapped);
    },
    async flush(timeoutMs = options.flushTimeoutMs ?? 30_000) {
      const deadline = Date.now() + timeoutMs;
      // Subscribers may emit while flushing; keep draining until nothing new is pending, bounded by the deadline.
      for (let round = 0; pending.size > 0 && round < 1000; round++) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) break;
        const outcome = await within(Promise.all([...pending.keys()]), { ms: remaining });
        if (outcome.kind === "timeout") break;
      }
      return [...new Set(pending.values())];
    },
  };
}
