import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadPrd } from "../../src/prd/load.js";
import { git } from "../e2e/harness.js";
import { prdFile, readJsonlStrict, runDirsOf } from "./harness.js";

/**
 * What must hold after a crash trial: every file parses, every passed story has its one commit and its
 * verify and review passes, the committed work is the story's good version, nothing is left over.
 */

/**
 * Right after a kill: files parse; a story prd.json calls passed has its commit, or is the one being
 * committed, or (`parallel`) still has its story branch, which the next run merges.
 */
export function checkAfterKill(
  root: string,
  ids: string[],
  violation: (what: string) => void,
  parallel = false,
): void {
  const prd = parsePrdOrReport(root, violation);
  const states = readStates(root, violation);
  const committing = states.at(-1)?.committing as { storyId?: string } | undefined;
  const subjects = commitSubjects(root);
  for (const s of prd?.userStories ?? []) {
    if (s.status !== "passed" || !ids.includes(s.id)) continue;
    const commits = subjects.filter((line) => line.startsWith(`gantry(${s.id}):`)).length;
    const branch = parallel && storyBranchExists(root, s.id);
    if (commits === 0 && committing?.storyId !== s.id && !branch)
      violation(`after a kill, ${s.id} is passed in prd.json with no commit and no committing marker`);
  }
}

/**
 * After the last run: every story passed with its one commit and verdicts, its good work in HEAD, the tree
 * clean, nothing stashed; with `parallel`, no story worktree or branch left and no story's work set aside.
 */
export function checkFinal(
  root: string,
  ids: string[],
  violation: (what: string) => void,
  parallel = false,
): void {
  const prd = parsePrdOrReport(root, violation);
  readStates(root, violation);
  const subjects = commitSubjects(root);
  const ledgers = runDirsOf(root).map((dir) => {
    try {
      return readJsonlStrict(join(dir, "ledger.jsonl")).rows;
    } catch (error) {
      violation((error as Error).message);
      return [];
    }
  });
  for (const dir of runDirsOf(root)) {
    try {
      readJsonlStrict(join(dir, "events.jsonl"));
    } catch (error) {
      violation((error as Error).message);
    }
  }
  const entries = ledgers.flat();
  for (const id of ids) {
    const s = prd?.userStories.find((x) => x.id === id);
    if (s?.status !== "passed" || s.passes !== true)
      violation(`${id} ended ${s?.status}/${s?.passes}, not passed`);
    const commits = subjects.filter((line) => line.startsWith(`gantry(${id}):`)).length;
    if (commits !== 1) violation(`${id} has ${commits} gantry(${id}) commits, expected 1`);
    for (const gate of ["verify", "review"]) {
      if (!entries.some((e) => e.storyId === id && e.gate === gate && e.verdict === "pass"))
        violation(`${id} is passed but no ledger holds a ${gate} pass for it`);
    }
    const name = `m${id.toLowerCase()}`;
    const committed = gitShow(root, `HEAD:src/${name}.js`);
    if (!committed?.includes("return 2;") || committed.includes("LINT_ERROR"))
      violation(`${id}: src/${name}.js in HEAD is not the story's good work: ${JSON.stringify(committed)}`);
    if (gitShow(root, `HEAD:test/${name}.test.js`) === undefined)
      violation(`${id}: test/${name}.test.js is not committed`);
  }
  const dirty = git(root, "status", "--porcelain").trim();
  if (dirty)
    violation(`the working tree is not clean at the end: ${dirty.split("\n").slice(0, 5).join("; ")}`);
  const stashes = git(root, "stash", "list").trim();
  if (stashes) violation(`work was set aside: ${stashes}`);
  if (parallel) {
    const worktrees = git(root, "worktree", "list", "--porcelain")
      .split("\n")
      .filter((l) => l.startsWith("worktree "));
    if (worktrees.length !== 1)
      violation(`story worktrees left at the end: ${worktrees.slice(1).join("; ")}`);
    const refs = git(root, "for-each-ref", "--format=%(refname)", "refs/heads/gantry", "refs/gantry").trim();
    if (refs) violation(`story branches or set-aside work left at the end: ${refs.split("\n").join(", ")}`);
  }
}

function storyBranchExists(root: string, id: string): boolean {
  return git(root, "for-each-ref", "--format=%(refname)", `refs/heads/gantry/f/story-${id}`).trim() !== "";
}

function parsePrdOrReport(root: string, violation: (what: string) => void) {
  try {
    return loadPrd(prdFile(root));
  } catch (error) {
    violation(`prd.json does not load: ${(error as Error).message}`);
    return undefined;
  }
}

function readStates(root: string, violation: (what: string) => void): Record<string, unknown>[] {
  const states: Record<string, unknown>[] = [];
  for (const dir of runDirsOf(root)) {
    const path = join(dir, "state.json");
    if (!existsSync(path)) {
      violation(`${path} is missing`);
      continue;
    }
    try {
      states.push(JSON.parse(readFileSync(path, "utf8")));
    } catch (error) {
      violation(`${path} does not parse: ${(error as Error).message}`);
    }
  }
  return states;
}

function commitSubjects(root: string): string[] {
  return git(root, "log", "--format=%s").trim().split("\n");
}

function gitShow(root: string, spec: string): string | undefined {
  try {
    return execFileSync("git", ["show", spec], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch {
    return undefined;
  }
}
