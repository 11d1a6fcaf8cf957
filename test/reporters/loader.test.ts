import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { InputError } from "../../src/config/input-error.js";
import {
  BUILTIN_REPORTERS,
  CLI_ORIGIN,
  loadReporters,
  type ReporterEntry,
  ReporterLoadError,
  resolveReporters,
} from "../../src/reporters/loader.js";
import { capture, freshDir } from "./sample-run.js";

function project(files: Record<string, string> = {}) {
  const root = freshDir("project");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const runDir = join(root, ".gantry", "runs", "r1");
  mkdirSync(runDir, { recursive: true });
  const stdout = capture();
  const stderr = capture();
  return { root, runDir, stdout, stderr, env: {} };
}

async function loadError(
  entries: ReporterEntry[],
  files: Record<string, string> = {},
): Promise<ReporterLoadError> {
  try {
    await loadReporters(entries, project(files));
  } catch (error) {
    assert.ok(error instanceof ReporterLoadError, `expected a ReporterLoadError, got ${error}`);
    assert.ok(error instanceof InputError);
    assert.equal(error.name, "InputError", "handled by the CLI as bad input");
    assert.equal(error.exitCode, 2);
    assert.equal(error.file, ".gantry/config.json");
    return error;
  }
  assert.fail("expected loading to fail");
}

const RECORDER = `export default (options, context) => ({
  onRunStart(e) { context.stdout.write(JSON.stringify({ options, runDir: context.runDir, feature: e.feature })); },
});
`;

