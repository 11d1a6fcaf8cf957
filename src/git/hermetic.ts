import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { runGit } from "./exec.js";

/**
 * A private git directory that shares the repository's objects and nothing else: its own index (built
 * from HEAD, never a copy of the user's with its skip-worktree / assume-unchanged flags), its own config
 * (no filter drivers, no fsmonitor, no hooks, no autocrlf), no system or global config, and the ignore
 * rules as they were when the run began. What the judge and the commit see is the bytes on disk.
 */
export interface PrivateGit {
  /** Environment for a git that works on the working tree through the private directory. */
  readonly env: Record<string, string>;
  readonly dir: string;
  dispose(): void;
}

export interface RepositoryDirs {
  /** The working tree's top level. */
  top: string;
  gitDir: string;
  commonDir: string;
}

/** Private directories not yet disposed of, removed when the process exits whatever way it does. */
const live = new Set<string>();
let exitHook = false;

export async function createPrivateGit(dirs: RepositoryDirs): Promise<PrivateGit> {
  const dir = mkdtempSync(join(tmpdir(), "gantry-git-"));
  live.add(dir);
  if (!exitHook) {
    exitHook = true;
    process.once("exit", () => {
      for (const left of live) rmSync(left, { recursive: true, force: true });
    });
  }
  chmodSync(dir, 0o700);
  mkdirSync(join(dir, "refs"));
  mkdirSync(join(dir, "info"));
  writeFileSync(join(dir, "HEAD"), "ref: refs/heads/gantry-private\n");
  writeFileSync(join(dir, "config"), await privateConfig(dirs.top));
  writeFileSync(join(dir, "info", "exclude"), await excludeRules(dirs));
  return {
    dir,
    env: {
      GIT_DIR: dir,
      GIT_WORK_TREE: dirs.top,
      GIT_INDEX_FILE: join(dir, "index"),
      GIT_OBJECT_DIRECTORY: join(dirs.commonDir, "objects"),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_OPTIONAL_LOCKS: "0",
    },
    dispose: () => {
      live.delete(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Only what is needed to read the repository's objects: its format and extensions (sha256, …). */
async function privateConfig(top: string): Promise<string> {
  const extensions = await configLines(top, "^(core\\.repositoryformatversion|extensions\\..*)$");
  const lines = ["[core]", "\tbare = false", "\thooksPath = /dev/null", "\tfsmonitor = false"];
  lines.push("\tautocrlf = false", "\tsymlinks = true", "\tquotepath = off");
  let version = "0";
  const ext: string[] = [];
  for (const [key, value] of extensions) {
    if (key === "core.repositoryformatversion") version = value;
    else ext.push(`\t${key.slice("extensions.".length)} = ${value}`);
  }
  lines.push(`\trepositoryformatversion = ${version}`);
  if (ext.length > 0) lines.push("[extensions]", ...ext);
  return `${lines.join("\n")}\n`;
}

/** The repository's info/exclude and the user's global excludes file, read once when the run began. */
async function excludeRules(dirs: RepositoryDirs): Promise<string> {
  const files = [join(dirs.commonDir, "info", "exclude")];
  const configured = (await configLines(dirs.top, "^core\\.excludesfile$", true)).at(-1)?.[1];
  const xdg = process.env.XDG_CONFIG_HOME || join(homedir(), ".config");
  files.push(configured ?? join(xdg, "git", "ignore"));
  return files
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file, "utf8"))
    .join("\n");
}

async function configLines(cwd: string, pattern: string, path = false): Promise<[string, string][]> {
  try {
    const out = await runGit(cwd, ["config", ...(path ? ["--path"] : []), "-z", "--get-regexp", pattern]);
    return out
      .split("\0")
      .filter(Boolean)
      .map((entry) => {
        const newline = entry.indexOf("\n");
        return newline < 0 ? [entry, "true"] : [entry.slice(0, newline), entry.slice(newline + 1)];
      });
  } catch {
    return []; // exit 1: nothing matched
  }
}
