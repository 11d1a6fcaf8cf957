import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { sandboxSupport } from "../../src/process/sandbox.js";
import { chaosConfig, moduleWithTest, QUICK_CHECK } from "../chaos/project.js";
import { gantry, git, lastRun, makeProject, prdStories, REPO, story, TEST_STATE_HOME } from "./harness.js";

const AGENT = join(REPO, "test", "e2e", "fixtures", "scripted-agent.mjs");
const HUNTER = join(REPO, "test", "e2e", "fixtures", "scratch-hunter.mjs");
/** The story check: the app is broken when anything put `src/poison` into the checkout it judges. */
const SMOKE = 'sleep 2\nif [ -e src/poison ]; then echo "poisoned checkout" >&2; exit 1; fi\necho smoke ok\n';

const support = await sandboxSupport();
const noBwrap = support.works ? false : `bwrap does not work here: ${support.reason}`;
if (noBwrap) console.log(`# skipping: ${noBwrap}`);

const scratch = mkdtempSync(join(tmpdir(), "gantry-e2e-hostile-parallel-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * `--parallel 2`, sandbox on: story A's session hunts, for as long as story B is judged, for gantry's scratch
 * checkouts of the repository (in /tmp, $TMPDIR and the run's state folder) and writes into every one it
 * finds what makes B's story check fail there. The checkouts live where no session sees them: A finds none,
 * and B's verdicts are its own.
 */
describe("a session of one worker against the scratch checkouts of another (built CLI)", {
  timeout: 400_000,
}, () => {
  it("finds none of them and changes nothing of the other story's verdict", { skip: noBwrap }, async () => {
    const config = chaosConfig({
      agent: { timeoutSeconds: 240, command: { run: `node ${JSON.stringify(AGENT)}` }, sandbox: "bwrap" },
    });
    Object.assign(config.quality.commands, { smoke: "sh tools/smoke.sh" });
    const root = makeProject({
      stories: [story("A"), story("B")],
      plan: {},
      config,
      files: { "tools/check.sh": QUICK_CHECK, "tools/smoke.sh": SMOKE },
    });
    const hunt = [HUNTER, root, TEST_STATE_HOME, "B", "hunt-report.json"].map((w) => JSON.stringify(w));
    const plan = {
      A: [{ write: moduleWithTest("ma", 2), sh: `node ${hunt.join(" ")}` }],
      B: [{ write: moduleWithTest("mb", 2) }],
    };
    const agentHome = mkdtempSync(join(scratch, "agent-"));
    writeFileSync(join(agentHome, ".agent-plan.json"), JSON.stringify(plan));
    const result = await gantry(root, ["run", "-f", "f", "--parallel", "2"], {
      env: { SCRIPTED_AGENT_HOME: agentHome, SCRIPTED_AGENT_SH_TIMEOUT_MS: "200000" },
      timeoutMs: 380_000,
    });
    assert.equal(result.code, 0, result.stderr.slice(-3000));
    assert.equal(prdStories(root).A?.status, "passed");
    assert.equal(prdStories(root).B?.status, "passed");

    const checks = lastRun(root).ledger.filter((l) => l.storyId === "B" && l.gate === "story-check");
    assert.ok(
      checks.some((l) => (l.detail as { phase?: string }).phase === "exit"),
      JSON.stringify(checks),
    );
    for (const check of checks) assert.equal(check.verdict, "pass", JSON.stringify(check));

    const report = JSON.parse(git(root, "show", "HEAD:hunt-report.json")) as {
      rounds: number;
      found: string[];
      wrote: number;
    };
    assert.ok(report.rounds > 0, "the hunt ran while B was judged");
    assert.deepEqual(report.found, [], "no scratch checkout of the repository was visible to the session");
    assert.equal(report.wrote, 0);
  });
});
