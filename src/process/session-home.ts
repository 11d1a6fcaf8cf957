import { existsSync, mkdtempSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";

/**
 * What each agent CLI keeps in the home and must write (its login, settings, sessions), home-relative.
 * `agent.<name>.writableDirs` adds to these.
 */
export const AGENT_STATE_PATHS: Readonly<Record<string, readonly string[]>> = {
  claude: [".claude", ".claude.json"],
  codex: [".codex"],
  gemini: [".gemini"],
  opencode: [".config/opencode", ".local/share/opencode", ".cache/opencode"],
  aider: [".aider"],
  command: [],
};

/** A session's home: the real one is read-only; `scratch` is its HOME, and `state` is bound writable into both. */
export interface SessionHome {
  /** The real home: read-only to the session, but for `state`. */
  home: string;
  /** The session's HOME, a private writable folder made for the run. */
  scratch: string;
  /** The agent CLIs' own files and folders that exist, as real paths under `home`. */
  state: string[];
}

/**
 * The home sessions get: a scratch folder for everything an agent or its tools write (caches, npm's and
 * pip's files, shell history), and the declared state paths of the agent CLIs (`~/`-relative, or
 * absolute within the home) bound writable at their real place and at the same place in the scratch home.
 * Paths outside the home or that do not exist are not bound (bwrap would create them).
 */
export function sessionHome(
  declared: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  scratch = mkdtempSync(join(tmpdir(), "gantry-session-home-")),
): SessionHome {
  const home = resolve(env.HOME || homedir());
  const state = new Set<string>();
  for (const entry of declared) {
    const path = resolve(home, entry.startsWith("~/") ? entry.slice(2) : entry);
    const rel = relative(home, path);
    if (!rel || rel.startsWith("..") || isAbsolute(rel)) continue;
    if (existsSync(path)) state.add(path);
  }
  return { home, scratch, state: [...state] };
}

/** The paths the agents named in `names` declare, their defaults first, then `extra` (the config's). */
export function declaredStatePaths(names: readonly string[], extra: readonly string[] = []): string[] {
  return [...new Set([...names.flatMap((name) => AGENT_STATE_PATHS[name] ?? []), ...extra])];
}

/** bwrap's arguments for `home`: the scratch HOME, the state paths bound writable at both places. */
export function sessionHomeArgs(session: SessionHome): string[] {
  // Read-only also where it lies in a writable folder (a home under /tmp).
  const args = ["/", "/tmp"].includes(session.home) ? [] : ["--ro-bind", session.home, session.home];
  args.push("--bind", session.scratch, session.scratch);
  for (const path of session.state) {
    args.push("--bind", path, path);
    args.push("--bind", path, join(session.scratch, relative(session.home, path)));
  }
  args.push("--setenv", "HOME", session.scratch);
  // Their defaults then lie in the scratch home; set ones may point at the real home, read-only now.
  for (const name of ["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"]) {
    args.push("--unsetenv", name);
  }
  return args;
}
