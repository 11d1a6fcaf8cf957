import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentAdapter } from "../agents/adapter.js";
import { readMarker } from "../agents/completion-marker.js";
import type { GitRepo } from "../git/git-repo.js";
import type { AgentRole } from "../model/agent.js";
import type { MarkerOrNone } from "../model/markers.js";
import { killMarkedProcesses, SESSION_ID_VARIABLE } from "../process/leftovers.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import type { PlanRecord } from "./plan-record.js";

const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

/** What every session of one `gantry plan` shares. */
export interface PlanSessions {
  root: string;
  feature: string;
  runId: string;
  timeoutMs: number;
  signal: AbortSignal;
  git: GitRepo;
  /** The sandbox with the tree read-only, when there is one. */
  wrapper: readonly string[] | undefined;
  /** A folder outside the tree for prompts and answer files. */
  scratch: string;
  record: PlanRecord;
  prdPath: string;
  /** prd.json as it was before the command, put back after every session. */
  prdBefore: Buffer | undefined;
}

export interface SessionAsk {
  agent: AgentAdapter;
  role: AgentRole;
  tier: string;
  /** `plan-1`, `critic`, `reply`: names the prompt and answer in the plan's record. */
  name: string;
  attempt: number;
  prompt: string;
  outputFile: string;
}

export type SessionOutcome =
  | { kind: "aborted" }
  | { kind: "failed"; reason: string }
  | { kind: "answered"; answer: unknown; marker: MarkerOrNone }
  /** The session wrote no readable JSON: the reason says what was wrong. */
  | { kind: "unreadable"; reason: string; marker: MarkerOrNone };

/**
 * One read-only session of `gantry plan` (planner or critic): the prompt kept in the plan's record, the
 * answer read from the file gantry named, prd.json put back byte for byte, and a session that changed the
 * tree (possible only without the sandbox) a failure.
 */
export async function planSession(ctx: PlanSessions, ask: SessionAsk): Promise<SessionOutcome> {
  const promptFile = join(ctx.scratch, `${ask.name}.md`);
  writeFileSync(promptFile, ask.prompt);
  ctx.record.write(`${ask.name}-prompt.md`, ask.prompt);
  rmSync(ask.outputFile, { force: true });
  const dirtyBefore = (await ctx.git.dirtyFiles()).join("\n");
  const sessionId = `${ctx.runId}-${ask.name}-${randomUUID()}`;
  const result = await ask.agent.run({
    role: ask.role,
    storyId: "plan",
    attempt: ask.attempt,
    tier: ask.tier,
    model: ask.agent.modelFor(ask.tier),
    prompt: ask.prompt,
    promptFile,
    cwd: ctx.root,
    timeoutMs: ctx.timeoutMs,
    signal: ctx.signal,
    feature: ctx.feature,
    runId: ctx.runId,
    sessionId,
    outputFile: ask.outputFile,
    ...(ctx.wrapper ? { sandbox: ctx.wrapper } : {}),
  });
  killMarkedProcesses(SESSION_ID_VARIABLE, sessionId);
  restorePrd(ctx.prdPath, ctx.prdBefore);
  if (result.aborted) return { kind: "aborted" };
  if (result.error) return { kind: "failed", reason: `the ${ask.role} session failed: ${result.error}` };
  if ((await ctx.git.dirtyFiles()).join("\n") !== dirtyBefore) {
    return {
      kind: "failed",
      reason: `the ${ask.role} session changed files in the tree; planning is read-only, nothing was written`,
    };
  }
  const { marker } = readMarker(ask.role, result.finalMessage ?? result.output);
  const read = readAnswer(ask.outputFile);
  if (read.text !== undefined) ctx.record.write(`${ask.name}-answer.json`, read.text);
  if ("reason" in read) return { kind: "unreadable", reason: read.reason, marker };
  return { kind: "answered", answer: read.answer, marker };
}

function readAnswer(file: string): { text?: string; answer: unknown } | { text?: string; reason: string } {
  let text: string;
  try {
    if (statSync(file).size > MAX_ANSWER_BYTES)
      return { reason: `${file}: larger than ${MAX_ANSWER_BYTES} bytes` };
    text = readFileSync(file, "utf8");
  } catch {
    return { reason: `no answer was written to ${file}` };
  }
  try {
    return { text, answer: JSON.parse(text) };
  } catch (error) {
    return {
      text,
      reason: `${file}: not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    };
  }
}

/** Whatever a session did to prd.json (possible only without the sandbox), the file is put back byte for byte. */
function restorePrd(path: string, before: Buffer | undefined): void {
  const now = existsSync(path) ? readFileSync(path) : undefined;
  if (before === undefined) {
    if (now !== undefined) rmSync(path, { force: true });
    return;
  }
  if (now === undefined || !now.equals(before)) writeFileAtomic(path, before.toString("utf8"));
}
