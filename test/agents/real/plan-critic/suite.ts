/**
 * `gantry plan` (the built CLI) with its critic, planner and critic both one real agent CLI pointed at the
 * scripted model server, in gantry's sandbox (the critic's tree read-only): a binding objection accepted with
 * a revised story passes; one rebutted with inference only blocks, prd.json untouched.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { LedgerEntry } from "../../../../src/model/ledger.js";
import { baseConfig, CLI, makeProject, readJsonl } from "../../../e2e/harness.js";
import { CART_JS, RULES, SPEC } from "../../../e2e/plan-critic-project.js";
import type { Script } from "../../model-server/script.js";
import { type ModelServer, type Recorded, startModelServer } from "../../model-server/server.js";
import { toolResults } from "../../model-server/tool-results.js";
import { cliHome, isRoot, type Mode, runBounded, unavailable } from "../harness.js";
import { PROVIDER, type RealCli } from "../providers.js";
import { ACCEPT, CRITIC_PROBE, planRound, REBUT_BY_INFERENCE } from "./script.js";

/** The feature the e2e project holds (`f`), planned here from the critic project's spec. */
const FEATURE = "f";

interface PlanRun {
  code: number | null;
  stdout: string;
  stderr: string;
  root: string;
  home: string;
  prdBefore: Buffer;
  /** What the server was sent during this plan, for this CLI's provider, side calls left out. */
  requests: Recorded[];
}

const featureDir = (root: string) => join(root, ".gantry", "features", FEATURE);
const prdPath = (root: string) => join(featureDir(root), "prd.json");
const storyIds = (root: string) =>
  (JSON.parse(readFileSync(prdPath(root), "utf8")).userStories as { id: string }[]).map((s) => s.id);
const planLedger = (root: string) => readJsonl<LedgerEntry>(join(featureDir(root), "plan", "ledger.jsonl"));
const said = (run: PlanRun) => `exit ${run.code}\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`;
/** The model a request asked for: in its body, or Gemini's in its path. */
const modelOf = (r: Recorded) => String(r.body.model ?? /models\/([^:]+):/.exec(r.path)?.[1] ?? "");
const textOf = (r: Recorded) => JSON.stringify(r.body);

async function planWith(cli: RealCli, server: ModelServer, script: Script): Promise<PlanRun> {
  const { home, env } = cliHome(cli, server.url);
  const config = baseConfig();
  config.agent = { default: cli, sandbox: "bwrap", timeoutSeconds: 300 };
  // The critic at another tier than the planner (the top one), so the server can tell their sessions apart.
  config.plan = { criticAgent: cli, criticTier: "balanced" };
  const root = makeProject({
    stories: [{ id: "X", title: "x", acceptanceCriteria: ["x() returns 1"], status: "pending" }],
    plan: {},
    config,
    files: {
      ".gantry/rules.md": RULES,
      [`.gantry/features/${FEATURE}/spec.md`]: SPEC,
      "src/cart.js": CART_JS,
    },
  });
  const prdBefore = readFileSync(prdPath(root));
  server.setScript(script);
  const before = server.requests.length;
  const result = await runBounded([process.execPath, CLI, "plan", "--feature", FEATURE], root, env);
  server.setScript(undefined);
  const requests = server.requests
    .slice(before)
    .filter((r) => r.provider === PROVIDER[cli] && r.answered !== "side" && !/count_?tokens/i.test(r.path));
  return { ...result, root, home, prdBefore, requests };
}

/** The turns the server played, each once however many calls it took: plan, critic, reply. */
function turnsPlayed(run: PlanRun): string[] {
  return run.requests.map((r) => r.turn ?? r.answered).filter((turn, i, all) => turn !== all[i - 1]);
}

