import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { passingTest, prdStories } from "../e2e/harness.js";
import {
  type ChaosSession,
  chaosConfig,
  chaosProject,
  NODE_TESTS,
  runDirsOf,
  startGantry,
} from "./harness.js";

/**
 * Secrets never reach gantry's records: the values of variables named in `quality.stripEnv`, and of any
 * whose name ends in _KEY, _TOKEN or _SECRET or contains PASSWORD, must not appear in any file under
 * .gantry/runs/<id>/ (events, ledger, run log, state, prompts, reports) nor in a hook's payload, even
 * when the agent prints them and a test prints them and fails with them.
 */

const secret = (label: string) => `${label}-${randomBytes(9).toString("hex")}`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("secrets", () => {
  it("a secret the agent prints, a test prints and a failure message carries appears in no run file and no hook payload", async () => {
    const secrets: Record<string, string> = {
      CHAOS_API_KEY: secret("apikey"),
      CHAOS_GH_TOKEN: secret("token"),
      CHAOS_SIGNING_SECRET: secret("signing"),
      CHAOS_DB_PASSWORD: secret("password"),
      DATABASE_URL: `postgres://app:${secret("dburl")}@db/app`,
    };
    const values = Object.values(secrets);
    const hookDir = mkdtempSync(join(tmpdir(), "gantry-hooks-"));
    const payloads = join(hookDir, "payloads.jsonl");
    const config = chaosConfig({ execution: { rectify: { maxAttempts: 1 } } });
    // Real node tests here: they print the secrets and fail with them in the assertion's message.
    Object.assign(config.quality, { stripEnv: ["DATABASE_URL"] });
    Object.assign(config.quality.commands, NODE_TESTS);
    config.routing = { tiers: ["fast"] };
    const capture = `cat >> ${JSON.stringify(payloads)}; echo >> ${JSON.stringify(payloads)}`;
    config.hooks = Object.fromEntries(
      ["on-story-start", "on-story-complete", "on-story-fail", "on-complete", "on-error"].map((h) => [
        h,
        capture,
      ]),
    );
    // Tests print the secrets (the agent wrote them in) and one fails with them in its message.
    const printing = passingTest("prints", `console.log(${JSON.stringify(values.join(" "))});`);
    const failing = passingTest("fails", `assert.equal("wrong", ${JSON.stringify(values.join(" "))});`);
    const plan: Record<string, ChaosSession[]> = {
      "US-1": [
        {
          printEnv: Object.keys(secrets),
          // A lint finding that quotes the secret: lint prints the line, lintFix then deletes it.
          write: {
            "src/one.js": `export const one = 1;\n// LINT_ERROR ${secrets.CHAOS_API_KEY}\n`,
            "test/one.test.js": printing,
          },
        },
      ],
      "US-2": [
        {
          printEnv: Object.keys(secrets),
          write: { "src/two.js": "export const two = 2;\n", "test/two.test.js": failing },
        },
      ],
    };
    const root = chaosProject({ plan, config });
    const result = await startGantry(root, ["run", "--feature", "f"], { env: secrets }).done;
    assert.equal(prdStories(root)["US-1"]?.status, "passed", result.stdout + result.stderr);
    assert.equal(prdStories(root)["US-2"]?.status, "failed", result.stdout + result.stderr);

    const leaks: string[] = [];
    const scan = (path: string, shown: string) => {
      const text = readFileSync(path, "utf8");
      const found = Object.entries(secrets).filter(([, value]) => text.includes(value));
      if (found.length > 0) leaks.push(`${shown} (${found.map(([name]) => name).join(", ")})`);
    };
    for (const dir of runDirsOf(root)) for (const file of filesUnder(dir)) scan(file, relative(root, file));
    scan(payloads, "hook payloads");
    scan(join(root, ".gantry/features/f/prd.json"), ".gantry/features/f/prd.json");
    for (const stream of [result.stdout, result.stderr]) {
      if (values.some((v) => stream.includes(v))) leaks.push("gantry's own terminal output");
    }
    assert.deepEqual(leaks, []);
  });
});
