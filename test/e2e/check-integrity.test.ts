import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REASONED } from "../../src/verification/strategies/test-integrity.js";
import { baseConfig, gantry, git, lastRun, makeProject, prdStories, story } from "./harness.js";

/**
 * An agent that makes Biome's lint pass by suppressing the rule instead of fixing the code: its first
 * session writes `src/<story>.js` with a `let` that is never reassigned (useConst is an error in the e2e
 * projects), the lint reports it, and every later session puts a `// biome-ignore lint/style/useConst`
 * over it: a suppression of exactly what the gate reported. US-1 has no criterion that allows it, US-2
 * names the file and says "suppress". US-3 writes the same specific suppression in its first session,
 * before any check failed: a reasoned suppression in production code, shown with the verdict.
 */
describe("test-integrity: a lint suppression the agent adds, end to end", () => {
  it("silencing what the lint reported fails the story; a criterion can allow it; a reasoned one up front passes, shown", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gantry-suppress-"));
    const agent = join(dir, "agent.mjs");
    const log = join(dir, "prompts.jsonl");
    writeFileSync(
      agent,
      [
        'import { appendFileSync, readFileSync, writeFileSync } from "node:fs";',
        'const prompt = readFileSync(0, "utf8");',
        "const id = process.env.GANTRY_STORY_ID;",
        "const role = process.env.GANTRY_ROLE;",
        `appendFileSync(${JSON.stringify(log)}, JSON.stringify({ id, role, prompt }) + "\\n");`,
        'const silence = role !== "implement" || id === "US-3";',
        'writeFileSync("src/" + id + ".js", [',
        '  ...(silence ? ["// biome-ignore lint/style/useConst: it is fine"] : []),',
        '  "let answer = 42;",',
        '  "export const feature = () => answer;",',
        '  "",',
        '].join("\\n"));',
      ].join("\n"),
    );
    const config = baseConfig();
    config.agent = {
      default: "command",
      timeoutSeconds: 30,
      command: { run: `node ${JSON.stringify(agent)}` },
    };
    config.execution = { ...(config.execution as object), rectify: { enabled: true, maxAttempts: 1 } };
    config.routing = { tiers: ["fast"] };
    // No lintFix: Biome would turn the `let` into a `const` itself; the agent's session is what autofix runs.
    delete (config.quality as { commands: Record<string, string> }).commands.lintFix;
    const allowing = "Suppress the useConst lint rule in src/US-2.js: the value is set by a later story";
    const root = makeProject({
      stories: [
        story("US-1"),
        story("US-2", { acceptanceCriteria: ["US-2 works", allowing] }),
        story("US-3"),
      ],
      plan: {},
      config,
    });
    const baseline = git(root, "rev-parse", "HEAD").trim();
    // The lint the run uses fails on this code without the comment and passes with it (in a copy, outside the repository).
    const lint = (config.quality as { commands: { lint: string } }).commands.lint;
    const probe = join(dir, "probe");
    mkdirSync(join(probe, "src"), { recursive: true });
    writeFileSync(join(probe, "biome.json"), readFileSync(join(root, "biome.json")));
    const code = "let answer = 42;\nexport const feature = () => answer;\n";
    writeFileSync(join(probe, "src/a.js"), code);
    assert.notEqual(spawnSync(lint, { cwd: probe, shell: true }).status, 0, "useConst fails the lint");
    writeFileSync(join(probe, "src/a.js"), `// biome-ignore lint/style/useConst: it is fine\n${code}`);
    assert.equal(spawnSync(lint, { cwd: probe, shell: true }).status, 0, "the suppression makes it pass");

    const result = await gantry(root, ["run", "--feature", "f"], { timeoutMs: 180_000 });
    assert.equal(result.code, 1, result.stderr + result.stdout);
    const stories = prdStories(root);
    assert.equal(stories["US-1"]?.status, "failed");
    assert.equal(stories["US-2"]?.status, "passed");
    assert.equal(stories["US-3"]?.status, "passed");

    const { ledger } = lastRun(root);
    const integrity = (id: string) => ledger.filter((e) => e.gate === "test-integrity" && e.storyId === id);
    const us1 = integrity("US-1").filter((e) => e.verdict !== "not-applicable");
    assert.ok(us1.length > 0 && us1.every((e) => e.verdict === "fail"), JSON.stringify(us1));
    const findings = ((us1.at(-1)?.detail ?? {}) as { findings?: Record<string, unknown>[] }).findings ?? [];
    assert.deepEqual(
      findings.map((f) => [f.kind, f.file, f.line, f.evidence]),
      [
        [
          "suppression-added",
          "src/US-1.js",
          1,
          "new biome-ignore (biome), silencing lint/style/useConst, exactly what the lint / type check reported for this file: // biome-ignore lint/style/useConst: it is fine",
        ],
      ],
    );
    const calls = readFileSync(log, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: string; role: string; prompt: string });
    const rectify = calls.filter((c) => c.id === "US-1" && c.role === "rectify");
    assert.equal(rectify.length, 1, "one rectify, and the story failed when the agent kept the suppression");
    assert.match(rectify[0]?.prompt ?? "", /^# Fix what test-integrity found: US-1/m);
    assert.match(rectify[0]?.prompt ?? "", /src\/US-1\.js/);
    assert.match(rectify[0]?.prompt ?? "", /suppression-added/);
    assert.match(rectify[0]?.prompt ?? "", /Remove the lint \/ type-check suppressions you added/);
    assert.doesNotMatch(rectify[0]?.prompt ?? "", /Fix failing tests|The project's tests fail/);
    assert.doesNotMatch(
      result.stdout,
      /US-1[^\n]*TEST_FAILURE/,
      "no test failure is named: the tests passed",
    );
    assert.match(
      result.stdout,
      /US-1 rectify retry → verify: rectify attempt 1: test-integrity: src\/US-1\.js:1/,
    );
    assert.equal(git(root, "ls-tree", "HEAD", "src/US-1.js").trim(), "", "US-1's work was not committed");

    const allowedOf = (id: string) =>
      integrity(id)
        .filter((e) => e.verdict === "pass")
        .flatMap((e) => ((e.detail ?? {}) as { allowed?: Record<string, unknown>[] }).allowed ?? [])
        .map((a) => [a.kind, a.file, a.allowedBy]);
    assert.deepEqual(allowedOf("US-2"), [["suppression-added", "src/US-2.js", allowing]]);
    assert.deepEqual(allowedOf("US-3"), [["suppression-added", "src/US-3.js", REASONED]]);
    assert.equal(calls.filter((c) => c.id === "US-3" && c.role !== "implement").length, 0);
    assert.notEqual(git(root, "rev-parse", "HEAD").trim(), baseline, "US-2 and US-3 were committed");
    assert.match(git(root, "show", "HEAD:src/US-2.js"), /biome-ignore/);
    assert.match(git(root, "show", "HEAD:src/US-3.js"), /biome-ignore/);
    const check = await gantry(root, ["ledger", "check"]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });
});