export function planCriticSuite(cli: RealCli): void {
  let server: ModelServer;
  const runs: PlanRun[] = [];
  const mode: Mode = { user: isRoot ? "root" : "nobody", sandbox: "bwrap" };
  before(async () => {
    server = await startModelServer();
  });
  after(async () => {
    await server.close();
    // REAL_CLI_KEEP=1 keeps the projects and homes to look at after a failure.
    if (process.env.REAL_CLI_KEEP === "1") return;
    for (const run of runs)
      for (const dir of [run.root, run.home]) rmSync(dir, { recursive: true, force: true });
  });
  const plan = async (script: Script) => {
    const run = await planWith(cli, server, script);
    runs.push(run);
    return run;
  };

  describe(`${cli}, the real CLI, as planner and critic of gantry plan against the scripted model server`, () => {
    it("a binding objection accepted with a revised story: the plan passes, the exchange is kept", async (t) => {
      const why = await unavailable(mode);
      if (why) return t.skip(why);
      const run = await plan(planRound(ACCEPT));
      assert.equal(run.code, 0, said(run));
      assert.deepEqual(turnsPlayed(run), ["plan", "critic", "reply"], said(run));
      assert.deepEqual(storyIds(run.root), ["X", "US-1", "US-2"]);
      assert.match(
        run.stdout,
        /OBJ-1 \[feasibility\] R-1 \(binding\) answered: US-1 ships total\(\) without a test/,
      );
      const critique = JSON.parse(readFileSync(join(featureDir(run.root), "plan-critique.json"), "utf8"));
      assert.equal(critique.verdict, "pass");
      assert.equal(critique.objections[0].outcome, "answered");
      assert.deepEqual(critique.objections[0].anchors, ["src/cart.js:1", "story US-1"]);
      assert.deepEqual(critique.objections[0].unresolved, [], "the critic's anchors resolve");
      assert.deepEqual(critique.objections[0].reply, { reply: "accept", anchors: ["story US-2"] });
      assert.deepEqual(
        planLedger(run.root).map((e) => [e.gate, e.verdict]),
        [["plan-critique", "pass"]],
      );

      // The critic's session was sent the spec, the proposed stories and the rules, at its own tier.
      const critic = run.requests.filter((r) => r.turn === "critic");
      const planner = run.requests.find((r) => r.turn === "plan");
      assert.ok(critic[0] && planner, said(run));
      const prompt = textOf(critic[0]);
      for (const part of [
        "Prices are integers in cents.",
        "Cart total",
        "US-1",
        "R-1 (binding): every public function has a test",
      ])
        assert.ok(prompt.includes(part), `the critic's request carries ${JSON.stringify(part)}`);
      assert.notEqual(
        modelOf(critic[0]),
        modelOf(planner),
        "the critic runs at plan.criticTier, not the planner's",
      );
      // Its write in the tree was refused (the tree is read-only to it), and it went on to answer.
      assert.deepEqual(
        critic.map((r) => r.answered),
        ["write", "write", "final"],
        `the critic's steps: ${critic.map((r) => r.answered).join(", ")}`,
      );
      assert.ok(!existsSync(join(run.root, CRITIC_PROBE)), "the critic wrote nothing in the tree");
      const refused = refusal(critic[1] as Recorded);
      t.diagnostic(`the CLI told the model its write in the tree did: ${refused.slice(0, 300)}`);
      assert.match(
        refused,
        /read-only|EROFS|permission denied|not permitted|failed to write|FileSystem\.writeFile/i,
      );
    });

    it("a binding objection rebutted with inference only: exit 1, prd.json unchanged", async (t) => {
      const why = await unavailable(mode);
      if (why) return t.skip(why);
      const run = await plan(planRound(REBUT_BY_INFERENCE));
      assert.equal(run.code, 1, said(run));
      assert.deepEqual(turnsPlayed(run), ["plan", "critic", "reply"], said(run));
      assert.ok(readFileSync(prdPath(run.root)).equals(run.prdBefore), "prd.json byte-identical");
      assert.match(run.stderr, /OBJ-1 \[feasibility\] R-1 \(binding\) blocks/);
      assert.match(run.stderr, /rebutted with inference only/);
      assert.match(run.stderr, /the critique blocks this plan; .*prd\.json is unchanged/);
      assert.ok(!existsSync(join(featureDir(run.root), "plan-critique.json")));
      assert.deepEqual(
        planLedger(run.root).map((e) => [e.gate, e.verdict]),
        [["plan-critique", "fail"]],
      );
    });
  });
}

/** What the CLI told the model its last tool call did. */
const refusal = (request: Recorded) => toolResults(request).at(-1) ?? "(no tool result)";
