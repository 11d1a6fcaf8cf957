/**
 * A generated feature of N stories in a temporary git repository, with the agent and every quality
 * command replaced by trivial ones, and the plain shell script that does the same work without gantry:
 * the same commands, spawned in the same order through /bin/sh -c, and the same commits (each story's
 * file and its status in prd.json). What gantry adds on top of that script is its own overhead.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { benchEnvironment, CLI, expectOk, type Timed, timeCommand } from "./harness.js";

/** The agent writes one file. */
export const AGENT = 'echo "$GANTRY_STORY_ID" > "src/$GANTRY_STORY_ID.txt"';
/** node's test runner summary for one passing test (parses to PASS, runner node-test). */
export const TEST = "printf 'TAP version 13\\nok 1 - story\\n1..1\\n# tests 1\\n# pass 1\\n# fail 0\\n'";
export const LINT = "true";
export const TYPECHECK = "true";

const FEATURE = "f";

export interface FeatureProject {
  stories: number;
  /** The committed template; each run works on a fresh copy. */
  template: string;
  /** The baseline shell script and the story list it reads, outside the repository. */
  script: string;
  remove(): void;
}

const id = (i: number) => `US-${String(i).padStart(3, "0")}`;

/**
 * `fillerFiles`: that many committed files of about 1 KB besides the project's own, each 10 folders deep
 * (about 50 to a folder), so the repository has the size of a real one. `agent`: the agent's command
 * (default AGENT; the parallel bench's sleeps first).
 */
