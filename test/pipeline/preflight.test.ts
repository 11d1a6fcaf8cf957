import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { type ConfigInput, ConfigSchema } from "../../src/config/schema.js";
import { type PreflightInput, preflight } from "../../src/pipeline/preflight.js";
import { git, gitRepo } from "./run-context.js";

const PRD = ".gantry/features/f/prd.json";
const GOOD_AGENT = { default: "command", command: { run: "node agent.mjs" } };
const TESTS = { commands: { test: "node --test" } };

/** A repository with feature f (US-2 "dependsOn" US-1) and the given config. */
function project(config: ConfigInput, files: Record<string, string> = {}) {
  const root = gitRepo({
    [PRD]: JSON.stringify({
      userStories: [
        { id: "US-1", title: "one" },
        { id: "US-2", title: "two", dependsOn: ["US-1"] },
      ],
    }),
    ...files,
  });
  const input = (extra: Partial<PreflightInput> = {}): PreflightInput => ({
    root,
    config: ConfigSchema.parse(config),
    configFile: ".gantry/config.json",
    prds: [{ feature: "f", path: join(root, PRD), display: PRD }],
    ...extra,
  });
  return { root, input };
}

const problems = (report: { problems: { message: string }[] }) => report.problems.map((p) => p.message);

describe("the pre-flight", { concurrency: 3 }, () => {
  it("passes a sound project, warns about a misspelt-looking key, and writes nothing", async () => {
    const { root, input } = project({ agent: GOOD_AGENT, quality: TESTS });
    const report = await preflight(input());
    assert.deepEqual(problems(report), []);
    assert.equal(report.stories, 2);
    assert.deepEqual(report.warnings, [
      `warning: ${PRD}: userStories[1].dependsOn: unknown key "dependsOn"; did you mean "dependencies"? (kept in the file, but gantry does not read it)`,
    ]);
    assert.deepEqual(
      report.reporters.map((r) => r.name),
      ["default"],
    );
    assert.ok(report.passed.includes("agent command: runs: node agent.mjs"), report.passed.join("\n"));
    assert.ok(report.passed.includes("git: on branch main"));
    assert.ok(report.passed.some((l) => l.startsWith("sandbox: ")));
    assert.deepEqual(readdirSync(join(root, ".gantry")), ["features"], "no runs directory, no lock");
    assert.equal(git(root, "status", "--porcelain"), "");

    const strict = await preflight(input({ strict: true }));
    assert.deepEqual(problems(strict), [
      `${PRD}: userStories[1].dependsOn: unknown key "dependsOn"; did you mean "dependencies"? (--strict)`,
    ]);
  });

  it("collects every problem, each naming the file and the place", async () => {
    const { input } = project({
      agent: { default: "claud" },
      quality: { commands: { test: "nosuch-runner --all", lint: "./tools/lint.sh" } },
      reporters: ["default", "junti"],
    });
    const found = problems(await preflight(input()));
    assert.equal(found.length, 4, found.join("\n"));
    assert.match(
      found[0] ?? "",
      /^\.gantry\/config\.json: agent\.default: unknown agent "claud"; expected one of command, claude, /,
    );
    assert.match(
      found[1] ?? "",
      /^\.gantry\/config\.json: reporters\[1\]: reporter "junti": unknown reporter/,
    );
    assert.match(
      found[2] ?? "",
      /^\.gantry\/config\.json: quality\.commands\.test: cannot run: .*nosuch-runner: not found$/,
    );
    assert.equal(
      found[3],
      ".gantry/config.json: quality.commands.lint: cannot run: ./tools/lint.sh: not found",
    );
  });

  it("reporters from the command line are named as such; a plugin that fails hides the agent it may give", async () => {
    const { input } = project({
      agent: { default: "from-plugin" },
      quality: TESTS,
      plugins: ["./plugins/missing.mjs"],
    });
    const { CLI_ORIGIN } = await import("../../src/reporters/loader.js");
    const found = problems(await preflight(input({ reporters: { entries: ["nope"], origin: CLI_ORIGIN } })));
    assert.equal(found.length, 2, found.join("\n"));
    assert.match(found[0] ?? "", /^\.gantry\/config\.json: plugins\[0\]: .*was not found/);
    assert.match(found[1] ?? "", /^command line: --reporter\[0\]: reporter "nope"/);
  });

  it("no test command while verify is mandatory is a problem; without verify mandatory it is not", async () => {
    const { input } = project({ agent: GOOD_AGENT });
    assert.deepEqual(problems(await preflight(input())), [
      ".gantry/config.json: quality.commands.test: not set; expected the command that runs the project's tests (verify is a mandatory gate, so no story could pass)",
    ]);
    const reviewOnly = project({ agent: GOOD_AGENT, gates: { mandatory: ["review"] } });
    assert.deepEqual(problems(await preflight(reviewOnly.input())), []);
  });

  it("git: outside a repository, and on a detached HEAD", async () => {
    const outside = mkdtempSync(join(tmpdir(), "gantry-no-git-"));
    const config = ConfigSchema.parse({ agent: GOOD_AGENT, quality: TESTS });
    const report = await preflight({ root: outside, config, configFile: "c.json", prds: [] });
    assert.equal(report.problems.length, 1);
    assert.match(
      report.problems[0]?.message ?? "",
      /^.*gantry-no-git-\w+: git: not a git repository; .*`git init && git add -A && git commit -m start`$/,
    );

    const { root, input } = project({ agent: GOOD_AGENT, quality: TESTS });
    git(root, "checkout", "-q", "--detach");
    assert.match(
      problems(await preflight(input())).join("\n"),
      /: git: HEAD is detached; check out a branch/,
    );
  });

  it('agent.sandbox "bwrap" without bubblewrap on PATH is a problem; "auto" only reports it', async () => {
    const bin = mkdtempSync(join(tmpdir(), "gantry-path-"));
    symlinkSync(process.execPath, join(bin, "node"));
    const env = { ...process.env, PATH: bin };
    const required = project({ agent: { ...GOOD_AGENT, sandbox: "bwrap" }, quality: TESTS });
    assert.deepEqual(problems(await preflight(required.input({ env }))), [
      '.gantry/config.json: agent.sandbox: "bwrap" is required, but bwrap not found; install bubblewrap or set "auto" or "off"',
    ]);
    const auto = project({ agent: GOOD_AGENT, quality: TESTS });
    const report = await preflight(auto.input({ env }));
    assert.deepEqual(problems(report), []);
    assert.ok(
      report.passed.includes(
        'sandbox: not available (bwrap not found): agent.sandbox "auto" runs sessions unsandboxed',
      ),
    );
  });

  it("a plugin's agent is a known agent.default; the plugins are handed on, so the run does not load them again", async () => {
    const { input, root } = project({
      agent: { default: "from-plugin" },
      quality: TESTS,
      plugins: ["./plugins/agent.mjs"],
    });
    mkdirSync(join(root, "plugins"));
    writeFileSync(
      join(root, "plugins/agent.mjs"),
      `export default () => ({
  name: "mine",
  provides: ["agent"],
  agents: [{ name: "from-plugin", create: () => ({ name: "from-plugin", modelFor: () => "m", run: async () => ({}) }) }],
});`,
    );
    const report = await preflight(input());
    assert.deepEqual(problems(report), []);
    assert.ok(report.passed.includes("agent from-plugin: no executable to check (a plugin's adapter)"));
    assert.deepEqual(
      report.plugins.agents.map((a) => a.name),
      ["from-plugin"],
    );
  });
});