describe("reporter loader", () => {
  it("loads every built-in by name, with options", async () => {
    const ctx = project();
    const loaded = await loadReporters(
      [...BUILTIN_REPORTERS.filter((n) => n !== "junit"), ["junit", { outputFile: "out/junit.xml" }]],
      ctx,
    );
    assert.deepEqual(
      loaded.map((r) => r.name),
      ["default", "json", "github", "markdown", "html", "junit"],
    );
    for (const { reporter } of loaded) assert.equal(typeof reporter, "object");
  });

  it("gives the others standard error as stdout when the json reporter is on", async () => {
    const ctx = project();
    const [plain, json] = await loadReporters(["default", "json"], ctx);
    const event = { feature: "f", totalStories: 1, runId: "r", at: "2026-01-01T00:00:00.000Z" };
    await plain?.reporter.onEvent?.("run:start", event);
    await json?.reporter.onEvent?.("run:start", event);
    assert.equal(ctx.stdout.text, `${JSON.stringify({ type: "run:start", ...event })}\n`);
    assert.match(ctx.stderr.text, /run r: feature f, 1 stories/);
  });

  it("loads a relative path from the project root, passing options and the context", async () => {
    const ctx = project({ "tools/recorder.mjs": RECORDER });
    const [loaded] = await loadReporters([["./tools/recorder.mjs", { channel: "#ci" }]], ctx);
    assert.equal(loaded?.name, "./tools/recorder.mjs");
    await loaded?.reporter.onRunStart?.({ feature: "checkout", totalStories: 1, runId: "r", at: "" });
    assert.deepEqual(JSON.parse(ctx.stdout.text), {
      options: { channel: "#ci" },
      runDir: ctx.runDir,
      feature: "checkout",
    });
  });

  it("accepts a class instance and an async factory; names repeated entries apart", async () => {
    const ctx = project({
      "r/class.mjs": `class R { constructor(o) { this.o = o; } async onRunEnd() {} onEvent() {} }
export default (o) => new R(o);`,
      "r/async.mjs": "export default async () => ({ onRunStart() {} });",
    });
    const loaded = await loadReporters(["./r/class.mjs", "./r/async.mjs", "json", ["json", {}]], ctx);
    assert.deepEqual(
      loaded.map((r) => r.name),
      ["./r/class.mjs", "./r/async.mjs", "json", "json#2"],
    );
    assert.equal(typeof loaded[1]?.reporter.onRunStart, "function");
  });

  it("constructs a reporter class with new (vitest's style), with the options and the context", async () => {
    const ctx = project({
      "r/vitest-style.mjs": `export default class ClassReporter {
  constructor(options, context) { this.options = options; this.context = context; }
  onRunStart(e) { this.context.stdout.write(JSON.stringify({ options: this.options, feature: e.feature })); }
}`,
      "r/broken-class.mjs": "export default class Broken { constructor() { throw new Error('no token'); } }",
    });
    const [loaded] = await loadReporters([["./r/vitest-style.mjs", { level: 2 }]], ctx);
    await loaded?.reporter.onRunStart?.({ feature: "checkout", totalStories: 1, runId: "r", at: "" });
    assert.deepEqual(JSON.parse(ctx.stdout.text), { options: { level: 2 }, feature: "checkout" });
    const error = await loadError(["./r/broken-class.mjs"], {
      "r/broken-class.mjs": "export default class Broken { constructor() { throw new Error('no token'); } }",
    });
    assert.match(error.message, /reporters\[0\]: reporter "\.\/r\/broken-class\.mjs": no token/);
    assert.doesNotMatch(error.message, /without 'new'/);
  });

  it("resolves installed packages from the project root: ESM-only, CommonJS, and transpiled default exports", async () => {
    const ctx = project({
      "node_modules/gantry-reporter-esm/package.json": JSON.stringify({
        name: "gantry-reporter-esm",
        type: "module",
        exports: { ".": { import: "./dist/index.js" } },
      }),
      "node_modules/gantry-reporter-esm/dist/index.js": RECORDER,
      "node_modules/@acme/gantry-reporter/package.json": JSON.stringify({
        name: "@acme/gantry-reporter",
        main: "main.cjs",
      }),
      "node_modules/@acme/gantry-reporter/main.cjs":
        "module.exports = (options, context) => ({ onRunStart() { context.stdout.write('cjs '); } });",
      "node_modules/transpiled/package.json": JSON.stringify({ name: "transpiled", main: "index.js" }),
      "node_modules/transpiled/index.js":
        "Object.defineProperty(exports, '__esModule', { value: true }); exports.default = (o, c) => ({ onRunStart() { c.stdout.write('ts '); } });",
    });
    const loaded = await loadReporters(
      [["gantry-reporter-esm", { n: 1 }], "@acme/gantry-reporter", "transpiled"],
      ctx,
    );
    for (const { reporter } of loaded)
      await reporter.onRunStart?.({ feature: "f", totalStories: 0, runId: "", at: "" });
    assert.match(ctx.stdout.text, /^\{"options":\{"n":1\}.*\}cjs ts $/);
  });

  it("an unknown name is an error naming the entry and listing the built-ins", async () => {
    const error = await loadError(["default", "jnuit"]);
    assert.equal(error.where, "reporters[1]");
    assert.equal(error.reporter, "jnuit");
    assert.match(
      error.message,
      /^\.gantry\/config\.json: reporters\[1\]: reporter "jnuit": unknown reporter; expected a built-in reporter \(default, json, junit, github, markdown, html\), a path starting with \.\/, or a package installed in /,
    );
  });

  it("a module that cannot be loaded stops loading with the module and the cause named", async () => {
    const missing = await loadError(["./tools/nope.mjs"]);
    assert.match(missing.message, /reporter "\.\/tools\/nope\.mjs": no such file: .*tools\/nope\.mjs$/);

    const syntax = await loadError(["json", ["./bad.mjs", {}]], { "bad.mjs": "export default (=> {}" });
    assert.equal(syntax.where, "reporters[1]");
    assert.match(syntax.message, /reporter "\.\/bad\.mjs": cannot load the module: SyntaxError: /);
    assert.equal((syntax.cause as Error).name, "SyntaxError");

    const throws = await loadError(["./throws.mjs"], { "throws.mjs": "throw new Error('no token set');" });
    assert.match(throws.message, /cannot load the module: no token set$/);

    const noDefault = await loadError(["./named.mjs"], { "named.mjs": "export const reporter = {};" });
    assert.match(
      noDefault.message,
      /expected a default export \(options, context\) => Reporter, got undefined$/,
    );

    const pkg = await loadError(["@acme/not-installed"]);
    assert.match(
      pkg.message,
      /reporter "@acme\/not-installed": no package "@acme\/not-installed" installed in /,
    );
  });

  it("bad options, a factory that throws or returns nothing, and a misspelt method are errors too", async () => {
    const options = await loadError(["default", ["junit", { outputFile: 5 }]]);
    assert.match(
      options.message,
      /reporters\[1\]: reporter "junit": invalid options: outputFile: expected string, received number$/,
    );
    const extra = await loadError([["json", { pretty: true }]]);
    assert.match(extra.message, /reporter "json": invalid options: Unrecognized key: "pretty"$/);

    const throwing = await loadError(["./t.mjs"], {
      "t.mjs": "export default () => { throw new RangeError('SLACK_WEBHOOK is not set'); };",
    });
    assert.match(throwing.message, /reporter "\.\/t\.mjs": RangeError: SLACK_WEBHOOK is not set$/);

    const empty = await loadError(["./e.mjs"], { "e.mjs": "export default () => null;" });
    assert.match(empty.message, /the factory returned null; expected a reporter object$/);

    const typo = await loadError(["./typo.mjs"], {
      "typo.mjs": "export default () => ({ onRunComplete() {} });",
    });
    assert.match(
      typo.message,
      /unknown method "onRunComplete"; a reporter's methods are onRunStart, .*onRunEnd, onEvent$/,
    );

    const notFn = await loadError(["./nf.mjs"], { "nf.mjs": "export default () => ({ onRunEnd: 'x' });" });
    assert.match(notFn.message, /"onRunEnd" is string, expected a function$/);
  });

  it("names the command line when the entries came from --reporter", async () => {
    const ctx = project();
    await assert.rejects(resolveReporters(["json", "xml"], ctx.root, CLI_ORIGIN), {
      name: "InputError",
      message: /^command line: --reporter\[1\]: reporter "xml": unknown reporter/,
    });
  });
});
