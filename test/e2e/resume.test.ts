import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  agentCalls,
  CLI,
  cliEnvironment,
  gantry,
  git,
  lastRun,
  makeProject,
  passingTest,
  prdStories,
} from "./harness.js";

const story = (id: string) => ({
  id,
  title: `Story ${id}`,
  description: id,
  acceptanceCriteria: ["works"],
  routing: { complexity: "simple" },
});
const files = (name: string) => ({
  [`src/${name}.js`]: `export const ${name} = 1;\n`,
  [`test/${name}.test.js`]: passingTest(name),
});

/** Starts a run and sends `signal` once the agent has begun a session of `storyId`. */
async function interruptDuring(
  root: string,
  storyId: string,
  signal: NodeJS.Signals,
): Promise<number | null> {
  const child = spawn(process.execPath, [CLI, "run", "--feature", "f"], {
    cwd: root,
    env: cliEnvironment(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Drained so gantry never blocks on a full pipe; what it prints is not needed here.
  child.stdout.resume();
  child.stderr.resume();
  // A wait, not a bound: on a loaded machine the stories before can take a minute.
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline && !agentCalls(root).some((c) => c.story === storyId)) {
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill(signal);
  return new Promise((resolve) => child.on("close", (code, sig) => resolve(code ?? (sig ? -1 : null))));
}

describe("resume", { concurrency: 2 }, () => {
  it("after SIGKILL, prd.json is valid and the next run finishes the rest without re-running passed stories", async () => {
    const root = makeProject({
      stories: [story("US-1"), story("US-2"), story("US-3")],
      plan: {
        "US-1": [{ write: files("one") }],
        "US-2": [{ write: files("two"), sleepMs: 20_000 }, { write: files("two") }],
        "US-3": [{ write: files("three") }],
      },
    });
    await interruptDuring(root, "US-2", "SIGKILL");
    const afterKill = JSON.parse(readFileSync(join(root, ".gantry/features/f/prd.json"), "utf8"));
    assert.equal(afterKill.userStories[0].status, "passed");
    assert.equal(afterKill.userStories[1].status, "in-progress");
    const resumed = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(resumed.code, 0, resumed.stderr + resumed.stdout);
    assert.match(resumed.stderr, /^gantry: resuming run \S+ \(stopped without finishing\) at US-2; /m);
    assert.deepEqual(
      Object.values(prdStories(root)).map((s) => s.status),
      ["passed", "passed", "passed"],
    );
    assert.equal(
      agentCalls(root).filter((c) => c.story === "US-1").length,
      1,
      "a passed story is never run again",
    );
    const subjects = git(root, "log", "--format=%s").trim().split("\n");
    assert.deepEqual(subjects, [
      "gantry(US-3): Story US-3",
      "gantry(US-2): Story US-2",
      "gantry(US-1): Story US-1",
      "baseline",
    ]);
  });

  it("Ctrl-C stops the run with exit 130, leaves the story paused with its work in the tree, and resume picks it up", async () => {
    const root = makeProject({
      stories: [story("US-1"), story("US-2")],
      plan: {
        "US-1": [{ write: files("one"), sleepMs: 120_000 }, { write: files("one") }],
        "US-2": [{ write: files("two") }],
      },
    });
    const started = Date.now();
    const code = await interruptDuring(root, "US-1", "SIGINT");
    assert.equal(code, 130);
    // Had gantry waited for the session it would take the session's 120 s: far above a busy machine's run.
    assert.ok(Date.now() - started < 100_000, "Ctrl-C waited for the agent session");
    assert.equal(prdStories(root)["US-1"]?.status, "paused");
    assert.match(
      readFileSync(join(root, "src/one.js"), "utf8"),
      /one = 1/,
      "the interrupted session's work is kept",
    );
    const interrupted = lastRun(root).dir.split("/").at(-1) as string;
    const resumed = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(resumed.code, 0, resumed.stderr + resumed.stdout);
    assert.match(
      resumed.stderr,
      new RegExp(
        `^gantry: resuming run ${interrupted} \\(interrupted\\) at US-1; the work done so far is still in the working tree`,
        "m",
      ),
    );
    const { dir, events } = lastRun(root);
    assert.equal(
      events.find((e) => e.type === "run:resume")?.reason,
      resumed.stderr.match(/resuming (.*)/)?.[0],
    );
    const prompt = (id: string) => readFileSync(join(dir, "prompts", `${id}-1-implement.md`), "utf8");
    assert.match(prompt("US-1"), /## Earlier work\n\nAn earlier run was stopped while working on this story/);
    assert.ok(!prompt("US-2").includes("## Earlier work"), "only the story left in flight is told");
    assert.deepEqual(
      Object.values(prdStories(root)).map((s) => s.status),
      ["passed", "passed"],
    );
  });
});
