import { existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { DEPENDENCY_FOLDERS } from "./dependency-folders.js";
import { execCommand } from "./executor.js";
import type { JudgingPrograms } from "./judging-sandbox.js";
import { judgingSupport } from "./judging-support.js";
import { type SessionHome, sessionHomeArgs } from "./session-home.js";
import { gantryScratchDirectory, gantryStateDirectory } from "./state-directory.js";
import { trustedProgram } from "./system-program.js";
import { confine, scopeOf } from "./wrapper-scope.js";

export type SandboxMode = "auto" | "bwrap" | "off";

/** What a sandboxed session sees besides the whole filesystem read-only (docs/security.md, "The sandbox"). */
export interface SandboxLayout {
  /** The project's working tree: writable. */
  root: string;
  /** Writable besides the tree: the agent's home, caches and temporary files. Bound before the tree. */
  writable: string[];
  /** Bound read-only on top of the writable ones: `.git/`, `.gantry/`, git's own config in the home. */
  readOnly: string[];
  /** Covered by an empty tmpfs: gantry's own state (the ledger key), not the agent's to read. */
  hidden: string[];
  /**
   * Read-only under the tree: a story's worktree lies inside the repository's git directory, so the
   * repository (main tree, `.git/`, the other worktrees) is bound read-only first and the worktree on top.
   */
  readOnlyUnder?: string[];
  /** The session's own home (session-home.ts): the real one read-only then, and no XDG folder writable. */
  session?: SessionHome;
}

/** The options every sandboxed session gets, and the trial run of detection with them. */
const ISOLATION = ["--unshare-pid", "--die-with-parent", "--cap-drop", "ALL"];

/**
 * The layout for a session in `root`: the tree writable except `.git/` and `.gantry/`; the home, the
 * XDG directories, /tmp and $TMPDIR writable (agents keep their login and caches there); git's global
 * config read-only (gantry's own git calls read it, outside the sandbox); gantry's state directory hidden.
 * Only paths that exist are bound: bwrap would create the missing ones on the host.
 */
export function sandboxLayout(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
  session?: SessionHome,
): SandboxLayout {
  const home = env.HOME || homedir();
  // Relative XDG values are ignored, as the XDG spec (and the ledger's key directory) say.
  const xdg = (name: string, fallback: string) => {
    const value = env[name];
    return value && isAbsolute(value) ? value : join(home, fallback);
  };
  const configHome = xdg("XDG_CONFIG_HOME", ".config");
  const writable = session
    ? []
    : [home, configHome, xdg("XDG_CACHE_HOME", ".cache"), xdg("XDG_DATA_HOME", ".local/share")];
  writable.push("/tmp");
  if (env.TMPDIR) writable.push(env.TMPDIR);
  const readOnly = [
    join(root, ".git"),
    join(root, ".gantry"),
    join(home, ".gitconfig"),
    join(configHome, "git"),
    // Dependencies installed before the story: a session changes the manifest, gantry installs (install.ts).
    ...(session ? DEPENDENCY_FOLDERS.map((name) => join(root, name)) : []),
  ];
  // gantry serve's token, device registry and nonces: an agent that read the token could answer for a person.
  // The scratch checkouts: a session must not write into the one another worker's check is judging.
  const hidden = [gantryStateDirectory(env), gantryScratchDirectory(env), join(root, ".gantry", "serve")];
  const present = (paths: string[]) =>
    [...new Set(paths.map((p) => resolve(p)))].filter((p) => existsSync(p));
  return {
    root: resolve(root),
    writable: present(writable),
    readOnly: present(readOnly),
    hidden: present(hidden),
    ...(session ? { session } : {}),
  };
}

export { gantryScratchDirectory, gantryStateDirectory };

/**
 * The bwrap command line that runs a session in `layout`, up to and including `--`: the command
 * (`/bin/sh -c ...`) follows. Later mounts cover earlier ones, so the order is: everything read-only,
 * fresh /dev and /proc, the writable directories, the tree, then the read-only and hidden paths inside them.
 * No `--new-session`: gantry starts every session as its own session without a controlling terminal
 * already (TIOCSTI has no terminal to reach), and staying in the process group lets a timeout's SIGTERM
 * reach the agent for its grace period.
 */
export function bwrapArgs(layout: SandboxLayout, bwrap = "bwrap"): readonly string[] {
  const args = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const dir of layout.writable) args.push("--bind", dir, dir);
  if (layout.session) args.push(...sessionHomeArgs(layout.session));
  for (const path of layout.readOnlyUnder ?? []) args.push("--ro-bind", path, path);
  args.push("--bind", layout.root, layout.root);
  for (const path of layout.readOnly) args.push("--ro-bind", path, path);
  for (const path of layout.hidden) args.push("--tmpfs", path);
  args.push(...ISOLATION, "--");
  // What the binds prove (activity.ts): of the trees gantry judges, commands here write `root` alone, and
  // nothing in a folder bound read-only (or hidden) over every writable bind above it: `readOnlyUnder`
  // comes after `writable`, `readOnly` and `hidden` after the tree.
  const shielded = [...(layout.readOnlyUnder ?? []), ...layout.readOnly, ...layout.hidden];
  return confine(args, { tree: layout.root, shielded });
}

export interface SandboxSupport {
  works: boolean;
  /** The bwrap executable found on PATH. */
  bwrap?: string;
  /** Why it does not work, when it does not: "bwrap not found", or what the trial run said. */
  reason?: string;
}

