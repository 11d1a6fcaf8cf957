import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { runGit } from "./exec.js";
import { sharedConfigText } from "./shared-config.js";

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
  const { config, exclude } = await repositorySettings(dirs);
  writeFileSync(join(dir, "config"), config);
  writeFileSync(join(dir, "info", "exclude"), exclude);
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

/** What a private git takes from the repository, by common directory: the same for each of its worktrees. */
const settingsByRepository = new Map<string, Promise<{ config: string; exclude: string }>>();

/**
 * The private config and exclude rules, read once a run for all the worktrees of one repository (each
 * parallel story opens one) when nothing in git's config can differ between them: no worktree config
 * and no include (an `includeIf "gitdir:"` or `"onbranch:"` could name another file for another worktree).
 */
function repositorySettings(dirs: RepositoryDirs): Promise<{ config: string; exclude: string }> {
  const read = async () => ({ config: await privateConfig(dirs.top), exclude: await excludeRules(dirs) });
  if (sharedConfigText(dirs) === undefined) return read();
  let settings = settingsByRepository.get(dirs.commonDir);
  if (!settings) {
    settings = read();
    settingsByRepository.set(dirs.commonDir, settings);
    settings.catch(() => settingsByRepository.delete(dirs.commonDir));
  }
  return settings;
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
  // The extensions' offset at the file's end: the ignored listing reads the untracked cache from there.
  lines.push("[index]", "\trecordEndOfIndexEntries = true");
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
