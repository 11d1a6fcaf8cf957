import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { CLI, cliEnvironment, gantry, makeProject, passingTest, runDirs, story } from "../e2e/harness.js";

const module = (name: string) => ({
  [`src/${name}.js`]: `export const ${name} = 2;\n`,
  [`test/${name}.test.js`]: passingTest(
    name,
    `const { ${name} } = await import("../src/${name}.js");\n  assert.equal(${name}, 2);`,
  ),
});

/** Starts `gantry logs --follow` and resolves with what it printed once it exits by itself. */
function follow(root: string, args: string[]): Promise<{ code: number | null; stdout: string; at: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, "logs", "--follow", ...args], {
      cwd: root,
      env: cliEnvironment(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, at: Date.now() });
    });
  });
}

describe("gantry logs (built CLI)", { timeout: 90_000 }, () => {
  it("prints the newest run's lines, follows a live run until it ends, and refuses an unknown run", async () => {
    const root = makeProject({
      stories: [story("US-1"), story("US-2")],
      plan: {
        "US-1": [{ write: module("alpha"), sleepMs: 600 }],
        "US-2": [{ write: module("beta"), sleepMs: 600 }],
      },
    });
    const empty = await gantry(root, ["logs"]);
    assert.equal(empty.code, 0);
    assert.match(empty.stdout, /no runs under \.gantry\/runs\/ yet/);

    const running = gantry(root, ["run", "--feature", "f"]);
    // Follow from before the run directory exists would find nothing: wait for the run to start.
    let followed: Awaited<ReturnType<typeof follow>> | undefined;
    for (let i = 0; i < 100 && !followed; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const started = runDirs(root).some((dir) => existsSync(join(dir, "events.jsonl")));
      if (started) followed = await follow(root, ["-f", "f"]);
    }
    const run = await running;
    const finished = Date.now();
    assert.equal(run.code, 0, run.stderr);
    assert.ok(followed, "the run started");
    assert.equal(followed.code, 0);
    assert.ok(followed.at - finished < 5_000, "--follow ended with the run");
    assert.match(followed.stdout, /^\[\d\d:\d\d:\d\d\] run \S+: feature f, 2 stories$/m);
    assert.match(followed.stdout, /US-1 PASSED/);
    assert.match(followed.stdout, /US-2 PASSED/);
    assert.match(followed.stdout, /run complete: 2 passed/);

    const again = await gantry(root, ["logs", "--feature", "f"]);
    assert.equal(again.stdout, followed.stdout, "the same lines from the files of the finished run");
    const json = await gantry(root, ["logs", "--json"]);
    const events = json.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    assert.equal(events[0].type, "run:start");
    assert.equal(events.at(-1).type, "run:complete");

    const other = await gantry(root, ["logs", "-f", "nothing-here"]);
    assert.match(other.stdout, /no runs .* for feature nothing-here/);
    const bad = await gantry(root, ["logs", "--run", "../etc"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--run.*no run "\.\.\/etc"/);
  });
});