const TRIAL_TIMEOUT_MS = 10_000;
const support = new Map<string, Promise<SandboxSupport>>();

/**
 * Whether bwrap exists in a PATH entry no session can write (system-program.ts) and a trial run with the
 * session's isolation works here; asked once per PATH and home.
 */
export function sandboxSupport(env: NodeJS.ProcessEnv = process.env): Promise<SandboxSupport> {
  const key = `${env.PATH ?? ""}\0${env.HOME ?? ""}\0${env.TMPDIR ?? ""}`;
  let answer = support.get(key);
  if (!answer) {
    answer = trial(env);
    support.set(key, answer);
  }
  return answer;
}

async function trial(env: NodeJS.ProcessEnv): Promise<SandboxSupport> {
  const bwrap = trustedProgram("bwrap", env);
  if (!bwrap) return { works: false, reason: "bwrap not found" };
  const result = await execCommand({
    command: "true",
    cwd: "/",
    wrapper: [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", ...ISOLATION, "--"],
    timeoutMs: TRIAL_TIMEOUT_MS,
    killGraceMs: 0,
    tailBytes: 4096,
  });
  if (result.exitCode === 0) return { works: true, bwrap };
  const said = result.output.trim().split("\n").pop()?.trim();
  const why = result.timedOut
    ? `a trial run did not finish within ${TRIAL_TIMEOUT_MS / 1000} s`
    : result.spawnError
      ? `a trial run could not start: ${result.spawnError}`
      : `a trial run failed${said ? `: ${said}` : ` with exit code ${result.exitCode ?? result.signal}`}`;
  return { works: false, bwrap, reason: `${bwrap} does not work here (${why})` };
}

/** How the run's sessions are sandboxed, decided once at the start of a run from `agent.sandbox`. */
export type SandboxDecision =
  /**
   * Sessions run under this wrapper (bwrap's command line, up to `--`); judging commands under
   * judging-sandbox.ts's with `judging` (`judgingWarning` said once when over a scratch copy), or
   * unsandboxed with `judgingWarning` said once when that cannot work here.
   */
  | {
      kind: "sandboxed";
      wrapper: readonly string[];
      judging?: JudgingPrograms;
      judgingWarning?: string;
      session?: SessionHome;
    }
  /** Sessions run unsandboxed; `warning` is said once for the run when the user did not ask for that. */
  | { kind: "unsandboxed"; warning?: string }
  /** `bwrap` was required and does not work: the run must not start. */
  | { kind: "unavailable"; reason: string };

export async function decideSandbox(
  mode: SandboxMode,
  root: string,
  env: NodeJS.ProcessEnv = process.env,
  session?: () => SessionHome,
): Promise<SandboxDecision> {
  if (mode === "off") return { kind: "unsandboxed" };
  const found = await sandboxSupport(env);
  if (found.works && found.bwrap) {
    // Made now, so it is hidden even when the run writes its first key only after sessions have begun.
    mkdirSync(gantryStateDirectory(env), { recursive: true, mode: 0o700 });
    mkdirSync(gantryScratchDirectory(env), { recursive: true, mode: 0o700 });
    mkdirSync(join(root, ".gantry", "serve"), { recursive: true, mode: 0o700 });
    const home = session?.();
    const wrapper = bwrapArgs(sandboxLayout(root, env, home), found.bwrap);
    const judging = await judgingSupport(found.bwrap, env);
    const made = { kind: "sandboxed" as const, wrapper, ...(home ? { session: home } : {}) };
    if (judging.works) {
      const note = judging.overlayReason && copyNote(judging.overlayReason);
      return { ...made, judging: judging.programs, ...(note ? { judgingWarning: note } : {}) };
    }
    // Required means for everything that runs the agent's code, its tests as much as its sessions.
    if (mode === "bwrap")
      return { kind: "unavailable", reason: `judging commands cannot be sandboxed here: ${judging.reason}` };
    const judgingWarning = `gantry: judging commands cannot be sandboxed here (${judging.reason}): tests, lint and checks run unsandboxed`;
    return { ...made, judgingWarning };
  }
  const reason = found.reason ?? "bwrap does not work here";
  if (mode === "bwrap") return { kind: "unavailable", reason };
  return {
    kind: "unsandboxed",
    warning:
      `gantry: sandbox not available (${reason}): agent sessions run unsandboxed, so .git/ and .gantry/ ` +
      `are not write-protected from the agent and only its processes that keep GANTRY_SESSION_ID are stopped ` +
      `after each session (set agent.sandbox to "off" to silence this)`,
  };
}

function copyNote(overlayReason: string): string {
  return `gantry: judging commands run over a scratch copy of the tree (overlayfs: ${overlayReason})`;
}

/**
 * The same sandbox with the project tree read-only: for sessions that judge the work and must not change
 * it (role `review`). Throws when the wrapper does not bind `root` writable as bwrapArgs does: a session
 * must never run with a tree writable that was meant to be read-only.
 */
export function withTreeReadOnly(wrapper: readonly string[], root: string): readonly string[] {
  const tree = resolve(root);
  const args = [...wrapper];
  for (let i = 0; i + 2 < args.length; i += 1) {
    if (args[i] === "--bind" && args[i + 1] === tree && args[i + 2] === tree) {
      args[i] = "--ro-bind";
      // Less writable than the wrapper it came from: the same reach holds.
      const scope = scopeOf(wrapper);
      return scope ? confine(args, scope) : args;
    }
  }
  throw new Error(`the sandbox does not bind ${tree}; cannot make it read-only`);
}
