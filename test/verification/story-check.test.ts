import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ConfigSchema } from "../../src/config/schema.js";
import { runStoryChecks } from "../../src/verification/story-check.js";

const dir = mkdtempSync(join(tmpdir(), "gantry-story-check-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function alive(marker: string): string[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    });
}

const run = (commands: Record<string, unknown>) =>
  runStoryChecks({
    config: ConfigSchema.parse({ quality: { commands, timeoutSeconds: 20 } }),
    cwd: dir,
    signal: new AbortController().signal,
  });

describe("the story checks", () => {
  it("pass a server that never exits once it prints the pattern, and kill it and its detached helper", async () => {
    const marker = `story-check-unit-${randomUUID()}`;
    writeFileSync(
      join(dir, "server.mjs"),
      [
        'import { spawn } from "node:child_process";',
        `spawn(process.execPath, ["-e", "/*${marker}*/ setInterval(() => {}, 1000)"], { detached: true, stdio: "ignore" }).unref();`,
        `setInterval(() => {}, 1000); setTimeout(() => console.log("listening ${marker}"), 100);`,
      ].join("\n"),
    );
    const [demo] = await run({ demo: { run: "node server.mjs", expect: "listening", timeoutSeconds: 15 } });
    assert.equal(demo?.success, true, demo?.output);
    assert.equal(demo?.matched, true);
    assert.ok((demo?.durationMs ?? 0) < 10_000, `took ${demo?.durationMs} ms`);
    // SIGKILL is sent when the check ends; on a loaded machine dying takes a moment.
    for (let waited = 0; waited < 3000 && alive(marker).length > 0; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(alive(marker), []);
  });

  it("judge by exit code without a pattern, and run every configured check in order", async () => {
    const checks = await run({ build: "true", smoke: "echo smoke >&2; exit 3" });
    assert.deepEqual(
      checks.map((c) => [c.name, c.success, c.exitCode]),
      [
        ["build", true, 0],
        ["smoke", false, 3],
      ],
    );
    assert.match(checks[1]?.output ?? "", /smoke/);
  });

  it("fail a command that exits 0 without printing the pattern, and one that times out", async () => {
    const [build, demo] = await run({
      build: { run: "echo compiled", expect: "built ok" },
      demo: { run: "sleep 30", expect: "up", timeoutSeconds: 1 },
    });
    assert.equal(build?.success, false);
    assert.match(build?.output ?? "", /never matched \/built ok\//);
    assert.equal(demo?.success, false);
    assert.equal(demo?.timedOut, true);
    assert.match(demo?.output ?? "", /timed out after 1 s without printing \/up\//);
  });

  it("reject a pattern that is not a regular expression in the config", () => {
    const parsed = ConfigSchema.safeParse({ quality: { commands: { demo: { run: "x", expect: "(" } } } });
    assert.equal(parsed.success, false);
  });
});
