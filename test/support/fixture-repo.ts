import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** git for a test's fixture repository, isolated from whatever repository or hook the tests run under. */
export function git(cwd: string, ...args: string[]): string {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_")));
  return execFileSync("git", args, {
    cwd,
    env: { ...env, GIT_CONFIG_NOSYSTEM: "1" },
    encoding: "utf8",
  }).trim();
}

/** Writes a file of the fixture, creating its folders. */
export function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

let emptyGit: string | undefined;

/** The .git of an empty repository on main, made once per test process and copied by each fixture. */
function emptyRepository(): string {
  if (emptyGit === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "gantry-fixture-empty-"));
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
    git(dir, "init", "-q", "-b", "main");
    emptyGit = join(dir, ".git");
  }
  return emptyGit;
}

/** Makes `root` a repository on branch main whose first commit, "base", holds every file written there. */
export function commitAll(root: string): void {
  if (existsSync(join(root, ".git"))) git(root, "init", "-q", "-b", "main");
  else cpSync(emptyRepository(), join(root, ".git"), { recursive: true });
  git(root, "add", "-A");
  git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base");
}
