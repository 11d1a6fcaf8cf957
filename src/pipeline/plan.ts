import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { AgentAdapter } from "../agents/adapter.js";
import { readMarker } from "../agents/completion-marker.js";
import { buildPlanPrompt } from "../agents/plan-prompt.js";
import { AgentRegistry } from "../agents/registry.js";
import { InputError } from "../config/input-error.js";
import type { Config } from "../config/schema.js";
import { openRepo } from "../git/repo.js";
import { repoDigest } from "../git/repo-digest.js";
import { EXIT } from "../model/exit-codes.js";
import { loadPlugins } from "../plugins/loader.js";
import { registerPluginAgents } from "../plugins/registry.js";
import { parsePrd, readPrdRaw } from "../prd/load.js";
import { describeChanges, mergePlan, type PlanMerge } from "../prd/plan-merge.js";
import { killMarkedProcesses, SESSION_ID_VARIABLE } from "../process/leftovers.js";
import { readOnlyTree } from "../process/read-only-tree.js";
import { decideSandbox } from "../process/sandbox.js";
import { writeFileAtomic, writeJsonAtomic } from "../util/atomic-write.js";
import { newRunId } from "./run-setup.js";

export interface PlanOptions {
  root: string;
  feature: string;
  config: Config;
  spec: string;
  prdPath: string;
  display: string;
  dryRun: boolean;
  signal: AbortSignal;
  out: (line: string) => void;
  warn: (line: string) => void;
}

/** Tries an agent gets: its first answer, and one more given the exact errors of the first. */
const ANSWERS = 2;
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

/**
 * `gantry plan`: one session in role `plan` (the tree read-only) writes the feature's stories as JSON to a
 * file gantry names; gantry merges them into prd.json (passed stories untouched), checks the result as
 * `validate` does, and writes it atomically. An invalid answer is given back once with its errors; a second
 * one ends the command with exit 1 and prd.json exactly as it was.
 */
