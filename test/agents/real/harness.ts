/**
 * One story through `gantry run` (the built CLI) with a real agent CLI from node_modules, pointed at the
 * scripted model server: as root or as an unprivileged user, with gantry's sandbox on or off.
 */
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { sandboxSupport } from "../../../src/process/sandbox.js";
import {
  baseConfig,
  CLI,
  chownTree,
  git,
  makeProject,
  REPO,
  readJsonl,
  runDirs,
  story,
} from "../../e2e/harness.js";
import { CART } from "../model-server/script.js";
import type { Fault, ModelServer, Recorded } from "../model-server/server.js";
import { FOREIGN, PROVIDER, pointAt, type RealCli } from "./providers.js";

/** The unprivileged user: nobody's ids, which own nothing on the machine. */
const NOBODY = 65534;
/**
 * Homes live outside /tmp: Codex refuses to make its sandbox helper's aliases under a temporary
 * directory, and its own sandbox (gantry's off) then cannot start a command.
 */
const HOMES = join(REPO, "node_modules", ".cache", "gantry-real-cli-homes");

export interface Mode {
  user: "root" | "nobody";
  sandbox: "bwrap" | "off";
  /** A fault the server answers with first (the CLI's own retry must get past it). */
  fault?: Fault;
}

export interface RealRun {
  code: number | null;
  stdout: string;
  stderr: string;
  root: string;
  /** The CLI's home for this run (its config, login state and caches). */
  home: string;
  /** What the server was sent during this run, for this CLI's provider. */
  requests: Recorded[];
  events: Record<string, unknown>[];
  /** `git show --stat HEAD` when the run committed. */
  head: string;
  status: string;
  /** The tail of every session's log (what the CLI printed), for a failure's message. */
  sessions: string;
}

export const isRoot = process.getuid?.() === 0;

/** Why a mode cannot run here, or false. */
export async function unavailable(mode: Mode): Promise<string | false> {
  // Not root, this process already is an unprivileged user: those modes run as it.
  if (mode.user === "nobody" && isRoot && spawnSync("setpriv", ["--help"]).status !== 0)
    return "setpriv not found";
  if (mode.user === "root" && !isRoot) return "not running as root";
  if (mode.sandbox === "bwrap") {
    const support = await sandboxSupport();
    if (!support.works) return `bwrap does not work here: ${support.reason}`;
  }
  return false;
}

/** A home of its own for the CLI, and the environment that points it at the server from there. */
export function cliHome(cli: RealCli, serverUrl: string): { home: string; env: NodeJS.ProcessEnv } {
  mkdirSync(HOMES, { recursive: true });
  const home = mkdtempSync(join(HOMES, `${cli}-`));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of FOREIGN) delete env[key];
  delete env.NODE_TEST_CONTEXT;
  Object.assign(env, pointAt(cli, serverUrl, home), {
    HOME: home,
    XDG_STATE_HOME: join(home, ".local", "state"),
    // OpenCode's binary package itself: the opencode-ai wrapper names platform packages the registry lacks, which npm ci cannot lock.
    PATH: `${join(REPO, "node_modules", ".bin")}:${join(REPO, "node_modules", "opencode-linux-x64", "bin")}:${env.PATH ?? ""}`,
  });
  return { home, env };
}

export async function runRealCli(cli: RealCli, server: ModelServer, mode: Mode): Promise<RealRun> {
  const { home, env } = cliHome(cli, server.url);
  const config = baseConfig();
  // As an unprivileged user the kernel here refuses the judging sandbox's overlay: judging commands run
  // over a scratch copy of the tree instead (judging-copy.ts), so "bwrap" runs as it does for root.
  config.agent = { default: cli, sandbox: mode.sandbox, timeoutSeconds: 300 };
  const root = makeProject({
    stories: [
      story("US-1", {
        title: "lineTotal multiplies",
        description: "lineTotal(price, quantity) returns price * quantity",
      }),
    ],
    plan: {},
    config,
    files: { "src/cart.js": CART },
  });
  const switchUser = mode.user === "nobody" && isRoot;
  if (switchUser) {
    for (const dir of [root, home]) chownTree(dir, NOBODY);
  }
  server.setFault(mode.fault);
  const before = server.requests.length;
  const prefix = switchUser
    ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--inh-caps=-all"]
    : [];
  const result = await runBounded([...prefix, process.execPath, CLI, "run", "--feature", "f"], root, env);
  server.setFault(undefined);
  const requests = server.requests.slice(before).filter((r) => r.provider === PROVIDER[cli]);
  const dir = runDirs(root).at(-1);
  const eventsFile = dir ? join(dir, "events.jsonl") : "";
  const events = eventsFile && existsSync(eventsFile) ? readJsonl(eventsFile) : [];
  const prd = JSON.parse(readFileSync(join(root, ".gantry/features/f/prd.json"), "utf8"));
  const head = git(root, "-c", "safe.directory=*", "log", "-1", "--stat", "--format=%s");
  const logs = dir && existsSync(join(dir, "sessions")) ? readdirSync(join(dir, "sessions")) : [];
  const sessions = logs
    .map((name) => readFileSync(join(dir as string, "sessions", name), "utf8").slice(-2000))
    .join("\n");
  return { ...result, root, home, requests, events, head, status: prd.userStories[0].status, sessions };
}

/** Removes a run's project and home: only its own, since the suites of the other CLIs run beside it. */
export function cleanUp(run: RealRun): void {
  rmSync(run.root, { recursive: true, force: true });
  rmSync(run.home, { recursive: true, force: true });
}

const execFileAsync = promisify(execFile);

/** A command run to its end (killed after 7 minutes): its exit code and output. */
export async function runBounded(
  argv: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [bin, ...args] = argv as [string, ...string[]];
  // A safety kill: a real CLI's start on a loaded machine takes up to a minute.
  const options = { cwd, env, timeout: 420_000, killSignal: "SIGKILL" as const, maxBuffer: 64 * 1024 * 1024 };
  try {
    const { stdout, stderr } = await execFileAsync(bin, args, options);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    const code = typeof failed.code === "number" ? failed.code : null;
    return { code, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

/** The `agent:end` events of the run. */
export function agentEnds(events: Record<string, unknown>[]): Record<string, unknown>[] {
  return events.filter((e) => e.type === "agent:end");
}
