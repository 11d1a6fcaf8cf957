import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildResearchPrompt } from "../agents/research-prompt.js";
import type { ReadinessFinding, ReadinessGap } from "../model/readiness.js";
import type { StageResult } from "../model/stage.js";
import { checkFindings } from "../prd/research-findings.js";
import { runAgentSession } from "./agent-session.js";
import type { StoryContext } from "./context.js";
import { guardSession } from "./session-guard.js";

export interface ResearchOutcome {
  verified: ReadinessFinding[];
  rejected: string[];
  /** The session ended the story's turn: interrupted, the cost cap, or it tampered. */
  stop?: StageResult;
}

/** A findings file bigger than this is not read. */
const MAX_ANSWER_BYTES = 512 * 1024;

/**
 * One research session (role `research`, the tree read-only) on a story's blockers: the agent writes its
 * findings to a file outside the tree; gantry keeps those whose citations it finds verbatim in tracked files.
 */
export async function researchGaps(
  ctx: StoryContext,
  gaps: readonly ReadinessGap[],
  tracked: ReadonlySet<string>,
): Promise<ResearchOutcome> {
  const { run, story } = ctx;
  const dir = mkdtempSync(join(tmpdir(), "gantry-research-"));
  const outputFile = join(dir, "findings.json");
  try {
    const prompt = buildResearchPrompt({ story, feature: run.feature, gaps, outputFile });
    const dirtyBefore = (await run.git.dirtyFiles()).join("\n");
    const guard = await guardSession(ctx, "research");
    const outcome = await runAgentSession(ctx, "research", prompt, { outputFile });
    const tampered = await guard.finish();
    if (tampered) return { verified: [], rejected: ["the research session tampered"], stop: tampered };
    if (outcome.kind === "paused")
      return { verified: [], rejected: [], stop: { action: "pause", reason: outcome.reason } };
    if (outcome.kind === "error")
      return { verified: [], rejected: [`the research session failed: ${outcome.reason}`] };
    if ((await run.git.dirtyFiles()).join("\n") !== dirtyBefore) {
      // Only possible without the sandbox: research is read-only, and a finding from a changed tree proves nothing.
      await run.git.setAside(`gantry(${story.id}) changes of a read-only research session, run ${run.runId}`);
      return { verified: [], rejected: ["the research session changed the tree; its findings are not used"] };
    }
    const said =
      outcome.marker.marker === "RESEARCH BLOCKED" ? [`RESEARCH BLOCKED: ${outcome.marker.reason}`] : [];
    const raw = readAnswer(outputFile);
    if (raw === undefined) return { verified: [], rejected: [...said, "no findings were written"] };
    const checked = checkFindings(raw, {
      tracked,
      read: (path) => {
        try {
          return readFileSync(join(run.root, path), "utf8");
        } catch {
          return undefined;
        }
      },
    });
    return { ...checked, rejected: [...said, ...checked.rejected] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function readAnswer(file: string): unknown {
  try {
    if (statSync(file).size > MAX_ANSWER_BYTES) return { findings: "too large" };
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}