export async function planFeature(options: PlanOptions): Promise<number> {
  const { root, config } = options;
  const before = existsSync(options.prdPath) ? readFileSync(options.prdPath) : undefined;
  const existing = before ? parsedDocument(options.prdPath, options.display) : undefined;
  const agent = await createAgent(config, root);
  const sandbox = await decideSandbox(config.agent.sandbox, root);
  if (sandbox.kind === "unavailable") {
    throw new InputError(
      ".gantry/config.json",
      "agent.sandbox",
      `"bwrap" is required, but ${sandbox.reason}`,
      "GANTRY_E_PLAN",
    );
  }
  if (sandbox.kind === "unsandboxed" && sandbox.warning) options.warn(sandbox.warning);
  const wrapper = sandbox.kind === "sandboxed" ? readOnlyTree(sandbox.wrapper, resolve(root)) : undefined;
  const git = await openRepo(root);
  const digest = await repoDigest(root);
  const dir = mkdtempSync(join(tmpdir(), "gantry-plan-"));
  const outputFile = join(dir, "stories.json");
  const tier = config.routing.tiers.at(-1) ?? "powerful";
  const runId = `plan-${newRunId()}`;
  let errors: string[] = [];
  try {
    for (let attempt = 1; attempt <= ANSWERS; attempt++) {
      const prompt = buildPlanPrompt({
        feature: options.feature,
        spec: options.spec,
        digest,
        existing: (existing?.userStories ?? []).map((s) => ({
          id: String(s.id),
          title: String(s.title),
          status: String(s.status ?? (s.passes ? "passed" : "pending")),
        })),
        outputFile,
        ...(errors.length > 0 ? { errors } : {}),
      });
      const promptFile = join(dir, `prompt-${attempt}.md`);
      writeFileSync(promptFile, prompt);
      rmSync(outputFile, { force: true });
      const dirtyBefore = (await git.dirtyFiles()).join("\n");
      const sessionId = `${runId}-plan-${attempt}-${randomUUID()}`;
      const result = await agent.run({
        role: "plan",
        storyId: "plan",
        attempt,
        tier,
        model: agent.modelFor(tier),
        prompt,
        promptFile,
        cwd: root,
        timeoutMs: config.agent.timeoutSeconds * 1000,
        signal: options.signal,
        feature: options.feature,
        runId,
        sessionId,
        outputFile,
        ...(wrapper ? { sandbox: wrapper } : {}),
      });
      killMarkedProcesses(SESSION_ID_VARIABLE, sessionId);
      restorePrd(options.prdPath, before);
      if (result.aborted) return EXIT.interrupted;
      if (result.error) {
        options.warn(`gantry: the plan session failed: ${result.error}`);
        return EXIT.failed;
      }
      if ((await git.dirtyFiles()).join("\n") !== dirtyBefore) {
        options.warn(
          "gantry: the plan session changed files in the tree; planning is read-only, nothing was written",
        );
        return EXIT.failed;
      }
      const { marker } = readMarker("plan", result.finalMessage ?? result.output);
      const merge = readAnswer(outputFile, existing, options);
      if (merge.ok) {
        if (marker === "none") options.warn("gantry: the plan session ended without ## PLANNING COMPLETE");
        return finish(merge, options);
      }
      errors = merge.errors;
      options.warn(`gantry: plan answer ${attempt} of ${ANSWERS} is not valid:`);
      for (const line of errors) options.warn(`  ${line}`);
    }
    options.warn(`gantry: no valid plan after ${ANSWERS} answers; ${options.display} is unchanged`);
    return EXIT.failed;
  } finally {
    git.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function finish(merge: Extract<PlanMerge, { ok: true }>, options: PlanOptions): number {
  const lines = describeChanges(merge.changes);
  if (options.dryRun) {
    for (const story of merge.prd.userStories) {
      options.out(`${story.id}  ${story.title}`);
      for (const criterion of story.acceptanceCriteria) options.out(`    - ${criterion}`);
    }
    options.out(`would write ${options.display}: ${lines.join("; ")}`);
    return EXIT.ok;
  }
  mkdirSync(dirname(options.prdPath), { recursive: true });
  writeJsonAtomic(options.prdPath, merge.doc);
  for (const line of lines) options.out(line);
  options.out(
    `wrote ${options.display} (${merge.prd.userStories.length} stories); next: gantry run --feature ${options.feature}`,
  );
  return EXIT.ok;
}

function readAnswer(
  file: string,
  existing: (Record<string, unknown> & { userStories?: Record<string, unknown>[] }) | undefined,
  options: PlanOptions,
): PlanMerge {
  let text: string;
  try {
    if (statSync(file).size > MAX_ANSWER_BYTES)
      return { ok: false, errors: [`${file}: larger than ${MAX_ANSWER_BYTES} bytes`] };
    text = readFileSync(file, "utf8");
  } catch {
    return { ok: false, errors: [`no answer was written to ${file}`] };
  }
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      errors: [`${file}: not valid JSON (${error instanceof Error ? error.message : String(error)})`],
    };
  }
  return mergePlan(existing, answer, options.feature, options.display);
}

function parsedDocument(
  path: string,
  display: string,
): Record<string, unknown> & { userStories?: Record<string, unknown>[] } {
  const raw = readPrdRaw(path, display);
  parsePrd(display, raw);
  return raw as Record<string, unknown> & { userStories?: Record<string, unknown>[] };
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

async function createAgent(config: Config, root: string): Promise<AgentAdapter> {
  const registry = new AgentRegistry();
  registerPluginAgents(registry, await loadPlugins(config, root));
  if (!registry.names().includes(config.agent.default)) {
    throw new InputError(
      ".gantry/config.json",
      "agent.default",
      `unknown agent "${config.agent.default}"; expected one of ${registry.names().join(", ")}`,
      "GANTRY_E_PLAN",
    );
  }
  return registry.create(config.agent.default, config);
}
