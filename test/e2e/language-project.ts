import assert from "node:assert/strict";
import { FORCE_LAYER_VARIABLE } from "../../src/process/judging-support.js";
import { baseConfig, gantry, lastRun, makeProject, prdStories, story } from "./harness.js";

/** The sandbox settings an honest story passes under: on over the overlay, on over a scratch copy, off. */
export const SANDBOX_VARIANTS = [
  { sandbox: "bwrap", layer: undefined, name: 'agent.sandbox "bwrap"' },
  { sandbox: "bwrap", layer: "copy", name: 'agent.sandbox "bwrap", judging over a scratch copy' },
  { sandbox: "off", layer: undefined, name: 'agent.sandbox "off"' },
] as const;

/**
 * A project of another language: one story whose agent writes `written`, `files` in the baseline, and
 * `test` as the quality commands (no lint). `short`: one tier and one rectify, so a hostile story fails soon.
 */
export function languageProject(options: {
  sandbox: string;
  commands: Record<string, string>;
  files: Record<string, string>;
  written: Record<string, string>;
  short?: boolean;
}): string {
  const config = baseConfig();
  if (options.short) {
    config.execution = { ...(config.execution as object), rectify: { enabled: true, maxAttempts: 1 } };
    config.routing = { tiers: ["fast"] };
  }
  config.agent = { ...(config.agent as object), sandbox: options.sandbox };
  config.quality = { ...(config.quality as object), commands: options.commands, timeoutSeconds: 240 };
  return makeProject({
    stories: [story("US-1")],
    plan: { "US-1": [{ write: options.written }] },
    config,
    files: options.files,
  });
}

/**
 * Runs the built CLI on `root` (over a scratch copy when `layer` says so) and checks the story passed with
 * a PASS from `runner`, `passed` tests when given; returns the run's `verify:result` events.
 */
export async function honestRun(
  root: string,
  layer: string | undefined,
  runner: string,
  passed?: number,
): Promise<Record<string, unknown>[]> {
  const result = await gantry(root, ["run", "--feature", "f"], {
    timeoutMs: 600_000,
    ...(layer ? { env: { [FORCE_LAYER_VARIABLE]: layer } } : {}),
  });
  assert.equal(result.code, 0, result.stderr + result.stdout);
  assert.equal(prdStories(root)["US-1"]?.status, "passed");
  if (layer) assert.match(result.stderr, /judging commands run over a scratch copy/);
  const verified = lastRun(root).events.filter((e) => e.type === "verify:result");
  assert.ok(
    verified.some(
      (e) => e.status === "PASS" && e.runner === runner && (passed === undefined || e.passCount === passed),
    ),
    JSON.stringify(verified.map(({ rawOutputTail, ...rest }) => rest)),
  );
  return verified;
}

/** Runs the built CLI on `root`, checks the story failed, and returns test-integrity's findings. */
export async function hostileRun(root: string): Promise<{ kind: string; file: string }[]> {
  const result = await gantry(root, ["run", "--feature", "f"], { timeoutMs: 600_000 });
  assert.equal(result.code, 1, result.stderr + result.stdout);
  assert.notEqual(prdStories(root)["US-1"]?.status, "passed");
  const integrity = lastRun(root).ledger.filter((e) => e.gate === "test-integrity");
  return integrity.flatMap(
    (e) => ((e.detail ?? {}) as { findings?: { kind: string; file: string }[] }).findings ?? [],
  );
}
