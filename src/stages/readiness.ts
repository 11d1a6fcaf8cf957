import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { filesNamed } from "../agents/prompt.js";
import { recordVerdict } from "../ledger/record.js";
import type { ReadinessAnswer, ReadinessGapCode, ReadinessRecord } from "../model/readiness.js";
import { gapSet, openBlockers, scoreReadiness } from "../prd/readiness.js";
import type { StoryContext } from "./context.js";
import { researchGaps } from "./research.js";

/** Why the story does not go on to its first session: parked (blocked), skipped, or the run pauses. */
export interface NotReady {
  status: "blocked" | "skipped" | "paused";
  reason: string;
}

/**
 * The readiness gate, once before a story's sessions (docs/planning.md): scores the story; with blockers
 * left, one research session may settle them (`readiness.maxResearchRounds`, counted across runs); what is
 * still open is asked once per gap set (trigger `story-readiness`) and the answer is kept in prd.json.
 * Undefined when the story may go on.
 */
export async function readinessGate(
  ctx: StoryContext,
  options: { accepted?: ReadinessGapCode[]; askedAnswer: (trigger: string) => Promise<string | undefined> },
): Promise<NotReady | undefined> {
  const { run, story } = ctx;
  const settings = run.config.readiness;
  if (!settings.enabled) return undefined;
  const record: ReadinessRecord = structuredClone((story as { readiness?: ReadinessRecord }).readiness ?? {});
  const save = () => run.stories.update(story.id, { readiness: record });
  const accepted = [...new Set([...(record.accepted ?? []), ...(options.accepted ?? [])])];
  let tracked: ReadonlySet<string> | undefined;
  const tree = async () => {
    tracked ??= await run.git.trackedFiles();
    return tracked;
  };
  const named = filesNamed(story);
  const files = named.length > 0 ? await tree() : new Set<string>();
  const score = () =>
    scoreReadiness({
      story,
      knownIds: new Set(run.stories.prd.userStories.map((s) => s.id)),
      filesNamed: named,
      exists: (path) => existsIn(files, run.root, path),
      limits: settings,
      findings: record.findings ?? [],
    });
  let gaps = score();
  let open = openBlockers(gaps, accepted);
  let rejected: string[] = [];
  const research = settings.research ?? run.config.interaction.channel === "auto";
  if (open.length > 0 && research && (record.researchRounds ?? 0) < settings.maxResearchRounds) {
    record.researchRounds = (record.researchRounds ?? 0) + 1;
    save();
    const found = await researchGaps(ctx, open, await tree());
    rejected = found.rejected;
    for (const line of rejected) ctx.logger.warn({}, `research finding rejected: ${line}`);
    if (found.verified.length > 0) {
      record.findings = [...(record.findings ?? []), ...found.verified];
      save();
      gaps = score();
      open = openBlockers(gaps, accepted);
    }
    if (found.stop?.action === "pause") return { status: "paused", reason: found.stop.reason };
    if (found.stop && "reason" in found.stop) return { status: "blocked", reason: found.stop.reason };
  }
  const judged = await run.git.headAndTree();
  const announce = (verdict: "pass" | "fail", set: string[], ask: boolean, accepting = accepted) =>
    recordVerdict(run, "readiness:result", {
      storyId: story.id,
      verdict,
      gaps,
      accepted: accepting,
      gapSet: set,
      ...(ask ? { ask } : {}),
      ...(record.findings?.length ? { findings: record.findings.length } : {}),
      judged,
      attempt: ctx.pass,
    });
  if (open.length === 0) {
    announce("pass", [], false);
    return undefined;
  }
  const set = gapSet(open);
  const same = sameSet(record.gapSet, set) && record.answer !== undefined;
  let answer: ReadinessAnswer | undefined = same ? record.answer : undefined;
  if (!same) {
    record.gapSet = set;
    delete record.answer;
    delete record.respondedBy;
    const ask = run.config.interaction.triggers["story-readiness"]?.enabled === true;
    announce("fail", set, ask);
    save();
    if (ask) {
      answer = (await options.askedAnswer("story-readiness")) as ReadinessAnswer | undefined;
      if (answer !== undefined) {
        record.answer = answer;
        save();
      }
    }
  } else announce("fail", set, false);
  const said = open.map((g) => `${g.code} (${g.detail})`).join("; ");
  switch (answer) {
    case "continue": {
      record.accepted = [...new Set([...accepted, ...open.map((g) => g.code)])];
      save();
      announce("pass", [], false, record.accepted);
      return undefined;
    }
    case "skip":
      return { status: "skipped", reason: `not ready: ${said}; interaction story-readiness: skip` };
    case "abort":
      if (!same)
        return { status: "paused", reason: `not ready: ${said}; interaction story-readiness: abort` };
      return { status: "blocked", reason: parked(said, rejected) };
    default:
      return { status: "blocked", reason: parked(said, rejected) };
  }
}

function parked(said: string, rejected: string[]): string {
  const research = rejected.length > 0 ? `; research: ${rejected.join("; ")}` : "";
  return `parked for readiness: ${said}${research}`;
}

function sameSet(a: readonly string[] | undefined, b: readonly string[]): boolean {
  return a !== undefined && a.length === b.length && a.every((key, i) => key === b[i]);
}

/** A named path is in the tree when git tracks it, a bare file name is tracked anywhere, or it is on disk. */
export function existsIn(tracked: ReadonlySet<string>, root: string, path: string): boolean {
  const clean = path.replace(/^\.\//, "");
  return namedInTree(tracked, clean) || (!clean.startsWith("../") && existsSync(join(root, clean)));
}

/** A named path is among `files` (a tree's paths), or a bare file name is anywhere in them. */
export function namedInTree(files: ReadonlySet<string>, path: string): boolean {
  const clean = path.replace(/^\.\//, "");
  if (files.has(clean)) return true;
  return !clean.includes("/") && [...files].some((file) => basename(file) === clean);
}
