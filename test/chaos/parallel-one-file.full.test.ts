import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  type AgentSession,
  gantry,
  git,
  makeProject,
  passingTest,
  prdStories,
  REPO,
  story,
} from "../e2e/harness.js";
import { chaosConfig, NODE_RUNNER, NODE_TESTS } from "./project.js";

const AGENT = join(REPO, "test", "e2e", "fixtures", "scripted-agent.sh");
const IDS = ["S1", "S2", "S3", "S4", "S5", "S6"];
const trials = Math.max(1, Number.parseInt(process.env.GANTRY_ONE_FILE_TRIALS ?? "1", 10) || 1);

/** lib.mjs: one function a story, far enough apart that git merges any two edits of them cleanly. */
const lib = IDS.map((id) => `export function ${id.toLowerCase()}() {\n  // ${id}\n  return 0;\n}\n`).join(
  "\n",
);

/** Story Sn changes its own function in lib.mjs in place and adds its own node test of it. */
function session(id: string, n: number): AgentSession {
  const name = id.toLowerCase();
  return {
    sh: `sed -i '/\\/\\/ ${id}$/{n;s/return 0;/return ${n};/}' lib.mjs`,
    write: {
      [`test/${name}.test.js`]: passingTest(
        name,
        `const { ${name} } = await import("../lib.mjs");\n  assert.equal(${name}(), ${n});`,
      ),
    },
  };
}

describe("six stories, each changing its own function in one shared file, at --parallel 3", () => {
  for (let trial = 1; trial <= trials; trial++) {
    it(`trial ${trial}: every story merged, exit 0`, async () => {
      const config = chaosConfig({ agent: { command: { run: `sh ${JSON.stringify(AGENT)}` } } });
      Object.assign(config.quality.commands, NODE_TESTS, { lint: "true", lintFix: undefined });
      const plan = Object.fromEntries(IDS.map((id, i) => [id, [session(id, i + 1)]]));
      const root = makeProject({
        stories: IDS.map((id) => story(id)),
        plan,
        config,
        files: { "lib.mjs": lib, "tools/run-tests.mjs": NODE_RUNNER },
      });
      const run = await gantry(root, ["run", "--feature", "f", "--parallel", "3"], {
        env: { SCRIPTED_AGENT_HOME: root },
        timeoutMs: 300_000,
      });
      assert.equal(run.code, 0, `${root}\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`);
      const stories = prdStories(root);
      for (const id of IDS) assert.equal(stories[id]?.status, "passed", id);
      const head = git(root, "show", "HEAD:lib.mjs");
      for (const [i, id] of IDS.entries()) assert.match(head, new RegExp(`// ${id}\\n  return ${i + 1};`));
      assert.equal(git(root, "status", "--porcelain"), "");
      assert.equal(git(root, "worktree", "list").trim().split("\n").length, 1);
    });
  }
});
