import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import PQueue from "p-queue";
import type { AgentAdapter, AgentResult } from "../../agents/adapter.js";
import { createCommandAdapter } from "../../agents/command.js";
import type { EventBus } from "../../bus/event-bus.js";
import type { ReviewerConfig } from "../../config/review-schema.js";
import type { Config } from "../../config/schema.js";
import type { PanelFinding, ReviewerRecord } from "../../model/review.js";
import { killMarkedProcesses, SESSION_ID_VARIABLE } from "../../process/leftovers.js";
import { parseAnswer } from "./answer.js";

/** At most this many reviewers run at once (the panel's own size, up to this). */
export const MAX_CONCURRENT_REVIEWERS = 4;

/** A configured reviewer, ready to run: its name, what it is (one source), its adapter and model. */
export interface PanelReviewer {
  name: string;
  /** Reviewers with the same source are one opinion, however many entries name them. */
  source: string;
  adapter: AgentAdapter;
  model: string;
}

/**
 * The panel's reviewers from `review.panel`: a command reviewer is the command adapter running its
 * command; an agent reviewer is its adapter (built in or a plugin's) with the model given, else the
 * adapter's model for the tier. Names are made unique.
 */
export function panelReviewers(
  panel: readonly ReviewerConfig[],
  config: Config,
  createAgent: (name: string, config: Config) => AgentAdapter,
  tier: string,
): PanelReviewer[] {
  const taken = new Set<string>();
  return panel.map((entry, index) => {
    let adapter: AgentAdapter;
    let model: string;
    let source: string;
    let base: string;
    if ("command" in entry) {
      adapter = createCommandAdapter({
        ...config,
        agent: { ...config.agent, command: { run: entry.command } },
      });
      model = "review";
      source = `command:${entry.command}`;
      base = entry.name ?? `reviewer-${index + 1}`;
    } else {
      adapter = createAgent(entry.agent, config);
      model = entry.model ?? adapter.modelFor(tier);
      source = `agent:${entry.agent}:${model}`;
      base = entry.name ?? `${entry.agent}-${model}`.replace(/[^\w.-]+/g, "-");
    }
    let name = base;
    for (let n = 2; taken.has(name); n += 1) name = `${base}-${n}`;
    taken.add(name);
    return { name, source, adapter, model };
  });
}

export interface DispatchInput {
  reviewers: readonly PanelReviewer[];
  /** The one prompt every reviewer gets: none sees another's answer. */
  prompt: string;
  promptDir: string;
  storyId: string;
  pass: number;
  tier: string;
  feature: string;
  runId: string;
  root: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** The read-only-tree sandbox, when the run has a sandbox. */
  sandbox?: readonly string[];
  bus: EventBus;
}

export interface DispatchResult {
  records: ReviewerRecord[];
  costUsd: number;
  sessions: AgentResult[];
}

/**
 * Runs every reviewer at once (p-queue), each a session in role `review` with the same prompt, and reads
 * each answer. A session that fails, or whose answer is not valid JSON of the schema, is a record with
 * `ok: false` and the reason: a missing record, never an empty one.
 */
export async function dispatchPanel(input: DispatchInput): Promise<DispatchResult> {
  mkdirSync(input.promptDir, { recursive: true });
  const queue = new PQueue({ concurrency: Math.min(input.reviewers.length, MAX_CONCURRENT_REVIEWERS) });
  const sessions: AgentResult[] = [];
  const records = await Promise.all(
    input.reviewers.map((reviewer) =>
      queue.add(async (): Promise<ReviewerRecord> => {
        const startedAt = new Date().toISOString();
        const first = await session(input, reviewer, input.prompt, "");
        sessions.push(first);
        const base = { reviewer: reviewer.name, startedAt };
        if (first.error) return { ...base, ...ended(first), ok: false, findings: [], problem: first.error };
        let parsed = parseAnswer(first.finalMessage ?? first.output);
        let durationMs = first.durationMs;
        // An answer that is prose or malformed JSON is asked for once more, with what was wrong with it:
        // a finished story is not failed for one slip of the reviewer's format.
        if (!parsed.ok && !input.signal.aborted) {
          const again = await session(input, reviewer, retryPrompt(input.prompt, parsed.problem), "-again");
          sessions.push(again);
          durationMs += again.durationMs;
          if (again.error)
            return { ...base, ...ended(again, durationMs), ok: false, findings: [], problem: again.error };
          const second = parseAnswer(again.finalMessage ?? again.output);
          const twice =
            second.ok || second.problem === parsed.problem
              ? "asked twice"
              : `asked twice; first: ${parsed.problem}`;
          parsed = second.ok ? second : { ok: false, problem: `${second.problem} (${twice})` };
        }
        if (!parsed.ok)
          return { ...base, ...ended(first, durationMs), ok: false, findings: [], problem: parsed.problem };
        const findings: PanelFinding[] = parsed.answer.findings.map((f) => ({
          ...f,
          reviewer: reviewer.name,
        }));
        return { ...base, ...ended(first, durationMs), ok: true, findings };
      }),
    ),
  );
  return { records, costUsd: sessions.reduce((sum, s) => sum + s.costUsd, 0), sessions };
}

const ended = (result: AgentResult, durationMs = result.durationMs) => ({
  durationMs,
  endedAt: new Date().toISOString(),
});

/** The reviewer's prompt again, led by what was wrong with its last answer. */
export function retryPrompt(prompt: string, problem: string): string {
  return [
    `Your last answer could not be read: ${problem}.`,
    "Answer again with exactly one JSON object as described below (no prose around it), as the last thing you print.",
    "",
    prompt,
  ].join("\n");
}

/** One reviewer session, announced as `agent:start` / `agent:end`; its prompt file named by `suffix`. */
async function session(
  input: DispatchInput,
  reviewer: PanelReviewer,
  prompt: string,
  suffix: string,
): Promise<AgentResult> {
  const promptFile = join(
    input.promptDir,
    `${input.storyId}-${input.pass}-review-${reviewer.name}${suffix}.md`,
  );
  writeFileSync(promptFile, prompt);
  const call = {
    storyId: input.storyId,
    role: "review" as const,
    agent: `${reviewer.adapter.name}:${reviewer.name}`,
    model: reviewer.model,
    tier: input.tier,
  };
  input.bus.emit("agent:start", call);
  const sessionId = `${input.runId}-${input.storyId}-${input.pass}-review-${reviewer.name}-${randomUUID()}`;
  const result = await reviewer.adapter.run({
    role: "review",
    storyId: input.storyId,
    attempt: input.pass,
    tier: input.tier,
    model: reviewer.model,
    prompt,
    promptFile,
    cwd: input.root,
    timeoutMs: input.timeoutMs,
    signal: input.signal,
    feature: input.feature,
    runId: input.runId,
    sessionId,
    ...(input.sandbox ? { sandbox: input.sandbox } : {}),
  });
  killMarkedProcesses(SESSION_ID_VARIABLE, sessionId);
  input.bus.emit("agent:end", {
    ...call,
    exitCode: result.exitCode,
    durationMs: result.durationMs,
    costUsd: result.costUsd,
    costBasis: result.costBasis,
    ...(result.tokens ? { tokens: result.tokens } : {}),
  });
  return result;
}
