import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { AgentRequest, AgentResult } from "../agents/adapter.js";
import { type MarkerReading, readMarker } from "../agents/completion-marker.js";
import type { AgentRole } from "../model/agent.js";
import { killMarkedProcesses, SESSION_ID_VARIABLE } from "../process/leftovers.js";
import { readOnlyTree } from "../process/read-only-tree.js";
import type { RunContext, StoryContext } from "./context.js";
import { sessionNotNow } from "./cost-cap.js";

export type SessionOutcome =
  | { kind: "done"; result: AgentResult; marker: MarkerReading }
  | { kind: "error"; reason: string; result: AgentResult }
  | { kind: "paused"; reason: string };

/** Longest wait between two tries of a rate-limited session, whatever the base delay and retry count. */
const MAX_BACKOFF_MS = 10 * 60 * 1000;

/**
 * One agent session for a story, the only way stages reach an agent: checks the cost cap before
 * starting, writes the prompt file, announces `agent:start` / `agent:end` and `run:cost-check`.
 * A session the agent reports as rate-limited is tried again after an exponential backoff
 * (`agent.rateLimit`): each try is its own `agent:start` / `agent:end` and its cost is counted, but
 * only the first counts as one of the story's agent calls.
 */
export async function runAgentSession(
  ctx: StoryContext,
  role: AgentRole,
  prompt: string,
  /** For the roles that answer in a file (plan, research): that file, and the tree bound read-only. */
  readOnly?: { outputFile: string },
): Promise<SessionOutcome> {
  const { run } = ctx;
  prompt = run.redact.text(prompt);
  const blocked = sessionNotNow(run);
  if (blocked) return { kind: "paused", reason: blocked };
  ctx.agentCalls += 1;
  const attempt = ctx.agentCalls;
  const promptDir = join(run.runDir, "prompts");
  mkdirSync(promptDir, { recursive: true });
  const promptFile = join(promptDir, `${ctx.story.id}-${attempt}-${role}.md`);
  writeFileSync(promptFile, prompt);
  const model = run.agent.modelFor(ctx.tier);
  const call = { storyId: ctx.story.id, role, agent: run.agent.name, model, tier: ctx.tier };
  const request: Omit<AgentRequest, "sessionId"> = {
    role,
    storyId: ctx.story.id,
    attempt,
    tier: ctx.tier,
    model,
    prompt,
    promptFile,
    cwd: run.root,
    timeoutMs: run.config.agent.timeoutSeconds * 1000,
    signal: run.signal,
    feature: run.feature,
    runId: run.runId,
    ...(run.sandbox
      ? { sandbox: readOnly ? readOnlyTree(run.sandbox, resolve(run.root)) : run.sandbox }
      : {}),
    ...(readOnly ? { outputFile: readOnly.outputFile } : {}),
  };
  const { retries, baseDelayMs } = run.config.agent.rateLimit;
  for (let retry = 0; ; retry += 1) {
    run.bus.emit("agent:start", call);
    // Unique on the machine, not just in the run: another gantry's sessions must never match it.
    const sessionId = `${run.runId}-${ctx.story.id}-${attempt}-${role}-${randomUUID()}`;
    const result = await run.agent.run({ ...request, sessionId });
    if (!inOwnPidNamespace(request.sandbox)) stopLeftovers(run, sessionId);
    record(ctx, result);
    const outputFile = keepOutput(
      run,
      `${ctx.story.id}-${attempt}-${role}${retry > 0 ? `-retry${retry}` : ""}`,
      result,
    );
    // The final message where the CLI reports one apart, else the tail of everything it printed.
    const marker = readMarker(role, result.finalMessage ?? result.output);
    run.bus.emit("agent:end", {
      ...call,
      outputFile,
      exitCode: result.exitCode,
      durationMs: result.durationMs,
      costUsd: result.costUsd,
      costBasis: result.costBasis,
      ...(result.tokens ? { tokens: result.tokens } : {}),
      marker: marker.marker,
    });
    run.bus.emit("run:cost-check", { costUsd: run.cost.usd, limitUsd: run.config.execution.costLimitUsd });
    if (result.aborted) return { kind: "paused", reason: "interrupted" };
    if (!result.error) return { kind: "done", result, marker };
    // A rejected key or a refused setup fails every tier alike: the run pauses for a person instead.
    if (result.setupProblem) return { kind: "paused", reason: result.setupProblem };
    if (!result.rateLimited) return { kind: "error", reason: result.error, result };
    if (retry >= retries) {
      const tries = retries === 0 ? "" : ` (tried ${retries + 1} times)`;
      return { kind: "error", reason: `rate limited${tries}: ${result.error}`, result };
    }
    const delayMs = Math.min(baseDelayMs * 2 ** retry, MAX_BACKOFF_MS);
    ctx.logger.warn(
      { role, agent: run.agent.name, retry: retry + 1, of: retries, delayMs },
      "agent rate limited; retrying after a pause",
    );
    try {
      await sleep(delayMs, undefined, { signal: run.signal });
    } catch {
      return { kind: "paused", reason: "interrupted" };
    }
    const stop = sessionNotNow(run);
    if (stop) return { kind: "paused", reason: stop };
  }
}

/**
 * Whatever the session started and left running (a `setsid` helper outside its process group) is
 * killed before gantry looks at the tree; under the sandbox its PID namespace has taken them already.
 */
function stopLeftovers(run: RunContext, sessionId: string): void {
  const killed = killMarkedProcesses(SESSION_ID_VARIABLE, sessionId);
  if (killed > 0) run.logger.warn({ sessionId, killed }, "killed processes the agent session left running");
}

/**
 * Whether the session ran as the first process of its own PID namespace (every adapter passes the sandbox
 * on as its command's wrapper): when that process ends, the kernel kills everything left in the namespace
 * before its parent hears of the end, so no scan of /proc can find anything more.
 */
function inOwnPidNamespace(sandbox: readonly string[] | undefined): boolean {
  return sandbox?.[0] !== undefined && basename(sandbox[0]) === "bwrap" && sandbox.includes("--unshare-pid");
}

/** The most of a session's output kept on disk: its tail, in characters. */
export const MAX_SESSION_OUTPUT = 256 * 1024;

/**
 * What the session printed (standard output and error, as the adapter kept them), its tail at most
 * MAX_SESSION_OUTPUT, redacted, in `sessions/<name>.log` under the run directory. Returns that path relative to
 * the run directory, for `agent:end` and the reports.
 */
function keepOutput(run: RunContext, name: string, result: AgentResult): string {
  const dir = join(run.runDir, "sessions");
  mkdirSync(dir, { recursive: true });
  // Redacted before it is cut, so the cut cannot leave half a secret that no longer matches.
  const output = run.redact.text(result.output);
  const cut = output.length > MAX_SESSION_OUTPUT ? output.length - MAX_SESSION_OUTPUT : 0;
  const text = cut > 0 ? `[… the first ${cut} characters are not kept]\n${output.slice(cut)}` : output;
  const file = `sessions/${name}.log`;
  writeFileSync(join(run.runDir, file), text);
  return file;
}

function record(ctx: StoryContext, result: AgentResult): void {
  const { cost } = ctx.run;
  cost.usd += result.costUsd;
  cost.sessions += 1;
  cost.byBasis[result.costBasis] += 1;
  ctx.costUsd += result.costUsd;
}
