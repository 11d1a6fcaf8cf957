import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { chaosConfig, moduleWithTest, QUICK_CHECK } from "../chaos/project.js";
import { type AgentSession, gantry, git, lastRun, makeProject, prdStories, REPO, story } from "./harness.js";

const AGENT = join(REPO, "test", "e2e", "fixtures", "scripted-agent.mjs");

/**
 * A remote (a bare repository) seeded from a project, and the agent's plan where every clone's sessions
 * find it. Returns a function that makes a clone ("a runner").
 */
function remoteProject(
  stories: Record<string, unknown>[],
  plan: Record<string, AgentSession[]>,
  patch: Record<string, unknown> = {},
) {
  const config = {
    ...chaosConfig({ agent: { command: { run: `node ${JSON.stringify(AGENT)}` } } }),
    ...patch,
  };
  const seed = makeProject({ stories, plan: {}, config, files: { "tools/check.sh": QUICK_CHECK } });
  const place = mkdtempSync(join(tmpdir(), "gantry-shards-"));
  const remote = join(place, "remote.git");
  git(place, "init", "-q", "--bare", "-b", "main", remote);
  git(seed, "push", "-q", remote, "main");
  const home = mkdtempSync(join(tmpdir(), "gantry-shards-agent-"));
  writeFileSync(join(home, ".agent-plan.json"), JSON.stringify(plan));
  let clones = 0;
  const runner = () => {
    const dir = join(place, `runner-${++clones}`);
    git(place, "clone", "-q", remote, dir);
    git(dir, "config", "user.email", "ci@example.com");
    git(dir, "config", "user.name", "ci");
    return dir;
  };
  return { seed, remote, runner, env: { SCRIPTED_AGENT_HOME: home } };
}

