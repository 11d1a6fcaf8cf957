import type { EventBus } from "../bus/event-bus.js";
import { HOOK_SOURCE_EVENTS, type HookPayload } from "../config/hook-payload.js";
import { type Config, HOOK_EVENTS, type HookEvent } from "../config/schema.js";
import type { RunControl } from "../model/run-control.js";
import { type ExecResult, execCommand } from "../process/executor.js";
import type { Logger } from "../util/logger.js";
import { buildHookPayload, hookEnvironment } from "./hook-payload.js";

export const DEFAULT_HOOK_TIMEOUT_MS = 10_000;
/** The exit code with which an `on-story-start` hook skips the story. */
export const VETO_EXIT_CODE = 2;
/** How much of a hook's output reaches the run log. */
const OUTPUT_TAIL = 16 * 1024;
const MAX_REASON = 1000;
const MAX_SHOWN = 160;

export interface HookDeps {
  config: Config;
  /** The repository root: every hook runs there. */
  root: string;
  control: RunControl;
  /** The run log; a hook's output goes here, never to the terminal. */
  logger: Logger;
  /** One line for the user when a hook fails. */
  warn: (line: string) => void;
  feature: string;
}

export interface HookCommand {
  command: string;
  timeoutMs: number;
}

/** The enabled commands configured for `hook`, in the order written. */
export function hookCommands(config: Config, hook: HookEvent): HookCommand[] {
  const entry = config.hooks[hook];
  if (entry === undefined) return [];
  return (Array.isArray(entry) ? entry : [entry]).flatMap((item) => {
    if (typeof item === "string") return [{ command: item, timeoutMs: DEFAULT_HOOK_TIMEOUT_MS }];
    if (item.enabled === false) return [];
    return [{ command: item.command, timeoutMs: item.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS }];
  });
}

/**
 * Runs the configured hook commands when their bus events happen. Hooks run one at a time, in the order
 * the events were emitted, each event's commands in list order; the handler's promise is what
 * `bus.flush()` waits for, which is how an `on-story-start` veto is in place before the story begins.
 */
export function wireHooks(bus: EventBus, deps: HookDeps): () => void {
  let queue: Promise<void> = Promise.resolve();
  const offs: (() => void)[] = [];
  for (const hook of HOOK_EVENTS) {
    const commands = hookCommands(deps.config, hook);
    if (commands.length === 0) continue;
    offs.push(
      bus.on(HOOK_SOURCE_EVENTS[hook], `hook ${hook}`, (event) => {
        // Built now, not when the queue gets to it: the payload is the event as it was emitted.
        const payload = buildHookPayload(hook, event, deps.feature);
        const done = queue.then(() => runCommands(payload, commands, deps));
        queue = done.catch(() => {});
        return done;
      }),
    );
  }
  return () => {
    for (const off of offs) off();
  };
}

async function runCommands(payload: HookPayload, commands: HookCommand[], deps: HookDeps): Promise<void> {
  const input = `${JSON.stringify(payload)}\n`;
  const env = hookEnvironment(payload, process.env);
  for (const { command, timeoutMs } of commands) {
    // Ctrl-C stops a hook that is running; one that starts afterwards (on-complete) still gets its timeout.
    const signal = deps.control.signal.aborted ? undefined : deps.control.signal;
    let result: ExecResult;
    try {
      result = await execCommand({
        command,
        cwd: deps.root,
        env,
        input,
        timeoutMs,
        signal,
        tailBytes: OUTPUT_TAIL,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      report(deps, payload, command, `could not start: ${message}`, { error: message });
      continue;
    }
    const facts = {
      hook: payload.hook,
      event: payload.event,
      command,
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      durationMs: result.durationMs,
      output: result.output,
    };
    const finished = !result.timedOut && !result.aborted && result.spawnError === undefined;
    if (finished && result.exitCode === 0) {
      deps.logger.info(facts, `hook ${payload.hook} ran`);
    } else if (finished && result.exitCode === VETO_EXIT_CODE && payload.hook === "on-story-start") {
      const reason = vetoReason(result.stderrTail);
      deps.logger.info({ ...facts, veto: reason }, `hook ${payload.hook} vetoed story ${payload.story.id}`);
      deps.control.vetoStory(payload.story.id, reason);
      return; // The story will not start; the remaining on-story-start commands have nothing to act on.
    } else if (result.aborted) {
      deps.logger.info(facts, `hook ${payload.hook} stopped: the run was interrupted`);
    } else {
      report(deps, payload, command, failure(result, timeoutMs), facts);
    }
  }
}

function report(deps: HookDeps, payload: HookPayload, command: string, why: string, facts: object): void {
  deps.logger.warn(facts, `hook ${payload.hook} failed: ${why}`);
  deps.warn(`gantry: hook ${payload.hook} (${shorten(command, MAX_SHOWN)}) ${why}; the run goes on`);
}

function failure(result: ExecResult, timeoutMs: number): string {
  if (result.spawnError !== undefined) return `could not start: ${result.spawnError}`;
  if (result.timedOut) {
    const forced = result.forcefullyTerminated ? " with SIGKILL: it did not stop on SIGTERM" : "";
    return `timed out after ${timeoutMs} ms and was killed${forced}`;
  }
  const how =
    result.exitCode === null ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`;
  const lastLine = result.stderrTail.trim().split("\n").at(-1)?.trim();
  return lastLine ? `${how}: ${shorten(lastLine, MAX_SHOWN)}` : how;
}

function vetoReason(stderr: string): string {
  const text = stderr.trim();
  if (!text) return "no reason given";
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON)}…` : text;
}

/** One line, at most `max` characters: a multi-line command or message must not break the terminal line. */
function shorten(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