export function makeFeatureProject(
  stories: number,
  fillerFiles = 0,
  commands: { typecheck?: string; lint?: string } = {},
  agent = AGENT,
): FeatureProject {
  const typecheck = commands.typecheck ?? TYPECHECK;
  const lint = commands.lint ?? LINT;
  const dir = mkdtempSync(join(tmpdir(), `gantry-bench-${stories}-`));
  const template = join(dir, "template");
  writeFiller(template, fillerFiles);
  const userStories = Array.from({ length: stories }, (_, k) => ({
    id: id(k + 1),
    title: `Story ${k + 1}`,
    description: `Write src/${id(k + 1)}.txt.`,
    acceptanceCriteria: [`src/${id(k + 1)}.txt holds the story id`],
    priority: k + 1,
    status: "pending",
    passes: false,
  }));
  const config = {
    // BENCH_SANDBOX=off|bwrap|auto sets agent.sandbox (unset: the build's default; older builds lack the key).
    agent: {
      default: "command",
      command: { run: agent },
      ...(process.env.BENCH_SANDBOX ? { sandbox: process.env.BENCH_SANDBOX } : {}),
    },
    quality: { commands: { test: TEST, lint, typecheck } },
    execution: { maxIterations: 10_000, regression: { mode: "deferred" } },
    reporters: ["default"],
  };
  const files: Record<string, string> = {
    "package.json": '{ "name": "bench-project", "private": true }\n',
    ".gitignore": ".gantry/runs/\n.gantry/lock\n",
    "src/.keep": "",
    ".gantry/config.json": `${JSON.stringify(config, null, 2)}\n`,
    [`.gantry/features/${FEATURE}/prd.json`]: `${JSON.stringify({ feature: FEATURE, userStories }, null, 2)}\n`,
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(template, path)), { recursive: true });
    writeFileSync(join(template, path), content);
  }
  const git = (...args: string[]) => execFileSync("git", args, { cwd: template, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  git("config", "user.email", "bench@example.com");
  git("config", "user.name", "bench");
  // No automatic gc: one started in the background by a commit would repack while a run copies or works.
  git("config", "gc.auto", "0");
  git("add", "-A");
  git("commit", "-q", "-m", "baseline");
  if (fillerFiles > 0) git("repack", "-adq");

  const list = join(dir, "stories.txt");
  writeFileSync(list, userStories.map((s) => `${s.id} ${s.title}\n`).join(""));
  const script = join(dir, "baseline.sh");
  const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  writeFileSync(
    script,
    [
      "#!/bin/sh",
      "# What gantry does for each story, without gantry: agent, tests, typecheck, lint, status, commit.",
      "set -e",
      `AGENT=${q(agent)}`,
      `TEST=${q(TEST)}`,
      `PRD=.gantry/features/${FEATURE}/prd.json`,
      "while read -r id title; do",
      '  GANTRY_STORY_ID="$id" /bin/sh -c "$AGENT" </dev/null',
      '  /bin/sh -c "$TEST" >/dev/null',
      `  /bin/sh -c ${q(typecheck)}`,
      `  /bin/sh -c ${q(lint)}`,
      `  sed -i -e '0,/"status": "pending"/s//"status": "passed"/' -e '0,/"passes": false/s//"passes": true/' "$PRD"`,
      "  git add -A",
      '  git commit -q --no-verify -m "gantry($id): $title"',
      `done < ${q(list)}`,
      "# the deferred regression: the full suite once at the end",
      '/bin/sh -c "$TEST" >/dev/null',
      "",
    ].join("\n"),
  );
  return { stories, template, script, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const KB = `${"x".repeat(63)}\n`.repeat(16);

function writeFiller(root: string, count: number): void {
  for (let i = 0; i < count; i++) {
    let leaf = Math.floor(i / 50);
    const parts: string[] = [];
    for (let depth = 0; depth < 9; depth++) {
      parts.push(`d${leaf % 4}`);
      leaf = Math.floor(leaf / 4);
    }
    const folder = join(root, "vendor", ...parts);
    if (i % 50 === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `f${i}.txt`), `${i}\n${KB}`);
  }
}

/** A fresh copy of the template to run in; removed by the caller. */
function freshCopy(project: FeatureProject): string {
  const root = mkdtempSync(join(tmpdir(), "gantry-bench-run-"));
  // cp -a, then the copy's index stat data refreshed (untimed): a copied index matches no inode, and the
  // first `git add -A` of either side would rehash every file.
  execFileSync("cp", ["-a", `${project.template}/.`, root]);
  execFileSync("git", ["update-index", "-q", "--refresh"], { cwd: root, stdio: "ignore" });
  return root;
}

function commits(root: string): number {
  return Number(execFileSync("git", ["rev-list", "--count", "HEAD"], { cwd: root, encoding: "utf8" }).trim());
}

/** Commits `gantry(<story>): …` on HEAD (with --parallel each also has its merge commit, not counted). */
function storyCommits(root: string): number {
  const subjects = execFileSync("git", ["log", "--format=%s"], { cwd: root, encoding: "utf8" });
  return subjects.split("\n").filter((s) => s.startsWith("gantry(")).length;
}

/** `gantry run` on a fresh copy; fails unless every story passed and was committed. `cli`: another build. */
export async function timeGantry(
  project: FeatureProject,
  cli = CLI,
  extraArgs: string[] = [],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<Timed> {
  return timedRun(project, freshCopy(project), cli, extraArgs, extraEnv);
}

/**
 * `gantry run` as the second run in a working tree: on a fresh copy, an untimed earlier run of the same
 * build (the first story alone, `--story`), which keeps its private index in gantry's stat cache at exit as
 * any run does; then `git reset --hard` back to the template's HEAD (the story's file gone, prd.json pending
 * again, every other file untouched), and the timed run of every story. What this models: a user who ran
 * gantry in this checkout before; its first judge stats the files the earlier run hashed instead of hashing
 * them again (src/git/stat-cache.ts). The shell loop's index is warm in every run (freshCopy).
 */
export async function timeGantryLater(project: FeatureProject, cli = CLI): Promise<Timed> {
  const root = freshCopy(project);
  const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
  const earlier = await timeCommand(
    process.execPath,
    [cli, "run", "--feature", FEATURE, "--dir", root, "--story", id(1)],
    { cwd: root, env: benchEnvironment() },
  );
  expectOk(`the earlier gantry run (kept in ${root})`, earlier);
  execFileSync("git", ["reset", "-q", "--hard", head], { cwd: root, stdio: "ignore" });
  return timedRun(project, root, cli, [], {});
}

async function timedRun(
  project: FeatureProject,
  root: string,
  cli: string,
  extraArgs: string[],
  extraEnv: NodeJS.ProcessEnv,
): Promise<Timed> {
  const what = `gantry run on ${project.stories} stories`;
  let failed = true;
  try {
    const timed = await timeCommand(
      process.execPath,
      [cli, "run", "--feature", FEATURE, "--dir", root, ...extraArgs],
      { cwd: root, env: benchEnvironment(extraEnv) },
    );
    // A failed run's copy is kept (its .gantry/runs/ says why), and its path is in the error.
    expectOk(`${what} (${extraArgs.join(" ")}; kept in ${root})`, timed);
    const made = storyCommits(root);
    if (made !== project.stories)
      throw new Error(`gantry made ${made} story commits for ${project.stories} stories (kept in ${root})`);
    failed = false;
    return timed;
  } finally {
    if (!failed) rmSync(root, { recursive: true, force: true });
  }
}

/** The baseline script on a fresh copy. */
export async function timeBaseline(
  project: FeatureProject,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<Timed> {
  const root = freshCopy(project);
  try {
    const timed = expectOk(
      "the baseline script",
      await timeCommand("/bin/sh", [project.script], { cwd: root, env: benchEnvironment(extraEnv) }),
    );
    const made = commits(root) - 1;
    if (made !== project.stories) throw new Error(`the baseline made ${made} commits`);
    return timed;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
