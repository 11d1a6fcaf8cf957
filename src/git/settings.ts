import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { ownedFolder } from "../process/owned-folder.js";
import { gantryStateDirectory } from "../process/state-directory.js";
import { NO_PROGRAMS, runGit } from "./exec.js";

/**
 * The user's git settings outside the repository (system and global config, the global attributes and
 * excludes files) as they were when the run began. Every judge and commit of the run reads these copies,
 * kept under gantry's state directory where no session can write, so what a session plants in the home
 * never reaches gantry's git; the repository's own config is read by git as it is (.git/ is the tamper
 * check's). Code-running settings that gantry's git must not run are left out: hooks, fsmonitor, external
 * diff, textconv. Filter drivers (git-lfs) stay: they are the user's, and the commit must carry what
 * `git add` would.
 */
export interface GitSettings {
  /** Environment for gantry's git on the user's repository. */
  readonly env: Readonly<Record<string, string>>;
  /** Where the copies are: gantry's private place for this run, beside the judge's index. */
  readonly dir: string;
  /** What changed outside the tree since the run began, each in words (none: nothing). */
  drift(): Promise<string[]>;
  dispose(): void;
}

/** Keys of the user's config that run programs gantry's git never starts, or that would read live files. */
const DROPPED =
  /^(core\.hookspath|core\.fsmonitor|diff\.external|diff\..*\.textconv|include\..*|includeif\..*)$/i;

interface Captured {
  entries: [string, string][];
  files: { key: string; source: string; text: string | undefined }[];
}

const live = new Set<string>();
let exitHook = false;

export async function captureSettings(top: string, commonDir: string): Promise<GitSettings> {
  // A folder of its own for every repository opened (each parallel worktree opens one): never a name
  // another open repository of this process holds.
  const parent = join(gantryStateDirectory(), "git");
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  const repository = createHash("sha256").update(commonDir).digest("hex").slice(0, 16);
  const dir = ownedFolder(parent, repository);
  chmodSync(dir, 0o700);
  track(dir);
  const captured = await readOutside(top);
  const config = join(dir, "config");
  const entries = captured.entries.filter(
    ([key]) => !DROPPED.test(key) && !/^core\.(attributesfile|excludesfile)$/i.test(key),
  );
  for (const file of captured.files) {
    const copy = join(dir, file.key.split(".")[1] ?? "file");
    if (file.text === undefined) entries.push([file.key, "/dev/null"]);
    else {
      copyFileSync(file.source, copy);
      entries.push([file.key, copy]);
    }
  }
  writeFileSync(config, configText(entries), { mode: 0o600 });
  const env: Record<string, string> = {
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: config,
    ...NO_PROGRAMS,
  };
  return {
    env,
    dir,
    async drift() {
      const now = await readOutside(top);
      const changes: string[] = [];
      if (JSON.stringify(now.entries) !== JSON.stringify(captured.entries))
        changes.push(
          `git's global or system config changed (${changedKeys(captured.entries, now.entries).join(", ")})`,
        );
      for (const file of captured.files) {
        const after = now.files.find((f) => f.key === file.key);
        if (after?.source !== file.source || after.text !== file.text)
          changes.push(`${file.key} (${after?.source ?? file.source}) changed`);
      }
      return changes;
    },
    dispose() {
      live.delete(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** System and global entries in git's order, and the attributes and excludes files they name (or XDG's). */
async function readOutside(top: string): Promise<Captured> {
  const out = await runGit(top, ["config", "--list", "--show-scope", "-z"], {
    GIT_CONFIG_COUNT: "0",
  }).catch(() => "");
  const parts = out.split("\0");
  const entries: [string, string][] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const scope = parts[i];
    if (scope !== "system" && scope !== "global") continue;
    const item = parts[i + 1] ?? "";
    const newline = item.indexOf("\n");
    entries.push(newline < 0 ? [item, "true"] : [item.slice(0, newline), item.slice(newline + 1)]);
  }
  const xdg = process.env.XDG_CONFIG_HOME || join(homedir(), ".config");
  const files = [
    ["core.attributesFile", join(xdg, "git", "attributes")],
    ["core.excludesFile", join(xdg, "git", "ignore")],
  ].map(([key = "", fallback = ""]) => {
    const set = entries.filter(([k]) => k.toLowerCase() === key.toLowerCase()).at(-1)?.[1];
    const source = set ? expandHome(set) : fallback;
    return { key, source, text: readText(source) };
  });
  return { entries, files };
}

function changedKeys(before: [string, string][], after: [string, string][]): string[] {
  const text = (list: [string, string][]) => new Set(list.map(([k, v]) => `${k}=${v}`));
  const was = text(before);
  const now = text(after);
  const keys = new Set<string>();
  for (const entry of was) if (!now.has(entry)) keys.add(entry.slice(0, entry.indexOf("=")));
  for (const entry of now) if (!was.has(entry)) keys.add(entry.slice(0, entry.indexOf("=")));
  return [...keys].sort();
}

/** A git config file holding exactly these entries, in order (a key set twice keeps both, as git lists them). */
export function configText(entries: readonly [string, string][]): string {
  const lines: string[] = [];
  for (const [key, value] of entries) {
    const first = key.indexOf(".");
    const last = key.lastIndexOf(".");
    if (first < 0) continue;
    const section = key.slice(0, first);
    const name = key.slice(last + 1);
    const header =
      first === last
        ? `[${section}]`
        : `[${section} "${key.slice(first + 1, last).replace(/[\\"]/g, "\\$&")}"]`;
    lines.push(header, `\t${name} = "${escapeValue(value)}"`);
  }
  return `${lines.join("\n")}\n`;
}

function escapeValue(value: string): string {
  return value.replace(/[\\"]/g, "\\$&").replace(/\n/g, "\\n").replace(/\t/g, "\\t");
}

function expandHome(path: string): string {
  return path.startsWith("~/") ? join(process.env.HOME || homedir(), path.slice(2)) : path;
}

function readText(path: string): string | undefined {
  try {
    return existsSync(path) ? readFileSync(path, "utf8") : undefined;
  } catch {
    return undefined;
  }
}

function track(dir: string): void {
  live.add(dir);
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const left of live) rmSync(left, { recursive: true, force: true });
  });
}
