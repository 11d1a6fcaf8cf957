import type { EventName, EventOf } from "../model/events.js";

type Awaitable<T> = T | Promise<T>;

/**
 * `[type, payload]` for every event of the bus. Declared as a union of tuples so that an `onEvent(type, payload)`
 * implementation narrows `payload` when it checks `type`.
 */
export type EventArgs = { [K in EventName]: [type: K, payload: EventOf<K>] }[EventName];

/**
 * What a reporter may implement. Every method is optional and may return a promise; gantry awaits it before
 * it calls the same reporter again, and awaits them all before the process exits.
 * For each event `onEvent` is called first, then the named method (so `onRunEnd` sees what `onEvent` saw).
 */
export interface Reporter {
  onRunStart?(event: EventOf<"run:start">): Awaitable<void>;
  onStoryStart?(event: EventOf<"story:start">): Awaitable<void>;
  onStageExit?(event: EventOf<"stage:exit">): Awaitable<void>;
  onStoryComplete?(event: EventOf<"story:complete">): Awaitable<void>;
  onStoryFail?(event: EventOf<"story:fail">): Awaitable<void>;
  onStorySkip?(event: EventOf<"story:skip">): Awaitable<void>;
  /** From `run:complete`: the last event of a run. */
  onRunEnd?(event: EventOf<"run:complete">): Awaitable<void>;
  /** Every event, including those above. */
  onEvent?(...args: EventArgs): Awaitable<void>;
}

/** The named methods and the event each is called for. */
export const REPORTER_METHODS = {
  onRunStart: "run:start",
  onStoryStart: "story:start",
  onStageExit: "stage:exit",
  onStoryComplete: "story:complete",
  onStoryFail: "story:fail",
  onStorySkip: "story:skip",
  onRunEnd: "run:complete",
} as const satisfies Record<Exclude<keyof Reporter, "onEvent">, EventName>;

/** A writable text stream; `process.stdout` is one. */
export interface ReporterStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
}

/** What gantry hands every reporter factory besides its options. */
export interface ReporterContext {
  /** The project root (where `.gantry/` is). */
  root: string;
  /** `.gantry/runs/<runId>/`: where file reports go. */
  runDir: string;
  /** Standard output, or standard error when the `json` reporter owns standard output. */
  stdout: ReporterStream;
  stderr: ReporterStream;
  /** The environment to read `CI`, `GITHUB_ACTIONS`, … from. */
  env: Readonly<Record<string, string | undefined>>;
  now: () => Date;
}

/** A reporter module's default export. `options` is the second item of a `[name, options]` config entry, or `{}`. */
export type ReporterFactory<Options = Record<string, unknown>> = (
  options: Options,
  context: ReporterContext,
) => Reporter;

/** A reporter as the run knows it: its name (`junit`, `./tools/slack.mjs`) is how failures are reported. */
export interface NamedReporter {
  name: string;
  reporter: Reporter;
}
