import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type ConfigInput, ConfigSchema } from "../../src/config/schema.js";
import type { EventName } from "../../src/model/events.js";
import { createRunContext } from "../../src/pipeline/run-setup.js";
import { type Prd, PrdSchema } from "../../src/prd/story.js";
import { RUN_ID_VARIABLE } from "../../src/process/leftovers.js";
import type { RunContext } from "../../src/stages/context.js";

export function git(root: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: root, encoding: "utf8" });
}

/** A temporary git repository with one commit holding `files`. */
export function gitRepo(files: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), "gantry-unit-"));
  const all = { ".gitignore": ".gantry/runs/\n.gantry/lock\n", "README.md": "a project\n", ...files };
  for (const [path, content] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.email", "unit@example.com");
  git(root, "config", "user.name", "unit");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "baseline");
  return root;
}

/**
 * A real run context (bus, git, story store, run state, the command agent) over a fresh repository whose
 * feature `f` holds `stories`; `events` records every event's type and payload in order.
 */
export async function runContext(
  stories: Record<string, unknown>[],
  config: ConfigInput = {},
): Promise<{ run: RunContext; root: string; events: [EventName, Record<string, unknown>][] }> {
  const prdPath = ".gantry/features/f/prd.json";
  const prd: Prd = PrdSchema.parse({
    feature: "f",
    userStories: stories.map((s) => ({ description: "", acceptanceCriteria: ["it works"], ...s })),
  });
  const root = gitRepo({ [prdPath]: `${JSON.stringify(prd, null, 2)}\n` });
  const parsed = ConfigSchema.parse({
    agent: { default: "command", command: { run: "cat > /dev/null" }, timeoutSeconds: 30 },
    ...config,
  });
  const previousRunId = process.env[RUN_ID_VARIABLE];
  const { run } = await createRunContext({
    root,
    feature: "f",
    prdPath: join(root, prdPath),
    prd,
    config: parsed,
    signal: new AbortController().signal,
    warn: () => {},
  });
  if (previousRunId === undefined) delete process.env[RUN_ID_VARIABLE];
  else process.env[RUN_ID_VARIABLE] = previousRunId;
  const events: [EventName, Record<string, unknown>][] = [];
  run.bus.onAny("test recorder", (type, event) => {
    events.push([type, event as unknown as Record<string, unknown>]);
  });
  return { run, root, events };
}