describe("shards over CI runners, simulated: a bare repository as the remote, one clone a runner", () => {
  it("three runners each run their shard and push it; a fourth merges them: every story's commit once, ledger check passes", async () => {
    const stories = [
      story("A"),
      story("B", { dependencies: ["A"] }),
      story("C"),
      story("D"),
      story("E", { dependencies: ["D"] }),
      story("F"),
    ];
    const plan = Object.fromEntries(
      stories.map((s) => [s.id, [{ write: moduleWithTest(`m${s.id.toLowerCase()}`, 2) }]]),
    );
    const { seed, runner, env } = remoteProject(stories, plan);

    const planned = await gantry(seed, ["plan-shards", "--feature", "f", "--shards", "3", "--json"]);
    assert.equal(planned.code, 0, planned.stderr);
    const matrix = JSON.parse(planned.stdout) as {
      matrix: { include: { shard: string; stories: string }[] };
    };
    assert.deepEqual(
      matrix.matrix.include.map((row) => row.shard),
      ["1/3", "2/3", "3/3"],
    );
    // Dependency chains stay together: A with B, D with E.
    const shardOf = (id: string) =>
      matrix.matrix.include.find((row) => row.stories.split(" ").includes(id))?.shard;
    assert.equal(shardOf("A"), shardOf("B"));
    assert.equal(shardOf("D"), shardOf("E"));

    const results = await Promise.all(
      ["1/3", "2/3", "3/3"].map((shard) =>
        gantry(runner(), ["run", "--feature", "f", "--shard", shard], { env }),
      ),
    );
    for (const r of results) assert.equal(r.code, 0, r.stderr.slice(-2000));

    const merger = runner();
    const merged = await gantry(merger, ["merge-shards", "--feature", "f", "--shards", "3"], { env });
    assert.equal(merged.code, 0, merged.stderr.slice(-3000) + merged.stdout.slice(-1000));
    assert.match(merged.stdout, /every mandatory gate passed/);
    const subjects = git(merger, "log", "--format=%s").split("\n");
    for (const s of stories)
      assert.equal(
        subjects.filter((line) => line.startsWith(`gantry(${s.id}):`)).length,
        1,
        subjects.join(" | "),
      );
    for (const s of Object.values(prdStories(merger))) assert.equal(s.status, "passed");
    // Each shard's ledger travelled in its branch and is kept on the feature branch.
    const ledgers = git(merger, "ls-tree", "-r", "--name-only", "HEAD", ".gantry/ledgers/f")
      .trim()
      .split("\n");
    assert.deepEqual(ledgers.map((p) => /shard-(\d)-/.exec(p)?.[1]).sort(), ["1", "2", "3"]);
    assert.equal(git(merger, "status", "--porcelain"), "");
    const check = await gantry(merger, ["ledger", "check"]);
    assert.equal(check.code, 0, check.stdout);
  });

  it("two shards that conflict: the second is reported with its shard and story, not merged away", async () => {
    const same = (value: number) => ({
      "src/same.js": `export function same() {\n  return ${value};\n}\n`,
      ...moduleWithTest(`v${value}`, 2),
    });
    const stories = [story("P"), story("Q")];
    const { runner, env } = remoteProject(stories, { P: [{ write: same(1) }], Q: [{ write: same(2) }] });
    const results = await Promise.all(
      ["1/2", "2/2"].map((shard) => gantry(runner(), ["run", "--feature", "f", "--shard", shard], { env })),
    );
    for (const r of results) assert.equal(r.code, 0, r.stderr.slice(-2000));
    const merger = runner();
    const merged = await gantry(merger, ["merge-shards", "--feature", "f", "--shards", "2", "--json"], {
      env,
    });
    assert.equal(merged.code, 1, merged.stderr);
    // --json: exactly one JSON document on stdout, the run's outcome with the closing ledger check inside.
    const doc = JSON.parse(merged.stdout) as {
      exitCode: number;
      stories: { id: string; status: string }[];
      ledgerCheck: { ok: boolean; tree: string; gates: { gate: string; ok: boolean }[] };
    };
    assert.equal(merged.stdout.trim().split("\n").length, 1, merged.stdout);
    assert.equal(doc.exitCode, 1);
    assert.deepEqual(
      doc.stories.map((s) => `${s.id}:${s.status}`),
      ["P:passed", "Q:failed"],
    );
    // The branch as it stands (P merged, Q not) passes every mandatory gate.
    assert.equal(doc.ledgerCheck.ok, true, JSON.stringify(doc.ledgerCheck));
    assert.match(doc.ledgerCheck.tree, /^[0-9a-f]{40}$/);
    assert.ok(doc.ledgerCheck.gates.some((g) => g.gate === "verify" && g.ok));
    assert.match(
      merged.stderr,
      /shard 2 \(gantry\/f\/shard-2\) did not merge: merge conflict .* in src\/same\.js \(story Q\)/,
    );
    assert.match(git(merger, "show", "HEAD:src/same.js"), /return 1;/);
    const subjects = git(merger, "log", "--format=%s");
    assert.doesNotMatch(subjects, /gantry\(Q\):/);
    assert.equal(prdStories(merger).Q?.status, "failed");
    assert.equal(prdStories(merger).P?.status, "passed");
  });

  it("a shard's branch cannot pass another shard's story: merge-shards keeps to the plan of --shards K", async () => {
    const stories = [story("P"), story("Q")];
    const { runner, env } = remoteProject(stories, {
      P: [{ exit: 1 }],
      Q: [{ write: moduleWithTest("q", 2) }],
    });
    const runners = [runner(), runner()];
    const results = await Promise.all(
      ["1/2", "2/2"].map((shard, i) =>
        gantry(runners[i] as string, ["run", "--feature", "f", "--shard", shard], { env }),
      ),
    );
    assert.equal(results[0]?.code, 1, "P fails on its own shard");
    assert.equal(results[1]?.code, 0, results[1]?.stderr.slice(-2000));
    // Shard 2's agent (it has the CI's push rights) says P passed, on its own branch and on a third one.
    const hostile = runners[1] as string;
    const prd = join(hostile, ".gantry", "features", "f", "prd.json");
    const doc = JSON.parse(readFileSync(prd, "utf8")) as {
      userStories: { id: string; status: string; passes: boolean }[];
    };
    for (const s of doc.userStories) Object.assign(s, { status: "passed", passes: true });
    writeFileSync(prd, JSON.stringify(doc, null, 2));
    git(hostile, "commit", "-q", "-am", "P passed");
    git(
      hostile,
      "push",
      "-q",
      "--force",
      "origin",
      "HEAD:refs/heads/gantry/f/shard-2",
      "HEAD:refs/heads/gantry/f/shard-3",
    );
    const merger = runner();
    const merged = await gantry(merger, ["merge-shards", "--feature", "f", "--shards", "2"], { env });
    assert.match(merged.stderr, /gantry\/f\/shard-3 is not in the plan of 2 shard\(s\); not merged/);
    assert.match(
      merged.stderr,
      /gantry\/f\/shard-2 says P passed, which the plan gave to another shard; ignored/,
    );
    assert.notEqual(prdStories(merger).P?.status, "passed");
    assert.equal(prdStories(merger).Q?.status, "passed");
    assert.doesNotMatch(git(merger, "log", "--format=%s"), /gantry\(P\):/);
  });

  it("with readiness a mandatory gate, the merge job scores each shard's stories itself and carries the pass onto the merged tree", async () => {
    const stories = ["R", "S"].map((id) =>
      story(id, { acceptanceCriteria: [`m${id.toLowerCase()}() returns 2`] }),
    );
    const plan = Object.fromEntries(
      stories.map((s) => [s.id, [{ write: moduleWithTest(`m${s.id.toLowerCase()}`, 2) }]]),
    );
    const gates = { mandatory: ["verify", "review", "test-integrity", "readiness"] };
    const { runner, env } = remoteProject(stories, plan, { gates, readiness: { enabled: true } });
    const results = await Promise.all(
      ["1/2", "2/2"].map((shard) => gantry(runner(), ["run", "--feature", "f", "--shard", shard], { env })),
    );
    for (const r of results) assert.equal(r.code, 0, r.stderr.slice(-2000) + r.stdout.slice(-1000));
    const merger = runner();
    const merged = await gantry(merger, ["merge-shards", "--feature", "f", "--shards", "2"], { env });
    assert.equal(merged.code, 0, merged.stderr.slice(-3000) + merged.stdout.slice(-1000));
    for (const s of Object.values(prdStories(merger))) assert.equal(s.status, "passed");
    const run = lastRun(merger);
    const readiness = run.events.filter((e) => e.type === "readiness:result");
    // One score per shard by this job on the shard's tree, then carried onto the tree it merged into.
    for (const shard of ["shard-1", "shard-2"]) {
      const own = readiness.filter((e) => e.storyId === shard);
      assert.deepEqual(
        own.map((e) => [e.verdict, e.carriedFrom === undefined ? "scored" : "carried"]),
        [
          ["pass", "scored"],
          ["pass", "carried"],
        ],
        JSON.stringify(own),
      );
    }
    const check = await gantry(merger, ["ledger", "check"]);
    assert.equal(check.code, 0, check.stdout);
  });
});
