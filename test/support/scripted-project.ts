import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chaosConfig, QUICK_CHECK } from "../chaos/project.js";
import { type AgentSession, type CliResult, gantry, makeProject, REPO, story } from "../e2e/harness.js";

const SCRIPTED = join(REPO, "test", "e2e", "fixtures", "scripted-agent.mjs");

export interface ScriptedProject {
  root: string;
  /** Where the agent's plan and log live: outside the repository, where every worktree's session finds them. */
  home: string;
  /** `gantry run -f f ...args` with the agent playing `plan`. */
  run(plan: Record<string, AgentSession[]>, args: readonly string[], timeoutMs?: number): Promise<CliResult>;
}

/**
 * A chaos-style project (stories A and B unless told, tools/check.sh as its test runner) played by the node
 * scripted agent; `patch` goes into chaosConfig, `extra` over the config it makes.
 */
export function scriptedProject(
  options: {
    agent?: object;
    quality?: object;
    execution?: object;
    extra?: Record<string, unknown>;
    files?: Record<string, string>;
    stories?: readonly string[];
  } = {},
): ScriptedProject {
  const config = {
    ...chaosConfig({
      agent: { command: { run: `node ${JSON.stringify(SCRIPTED)}` }, ...options.agent },
      ...(options.quality ? { quality: options.quality } : {}),
      ...(options.execution ? { execution: options.execution } : {}),
    }),
    ...options.extra,
  };
  const root = makeProject({
    stories: (options.stories ?? ["A", "B"]).map((id) => story(id)),
    plan: {},
    config,
    files: { "tools/check.sh": QUICK_CHECK, ...options.files },
  });
  const home = mkdtempSync(join(tmpdir(), "gantry-scripted-home-"));
  return {
    root,
    home,
    run(plan, args, timeoutMs) {
      writeFileSync(join(home, ".agent-plan.json"), JSON.stringify(plan));
      return gantry(root, ["run", "-f", "f", ...args], {
        env: { SCRIPTED_AGENT_HOME: home },
        ...(timeoutMs ? { timeoutMs } : {}),
      });
    },
  };
}
