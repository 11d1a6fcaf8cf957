import { randomUUID } from "node:crypto";
import type { Config } from "../config/schema.js";
import type { AppCheck, StoryCheckName } from "../config/story-check-schema.js";
import { STORY_CHECKS } from "../config/story-check-schema.js";
import type { StoryCheckRun } from "../model/events.js";
import { execCommand } from "../process/executor.js";
import { killMarkedProcesses, SESSION_ID_VARIABLE } from "../process/leftovers.js";
import { testEnvironment } from "./env.js";

const OUTPUT_TAIL = 64 * 1024;
const REPORTED_OUTPUT = 4_000;

/** The checks `quality.commands` configures, in order: build, smoke, demo. */
export function configuredChecks(config: Config): { name: StoryCheckName; check: AppCheck }[] {
  const commands = config.quality.commands;
  return STORY_CHECKS.flatMap((name) => {
    const check = commands[name];
    return check ? [{ name, check }] : [];
  });
}

/**
 * Runs every configured check in `cwd` (a checkout of the tree judged), each within its timeout, and
 * reports each. A check with `expect` passes once its output matches; its process group is killed then,
 * so a server that never exits is a pass when it says it is up. Every process a check started is killed
 * when it ends: its group, and anything that left the group but kept the check's marker variable.
 */
export async function runStoryChecks(input: {
  config: Config;
  cwd: string;
  signal: AbortSignal;
  /** A sandbox to run them under (the judging one, over `cwd`), when the run has one. */
  wrapper?: readonly string[];
}): Promise<StoryCheckRun[]> {
  const runs: StoryCheckRun[] = [];
  for (const { name, check } of configuredChecks(input.config)) {
    if (input.signal.aborted) break;
    runs.push(await runOne(name, check, input));
  }
  return runs;
}

async function runOne(
  name: StoryCheckName,
  check: AppCheck,
  input: { config: Config; cwd: string; signal: AbortSignal; wrapper?: readonly string[] },
): Promise<StoryCheckRun> {
  const spec = typeof check === "string" ? { run: check } : check;
  const expect = spec.expect ? new RegExp(spec.expect) : undefined;
  const stop = new AbortController();
  const interrupt = () => stop.abort();
  input.signal.addEventListener("abort", interrupt, { once: true });
  const marker = `story-check-${randomUUID()}`;
  let seen = "";
  let matched = false;
  try {
    const result = await execCommand({
      command: spec.run,
      cwd: input.cwd,
      timeoutMs: (spec.timeoutSeconds ?? input.config.quality.timeoutSeconds) * 1000,
      signal: stop.signal,
      env: { ...testEnvironment(process.env, input.config.quality.stripEnv), [SESSION_ID_VARIABLE]: marker },
      tailBytes: OUTPUT_TAIL,
      killGraceMs: 1000,
      ...(input.wrapper ? { wrapper: input.wrapper } : {}),
      ...(expect
        ? {
            onOutput: (chunk: string) => {
              if (matched) return;
              seen = (seen + chunk).slice(-OUTPUT_TAIL);
              if (expect.test(seen)) {
                matched = true;
                stop.abort();
              }
            },
          }
        : {}),
    });
    killMarkedProcesses(SESSION_ID_VARIABLE, marker);
    const interrupted = input.signal.aborted;
    if (expect && !matched && result.exitCode === 0) matched = expect.test(result.output);
    const success = !interrupted && (expect ? matched : result.exitCode === 0 && !result.timedOut);
    const note = result.timedOut
      ? `\n[gantry: timed out after ${spec.timeoutSeconds ?? input.config.quality.timeoutSeconds} s${expect ? ` without printing /${spec.expect}/` : ""}]`
      : expect && !matched && !interrupted
        ? `\n[gantry: the output never matched /${spec.expect}/]`
        : "";
    return {
      name,
      command: spec.run,
      success,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      ...(spec.expect ? { expect: spec.expect, matched } : {}),
      durationMs: result.durationMs,
      output: `${result.output}${note}`.slice(-REPORTED_OUTPUT),
    };
  } finally {
    input.signal.removeEventListener("abort", interrupt);
  }
}
