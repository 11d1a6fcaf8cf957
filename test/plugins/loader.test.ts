import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import type { AgentRequest } from "../../src/agents/adapter.js";
import { AgentRegistry } from "../../src/agents/registry.js";
import { InputError } from "../../src/config/input-error.js";
import { type Config, ConfigSchema } from "../../src/config/schema.js";
import { guardAgent } from "../../src/plugins/agent-guard.js";
import { loadPlugins } from "../../src/plugins/loader.js";
import { registerPluginAgents } from "../../src/plugins/registry.js";

const work = realpathSync(mkdtempSync(join(tmpdir(), "gantry-plugins-")));
after(() => rmSync(work, { recursive: true, force: true }));

let projects = 0;
/** A fresh project root holding the given files. */
function project(files: Record<string, string>): string {
  const root = join(work, `project-${++projects}`);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const config = (plugins: Config["plugins"]): Config => ConfigSchema.parse({ plugins });

/** Runs loadPlugins and returns the InputError it must throw. */
async function loadError(root: string, plugins: Config["plugins"]): Promise<InputError> {
  try {
    await loadPlugins(config(plugins), root);
  } catch (error) {
    assert.ok(error instanceof InputError, `expected an InputError, got ${error}`);
    assert.equal(error.exitCode, 2);
    assert.equal(error.file, ".gantry/config.json");
    return error;
  }
  assert.fail("loadPlugins did not throw");
}

const GOOD_PLUGIN = `
class StyleReviewer {
  name = "style";
  constructor(words) { this.words = words; }
  async review({ root, storyId, changedFiles }) {
    return { success: true, findings: [], output: \`\${this.words} \${storyId} \${changedFiles?.length ?? "-"} \${root}\` };
  }
}
export default async function acme(options, context) {
  return {
    name: "acme",
    provides: ["reviewer", "router", "agent"],
    reviewers: [new StyleReviewer(options.words ?? "none")],
    routers: [{ name: "by-tag", async route(story) { return story.tags?.includes("big") ? { complexity: "expert", reason: "tagged big" } : undefined; } }],
    agents: [{
      name: "echo",
      create: (config) => ({
        name: "echo",
        modelFor: (tier) => \`echo-\${tier}\`,
        async run(request) {
          if (request.prompt === "throw") throw new TypeError("echo broke");
          if (request.prompt === "hang") return new Promise(() => {});
          return { exitCode: 0, timedOut: false, aborted: false, durationMs: 1, costUsd: 0.5, costBasis: "exact", output: \`\${context.root}|\${request.prompt}\` };
        },
      }),
    }],
  };
}
`;

function request(prompt: string, timeoutMs = 5_000): AgentRequest {
  return {
    role: "implement",
    storyId: "US-1",
    attempt: 1,
    tier: "fast",
    model: "m",
    prompt,
    promptFile: "/dev/null",
    cwd: work,
    timeoutMs,
    signal: new AbortController().signal,
    feature: "f",
    runId: "r",
    sessionId: "r-s1",
  };
}

describe("loadPlugins", () => {
  it("loads a plugin file with a reviewer, a router and an agent, passing options and { root }", async () => {
    const root = project({ "tools/acme.mjs": GOOD_PLUGIN });
    const set = await loadPlugins(config([["./tools/acme.mjs", { words: "hello" }]]), root);
    assert.deepEqual(set.plugins, [{ name: "acme", module: "./tools/acme.mjs", index: 0 }]);
    assert.deepEqual(
      set.reviewers.map((r) => [r.plugin, r.name]),
      [["acme", "style"]],
    );
    const signal = new AbortController().signal;
    const reviewed = await set.reviewers[0]?.review({
      root,
      storyId: "US-1",
      changedFiles: ["a.js"],
      signal,
    });
    assert.equal(reviewed?.output, `hello US-1 1 ${root}`, "a class instance keeps its `this`");
    assert.deepEqual(
      set.routers.map((r) => [r.plugin, r.name]),
      [["acme", "by-tag"]],
    );
    assert.deepEqual(
      set.agents.map((a) => [a.plugin, a.name]),
      [["acme", "echo"]],
    );

    const registry = new AgentRegistry();
    registerPluginAgents(registry, set);
    assert.equal(registry.names().at(-1), "echo");
    const agent = registry.create("echo", config([]));
    assert.equal(agent.name, "echo");
    assert.equal(agent.modelFor("fast"), "echo-fast");
    const ran = await agent.run(request("hi"));
    assert.equal(ran.output, `${root}|hi`);
    assert.equal(ran.costUsd, 0.5);
    assert.equal(ran.error, undefined);
  });

  it("turns a plugin agent that throws or never ends into an agent error naming the plugin", async () => {
    const root = project({ "tools/acme.mjs": GOOD_PLUGIN });
    const registry = new AgentRegistry();
    registerPluginAgents(registry, await loadPlugins(config(["./tools/acme.mjs"]), root));
    const agent = registry.create("echo", config([]));
    const threw = await agent.run(request("throw"));
    assert.equal(threw.error, 'plugin "acme" agent "echo" threw: TypeError: echo broke');
    assert.equal(threw.exitCode, null);
    const set = await loadPlugins(config(["./tools/acme.mjs"]), root);
    const entry = set.agents[0];
    assert.ok(entry);
    const guarded = guardAgent({ name: "acme", module: "./tools/acme.mjs", index: 0 }, entry, 20)(config([]));
    const late = await guarded.run(request("hang", 30));
    assert.equal(late.timedOut, true);
    assert.equal(late.error, 'plugin "acme" agent "echo" did not finish within 0.03 s');
    const controller = new AbortController();
    const pending = guarded.run({ ...request("hang", 60_000), signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const hung = await pending;
    assert.equal(hung.aborted, true);
    assert.equal(hung.error, 'plugin "acme" agent "echo" was interrupted');
  });

  it("rejects a plugin agent whose name is already registered", async () => {
    const root = project({
      "tools/dup-agent.mjs": `export default () => ({ name: "dup", provides: ["agent"], agents: [{ name: "command", create: () => ({}) }] });`,
    });
    const set = await loadPlugins(config(["./tools/dup-agent.mjs"]), root);
    assert.throws(
      () => registerPluginAgents(new AgentRegistry(), set),
      (error: Error) =>
        error instanceof InputError &&
        error.message ===
          '.gantry/config.json: plugins[0]: ./tools/dup-agent.mjs (plugin "dup") gives an agent named "command", which is already registered; choose another name',
    );
  });

  it("reports an agent whose create() returns no adapter when the run creates it", async () => {
    const root = project({
      "tools/no-adapter.mjs": `export default () => ({ name: "na", provides: ["agent"], agents: [{ name: "na", create: async () => ({}) }] });`,
    });
    const registry = new AgentRegistry();
    registerPluginAgents(registry, await loadPlugins(config(["./tools/no-adapter.mjs"]), root));
    assert.throws(() => registry.create("na", config([])), /plugins\[0\]: .*"na".*returned a Promise/);
  });

  it("stops on a syntax error, naming the module, the error and where it is", async () => {
    const root = project({
      "tools/bad-plugin.mjs": `export default function () {\n  return { name: "x"\n    provides: [] };\n}\n`,
    });
    const error = await loadError(root, ["./tools/bad-plugin.mjs"]);
    assert.equal(
      error.message,
      ".gantry/config.json: plugins[0]: ./tools/bad-plugin.mjs failed to load: SyntaxError: Unexpected identifier 'provides' (tools/bad-plugin.mjs:3)",
    );
    assert.ok(error.cause instanceof SyntaxError);
  });

  it("stops when the plugin's own import is missing", async () => {
    const root = project({ "tools/imports.mjs": `import "./missing.mjs";\nexport default () => ({});\n` });
    const error = await loadError(root, ["./tools/imports.mjs"]);
    assert.match(
      error.message,
      /^\.gantry\/config\.json: plugins\[0\]: \.\/tools\/imports\.mjs failed to load: Error: Cannot find module '.*missing\.mjs'/,
    );
  });

  it("stops when the factory throws, with the thrown error as cause", async () => {
    const root = project({
      "tools/throws.mjs": `export default () => { throw new Error("ACME_TOKEN is not set"); };\n`,
    });
    const error = await loadError(root, ["./tools/throws.mjs"]);
    assert.equal(
      error.message,
      ".gantry/config.json: plugins[0]: ./tools/throws.mjs threw in its factory: Error: ACME_TOKEN is not set",
    );
    assert.equal((error.cause as Error).message, "ACME_TOKEN is not set");
  });

  it("stops on a plugin that declares a reviewer but gives none", async () => {
    const root = project({
      "tools/good.mjs": GOOD_PLUGIN,
      "tools/empty.mjs": `export default () => ({ name: "empty", provides: ["reviewer"] });\n`,
    });
    const error = await loadError(root, ["./tools/good.mjs", "./tools/empty.mjs"]);
    assert.equal(
      error.message,
      '.gantry/config.json: plugins[1]: ./tools/empty.mjs returned a wrong plugin: provides "reviewer" but gives no reviewers; expected at least one in reviewers',
    );
  });

  it("checks every other part of the shape with expected X, got Y", async () => {
    const cases: [string, string][] = [
      [
        "export const x = 1;",
        "has no plugin factory: expected a default export (options, context) => plugin, got undefined",
      ],
      [
        "export default () => 42;",
        "returned a wrong plugin: the factory's result: expected an object { name, provides, ... }, got number 42",
      ],
      [
        `export default () => ({ name: "", provides: [] });`,
        'returned a wrong plugin: name: expected a non-empty string, got string ""',
      ],
      [
        `export default () => ({ name: "p", provides: ["reporter"] });`,
        'returned a wrong plugin: provides[0]: expected one of "reviewer", "router", "agent", got string "reporter"',
      ],
      [
        `export default () => ({ name: "p", provides: [], routers: [{ name: "r", route() {} }] });`,
        'returned a wrong plugin: gives routers but does not declare "router" in provides',
      ],
      [
        `export default () => ({ name: "p", provides: ["router"], routers: [{ name: "r" }] });`,
        "returned a wrong plugin: routers[0].route: expected a function, got undefined",
      ],
      [
        `export default () => ({ name: "p", provides: [], hooks: {} });`,
        'returned a wrong plugin: unknown key "hooks"; expected only name, provides, reviewers, routers, agents',
      ],
    ];
    for (const [i, [source, expected]] of cases.entries()) {
      const root = project({ [`tools/shape-${i}.mjs`]: source });
      const error = await loadError(root, [`./tools/shape-${i}.mjs`]);
      assert.equal(error.message, `.gantry/config.json: plugins[0]: ./tools/shape-${i}.mjs ${expected}`);
    }
  });

  it("says where it looked for a file that is not there", async () => {
    const root = project({});
    const error = await loadError(root, ["./tools/nowhere.mjs"]);
    assert.equal(
      error.message,
      `.gantry/config.json: plugins[0]: ./tools/nowhere.mjs was not found: no file at ${join(root, "tools/nowhere.mjs")}`,
    );
  });

  it("loads installed packages from the project's node_modules (main, exports, import-only exports, scoped)", async () => {
    const plugin = (name: string) =>
      `export default (options) => ({ name: ${JSON.stringify(name)}, provides: ["reviewer"], reviewers: [{ name: ${JSON.stringify(name)} + "-check", review: async () => ({ success: true, findings: [String(options.level)] }) }] });\n`;
    const root = project({
      "node_modules/gantry-plugin-main/package.json": JSON.stringify({
        name: "gantry-plugin-main",
        main: "lib/index.mjs",
      }),
      "node_modules/gantry-plugin-main/lib/index.mjs": plugin("main"),
      "node_modules/gantry-plugin-esm/package.json": JSON.stringify({
        name: "gantry-plugin-esm",
        type: "module",
        exports: { ".": { import: "./index.js" } },
      }),
      "node_modules/gantry-plugin-esm/index.js": plugin("esm"),
      "node_modules/@acme/gantry-plugin/package.json": JSON.stringify({
        name: "@acme/gantry-plugin",
        exports: "./index.mjs",
      }),
      "node_modules/@acme/gantry-plugin/index.mjs": plugin("scoped"),
    });
    const set = await loadPlugins(
      config(["gantry-plugin-main", ["gantry-plugin-esm", { level: 3 }], "@acme/gantry-plugin"]),
      root,
    );
    assert.deepEqual(
      set.plugins.map((p) => `${p.index}:${p.module}:${p.name}`),
      ["0:gantry-plugin-main:main", "1:gantry-plugin-esm:esm", "2:@acme/gantry-plugin:scoped"],
    );
    const signal = new AbortController().signal;
    const esm = await set.reviewers[1]?.review({ root, storyId: "US-1", signal });
    assert.deepEqual(esm?.findings, ["3"]);
  });

  it("names a package that is not installed", async () => {
    const root = project({ "package.json": "{}" });
    const error = await loadError(root, ["gantry-plugin-nope"]);
    assert.match(
      error.message,
      /^\.gantry\/config\.json: plugins\[0\]: gantry-plugin-nope was not found: Error: Cannot find module 'gantry-plugin-nope'.*; is the package installed in /,
    );
  });

  it("rejects two plugins giving the same reviewer name, naming both plugins", async () => {
    const reviewer = (plugin: string) =>
      `export default () => ({ name: "${plugin}", provides: ["reviewer"], reviewers: [{ name: "style", review: async () => ({ success: true, findings: [] }) }] });\n`;
    const root = project({ "tools/a.mjs": reviewer("alpha"), "tools/b.mjs": reviewer("beta") });
    const error = await loadError(root, ["./tools/a.mjs", "./tools/b.mjs"]);
    assert.equal(
      error.message,
      '.gantry/config.json: plugins[1]: ./tools/b.mjs (plugin "beta") gives a reviewer named "style", already given by plugin "alpha" (plugins[0], ./tools/a.mjs); names must be unique',
    );
  });

  it("rejects the same plugin listed twice", async () => {
    const root = project({ "tools/acme.mjs": GOOD_PLUGIN });
    const error = await loadError(root, ["./tools/acme.mjs", ["./tools/acme.mjs", { words: "again" }]]);
    assert.match(
      error.message,
      /plugins\[1\]: \.\/tools\/acme\.mjs \(plugin "acme"\) gives a plugin named "acme", already given by plugin "acme" \(plugins\[0\]/,
    );
  });

  it("loads nothing when there are no plugins", async () => {
    const set = await loadPlugins(config([]), project({}));
    assert.deepEqual(set, { plugins: [], reviewers: [], routers: [], agents: [] });
  });
});
