import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { sandboxSupport } from "../../src/process/sandbox.js";
import {
  chaosConfig,
  chaosProject,
  markedProcesses,
  reapMarked,
  startGantry,
  waitFor,
} from "../chaos/harness.js";
import { baseConfig, gantry, git, lastRun, makeProject, passingTest, prdStories, story } from "./harness.js";

/**
 * Agent sessions under bubblewrap, through the built CLI: a hostile agent cannot write .git/ or .gantry/
 * while its honest edits land; what a session starts with setsid does not outlive it, sandbox or not;
 * a required sandbox that does not work here stops the run before it writes anything.
 */

const support = await sandboxSupport();
const noBwrap = support.works ? false : `bwrap does not work here: ${support.reason}`;
if (noBwrap) console.log(`# skipping the sandboxed runs: ${noBwrap}`);

const scratch = mkdtempSync(join(tmpdir(), "gantry-e2e-sandbox-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** The honest half of every agent here: a module and the test that checks it. */
const TOTAL = "export function total(a, b) {\n  return a + b;\n}\n";
const TOTAL_TEST = passingTest(
  "total",
  'const { total } = await import("../src/total.js");\n  assert.equal(total(2, 3), 5);',
);

/** A shell agent that writes `script`'s effects; its own observations go to a log outside the tree. */
function shellAgent(name: string, script: string): { run: string; log: string } {
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  const log = join(dir, "agent.log");
  const path = join(dir, "agent.sh");
  writeFileSync(
    path,
    `#!/bin/sh\nLOG=${JSON.stringify(log)}\ncat >/dev/null\n${script}\nmkdir -p src test\n` +
      `cat > src/total.js <<'EOF'\n${TOTAL}EOF\ncat > test/total.test.js <<'EOF'\n${TOTAL_TEST}EOF\n`,
  );
  return { run: `sh ${JSON.stringify(path)}`, log };
}

function project(agentRun: string, sandbox: string, files: Record<string, string> = {}): string {
  const config = baseConfig();
  config.agent = { ...(config.agent as object), sandbox, command: { run: agentRun } };
  return makeProject({ stories: [story("US-1")], plan: {}, config, files });
}

describe("sandboxed agent sessions (built CLI)", () => {
  it('agent.sandbox "bwrap": writes to .git/hooks, .git/config and prd.json fail; the tree edits land and the story passes', {
    skip: noBwrap,
  }, async () => {
    const agent = shellAgent(
      "hostile",
      [
        `printf '#!/bin/sh\\nexit 0\\n' > .git/hooks/pre-commit 2>/dev/null && echo wrote-hook >> "$LOG" || echo blocked-hook >> "$LOG"`,
        `printf '[core]\\n\\thooksPath = /tmp\\n' >> .git/config 2>/dev/null && echo wrote-config >> "$LOG" || echo blocked-config >> "$LOG"`,
        `for prd in .gantry/features/*/prd.json; do echo '{"tampered":true}' > "$prd" 2>/dev/null && echo wrote-prd >> "$LOG" || echo blocked-prd >> "$LOG"; done`,
      ].join("\n"),
    );
    const root = project(agent.run, "bwrap");
    const gitConfig = readFileSync(join(root, ".git", "config"), "utf8");
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(readFileSync(agent.log, "utf8").trim().split("\n"), [
      "blocked-hook",
      "blocked-config",
      "blocked-prd",
    ]);
    assert.equal(existsSync(join(root, ".git", "hooks", "pre-commit")), false);
    assert.equal(readFileSync(join(root, ".git", "config"), "utf8"), gitConfig);
    assert.doesNotMatch(readFileSync(join(root, ".gantry/features/f/prd.json"), "utf8"), /tampered/);
    assert.equal(prdStories(root)["US-1"]?.status, "passed");
    const committed = git(root, "show", "--name-only", "--format=", "HEAD").trim().split("\n");
    for (const file of ["src/total.js", "test/total.test.js"]) assert.ok(committed.includes(file), file);
    assert.match(readFileSync(join(lastRun(root).dir, "run.log"), "utf8"), /agent sessions run under bwrap/);
  });

  it('an honest scripted agent passes under agent.sandbox "bwrap"', { skip: noBwrap }, async () => {
    const root = makeProject({
      stories: [story("US-1")],
      plan: { "US-1": [{ write: { "src/total.js": TOTAL, "test/total.test.js": TOTAL_TEST } }] },
      config: { ...baseConfig(), agent: { ...(baseConfig().agent as object), sandbox: "bwrap" } },
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(prdStories(root)["US-1"]?.status, "passed");
    assert.equal(result.stderr.includes("sandbox not available"), false);
  });

  for (const sandbox of ["bwrap", "off"]) {
    it(`agent.sandbox "${sandbox}": a setsid process the agent starts does not outlive its session`, {
      skip: sandbox === "bwrap" ? noBwrap : false,
    }, async () => {
      const mark = `leftover-${sandbox}-${process.pid}-${Date.now()}`;
      const agent = shellAgent(
        `setsid-${sandbox}`,
        `LEFTOVER_MARK=${mark} setsid sleep 60 </dev/null >/dev/null 2>&1 &\nsleep 0.2\necho started >> "$LOG"`,
      );
      // The project's own test fails while the agent's helper lives: verify runs right after the session.
      const leftoverTest = passingTest(
        "no leftover",
        `const { readdirSync, readFileSync } = await import("node:fs");\n  const alive = readdirSync("/proc").filter((p) => {\n    try { return /^\\d+$/.test(p) && readFileSync(\`/proc/\${p}/environ\`, "latin1").includes("LEFTOVER_MARK=${mark}") && !/\\) [ZX] /.test(readFileSync(\`/proc/\${p}/stat\`, "latin1")); } catch { return false; }\n  });\n  assert.deepEqual(alive, []);`,
      );
      const root = project(agent.run, sandbox, { "test/leftover.test.js": leftoverTest });
      const chaosMark = `${mark}-env`;
      const result = await gantry(root, ["run", "--feature", "f"], {
        env: { GANTRY_CHAOS_MARKER: chaosMark },
      });
      const left = await reapMarked(chaosMark);
      assert.equal(readFileSync(agent.log, "utf8").trim(), "started");
      assert.deepEqual(left, [], "a process of the run is still alive after it");
      assert.equal(result.code, 0, result.stderr + result.stdout);
      assert.equal(prdStories(root)["US-1"]?.status, "passed");
    });
  }

  it("under the sandbox a SIGKILLed gantry takes its agent session with it (no orphan to stop later)", {
    skip: noBwrap,
  }, async () => {
    const marker = `sandbox-orphan-${process.pid}-${Date.now()}`;
    const config = chaosConfig({ agent: { sandbox: "bwrap" } });
    const root = chaosProject({ config, plan: { "US-1": [{ sleepMs: 30_000 }] } });
    const running = startGantry(root, ["run", "--feature", "f"], { env: { GANTRY_CHAOS_MARKER: marker } });
    // The agent's own sleep, inside the sandbox: bwrap is set up by then (its die-with-parent armed).
    await waitFor("the agent session", () => markedProcesses(marker).some((p) => p.cmdline === "sleep 30"));
    running.child.kill("SIGKILL");
    await running.done;
    const left = await reapMarked(marker, 2000);
    assert.deepEqual(
      left.map((p) => p.cmdline),
      [],
      "the agent session outlived the SIGKILLed gantry",
    );
  });

  it('agent.sandbox "bwrap" without bwrap on PATH: exit 2, one line, nothing written', async () => {
    const bin = join(scratch, "path-without-bwrap");
    mkdirSync(bin, { recursive: true });
    symlinkSync("/usr/bin/git", join(bin, "git"));
    // What the agent and the test command start, so the pre-flight finds only the sandbox missing.
    symlinkSync("/bin/sh", join(bin, "sh"));
    symlinkSync(process.execPath, join(bin, "node"));
    const agent = shellAgent("never-runs", 'echo ran >> "$LOG"');
    const root = project(agent.run, "bwrap");
    const prd = readFileSync(join(root, ".gantry/features/f/prd.json"), "utf8");
    const head = git(root, "rev-parse", "HEAD");
    const result = await gantry(root, ["run", "--feature", "f"], { env: { PATH: bin } });
    assert.equal(result.code, 2, result.stderr);
    assert.equal(
      result.stderr,
      'gantry: .gantry/config.json: agent.sandbox: "bwrap" is required, but bwrap not found; install bubblewrap or set "auto" or "off" [GANTRY_E_CONFIG]\n',
    );
    assert.equal(existsSync(join(root, ".gantry", "runs")), false, "no run directory");
    assert.equal(existsSync(agent.log), false, "the agent never ran");
    assert.equal(readFileSync(join(root, ".gantry/features/f/prd.json"), "utf8"), prd);
    assert.equal(git(root, "rev-parse", "HEAD"), head);
    assert.equal(git(root, "status", "--porcelain"), "");
    assert.equal(existsSync(join(root, ".gantry", "lock")), false, "the lock is released");
  });
});
