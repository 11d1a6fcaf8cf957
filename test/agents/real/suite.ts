/**
 * The suite each real CLI runs (one file per CLI, so they run side by side): one story end to end per mode,
 * sandbox on and off, as root and as nobody; a transient fault the CLI's own retry gets past; a rejected key
 * that pauses the run after one session instead of climbing the tiers.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { STEPS, USAGE } from "../model-server/script.js";
import { type Fault, type ModelServer, startModelServer } from "../model-server/server.js";
import { agentEnds, cleanUp, type Mode, type RealRun, runRealCli, unavailable } from "./harness.js";
import type { RealCli } from "./providers.js";

export interface CliExpectations {
  /** A fault the CLI retries by itself; the story still passes. */
  transient: Fault;
  /** The session's tokens are exactly what the server reported for the calls it answered (no side calls). */
  exactTokens: boolean;
  /** Home-relative paths the CLI must not have written (checked with gantry's sandbox off: HOME is its home). */
  notWritten?: readonly string[];
}

const scriptedSteps = STEPS.map((s) => s.kind);

export function realCliSuite(cli: RealCli, expect: CliExpectations): void {
  let server: ModelServer;
  const runs: RealRun[] = [];
  before(async () => {
    server = await startModelServer();
  });
  after(async () => {
    await server.close();
    // REAL_CLI_KEEP=1 keeps the projects and homes to look at after a failure.
    if (process.env.REAL_CLI_KEEP === "1") return;
    for (const run of runs) cleanUp(run);
  });
  const play = async (mode: Mode) => {
    const run = await runRealCli(cli, server, mode);
    runs.push(run);
    return run;
  };
  const said = (run: RealRun) =>
    `exit ${run.code}\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}\nsessions:\n${run.sessions}`;

  const passes = (mode: Mode, note: (text: string) => void) => async () => {
    const run = await play(mode);
    note(sentSummary(run));
    assert.equal(run.code, 0, said(run));
    assert.equal(run.status, "passed", said(run));
    assert.match(run.head, /src\/cart\.js/);
    assert.match(run.head, /test\/cart\.test\.js/);
    const answered = run.requests.map((r) => r.answered).filter((a) => a !== "side");
    const faults = mode.fault ? answered.filter((a) => !scriptedSteps.includes(a as never)) : [];
    assert.deepEqual(
      answered.filter((a) => scriptedSteps.includes(a as never)),
      scriptedSteps,
      `the server played the script once, in order: ${answered.join(", ")}`,
    );
    if (mode.fault) assert.ok(faults.length >= 1, `the fault was answered: ${answered.join(", ")}`);
    if (mode.sandbox === "off")
      for (const path of expect.notWritten ?? [])
        assert.ok(!existsSync(join(run.home, path)), `${path} written`);
    const [end, ...more] = agentEnds(run.events);
    assert.equal(more.length, 0, "one session");
    assert.equal(end?.marker, "STORY COMPLETE");
    const tokens = end?.tokens as { input: number; output: number } | undefined;
    assert.ok(tokens && tokens.input > 0 && tokens.output > 0, `tokens read: ${JSON.stringify(tokens)}`);
    if (expect.exactTokens) {
      const calls = run.requests.filter(
        (r) => scriptedSteps.includes(r.answered as never) || r.answered === "side",
      ).length;
      assert.deepEqual(tokens, {
        input: calls * (USAGE.input + USAGE.cachedInput),
        output: calls * USAGE.output,
      });
    }
  };

  const modes: [string, Mode][] = [
    ["as root, gantry's sandbox on", { user: "root", sandbox: "bwrap" }],
    [
      "as nobody, gantry's sandbox on, a transient fault first",
      { user: "nobody", sandbox: "bwrap", fault: expect.transient },
    ],
    ["as nobody, gantry's sandbox off", { user: "nobody", sandbox: "off" }],
  ];
  describe(`${cli}, the real CLI, through gantry run against the scripted model server`, () => {
    for (const [name, mode] of modes) {
      it(`${name}: edits, tests and commits the story`, async (t) => {
        const why = await unavailable(mode);
        if (why) return t.skip(why);
        await passes(mode, (text) => t.diagnostic(text))();
      });
    }

    it("as root, gantry's sandbox off", async (t) => {
      const mode: Mode = { user: "root", sandbox: "off" };
      const why = await unavailable(mode);
      if (why) return t.skip(why);
      if (cli !== "claude") return passes(mode, (text) => t.diagnostic(text))();
      // Claude Code refuses to skip permissions as root outside a sandbox: the pre-flight says so, no session.
      const run = await play(mode);
      assert.equal(run.code, 2, said(run));
      assert.match(run.stderr, /root/);
      assert.match(run.stderr, /agent\.sandbox/);
      assert.equal(run.requests.length, 0);
    });

    it("a rejected key (401): the run pauses after one session, naming what to do", async (t) => {
      // As an unprivileged user without gantry's sandbox: a mode every machine has.
      const mode: Mode = { user: "nobody", sandbox: "off", fault: { kind: "status", status: 401 } };
      const why = await unavailable(mode);
      if (why) return t.skip(why);
      const run = await play(mode);
      assert.equal(run.code, 3, said(run));
      assert.equal(run.status, "paused", said(run));
      assert.equal(agentEnds(run.events).length, 1, "no escalation through the tiers");
      assert.match(`${run.stdout}\n${run.stderr}`, /could not authenticate/, said(run));
      assert.ok(run.requests.every((r) => r.answered === "401" || r.answered === "side"));
    });
  });
}

/** What the CLI sent the server, one line for the test log: paths, models, user agent, tools offered. */
function sentSummary(run: RealRun): string {
  const paths = [...new Set(run.requests.map((r) => `${r.method} ${r.path}`))];
  const models = [...new Set(run.requests.map((r) => r.body.model ?? /models\/([^:]+):/.exec(r.path)?.[1]))];
  const agents = [...new Set(run.requests.map((r) => String(r.headers["user-agent"] ?? "")))];
  const answered = run.requests.map((r) => r.answered).join(",");
  return `sent ${run.requests.length} requests (${answered}): ${paths.join(" ")}; models ${models.join(", ")}; ${agents.join(" | ")}`;
}
