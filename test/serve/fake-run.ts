import { randomUUID } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import type { PanelFinding } from "../../src/model/review.js";
import { decidePanel } from "../../src/review/panel/decision.js";

export const RUN_ID = "20260101-120000-abcd";

/** A project with one live run (state.json names this process) half way through US-1, asking a question. */
export function fakeRun(): { root: string; runDir: string; requestId: string; append(event: object): void } {
  const root = mkdtempSync(join(tmpdir(), "gantry-serve-"));
  const runDir = join(root, ".gantry", "runs", RUN_ID);
  mkdirSync(join(runDir, "interaction"), { recursive: true });
  mkdirSync(join(root, ".gantry", "features", "f"), { recursive: true });
  writeFileSync(
    join(root, ".gantry", "features", "f", "prd.json"),
    JSON.stringify({
      feature: "f",
      userStories: [
        { id: "US-1", title: "First", status: "in-progress" },
        { id: "US-2", title: "Second <b>bold</b>", status: "pending" },
      ],
    }),
  );
  const now = new Date().toISOString();
  writeFileSync(
    join(runDir, "state.json"),
    JSON.stringify({
      v: 1,
      runId: RUN_ID,
      feature: "f",
      pid: process.pid,
      startedAt: now,
      updatedAt: now,
      iterations: 1,
      status: "running",
    }),
  );
  const append = (event: object) =>
    appendFileSync(
      join(runDir, "events.jsonl"),
      `${JSON.stringify({ runId: RUN_ID, at: new Date().toISOString(), ...event })}\n`,
    );
  const requestId = randomUUID();
  append({ type: "run:start", feature: "f", totalStories: 2 });
  append({
    type: "story:start",
    story: { id: "US-1", title: "First", status: "in-progress", attempts: 0 },
    tier: "fast",
  });
  append({ type: "stage:enter", storyId: "US-1", stage: "verify" });
  append({
    type: "agent:end",
    storyId: "US-1",
    role: "implementer",
    agent: "command",
    model: "m",
    tier: "fast",
    exitCode: 0,
    durationMs: 5,
    costUsd: 0.25,
    costBasis: "estimated",
  });
  append({
    type: "gate:verdict",
    v: 1,
    runId: RUN_ID,
    feature: "f",
    storyId: "US-1",
    gate: "verify",
    verdict: "pass",
    sha: "a".repeat(40),
    tree: "b".repeat(40),
    attempt: 1,
    detail: {},
  });
  const request = {
    id: requestId,
    trigger: "review-gate",
    storyId: "US-1",
    summary: "review failed",
    options: ["approve", "skip", "abort"],
    timeoutMs: 60_000,
    fallback: "approve",
  };
  append({ type: "interaction:request", ...request });
  writeFileSync(join(runDir, "interaction", `${requestId}.request.json`), JSON.stringify(request));
  return { root, runDir, requestId, append };
}

/** Markup in a finding's text: the page must show it as text. */
export const INJECTED = `<script>window.injected = 1</script><img src=x onerror="window.injected = 2"> never escaped`;

/** A review-decision event as the run writes it: one corroborated blocker, one lowered, one suggestion. */
export function panelDecision(storyId = "US-1") {
  const record = (reviewer: string, findings: PanelFinding[]) => ({
    reviewer,
    ok: true,
    findings,
    durationMs: 1,
    startedAt: "2026-01-01T00:00:00.000Z",
    endedAt: "2026-01-01T00:00:01.000Z",
  });
  const finding = (reviewer: string, extra: Partial<PanelFinding>): PanelFinding => ({
    reviewer,
    file: "src/cart.ts",
    line: 10,
    severity: "blocking",
    text: "total ignores the discount",
    ...extra,
  });
  const records = [
    record("a", [finding("a", {}), finding("a", { file: "src/ui.ts", line: 4, text: INJECTED })]),
    record("b", [
      finding("b", { line: 11 }),
      finding("b", { file: "src/ui.ts", line: 9, severity: "suggestion", text: "rename it" }),
    ]),
  ];
  const decision = decidePanel({ records });
  return {
    type: "review-decision:result",
    storyId,
    verdict: decision.verdict,
    reason: decision.reason,
    blockers: decision.blockers,
    lowered: decision.lowered,
    others: decision.others,
    reviewers: records.map(({ findings: _f, ...rest }) => rest),
    judged: { sha: "d".repeat(40), tree: "c".repeat(40) },
    attempt: 1,
  };
}
