import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { execCommand } from "../../src/process/executor.js";
import { decideSandbox, sandboxSupport } from "../../src/process/sandbox.js";
import { createToken } from "../../src/serve/token.js";

const support = await sandboxSupport();
const skip = support.works ? false : `bwrap does not work here: ${support.reason}`;

describe("gantry serve's files inside an agent's sandbox", () => {
  it("the token written after the sandbox was decided cannot be read by a session", { skip }, async () => {
    const base = mkdtempSync(join(tmpdir(), "gantry-serve-sandbox-"));
    const root = join(base, "project");
    const home = join(base, "home");
    mkdirSync(join(root, ".git"), { recursive: true });
    mkdirSync(home, { recursive: true });
    const env = { PATH: process.env.PATH ?? "", HOME: home };
    const decided = await decideSandbox("bwrap", root, env);
    assert.equal(decided.kind, "sandboxed");
    const { token, file } = createToken(root);
    const result = await execCommand({
      command: `cat ${JSON.stringify(file)} || echo hidden`,
      cwd: root,
      env,
      timeoutMs: 10_000,
      wrapper: decided.kind === "sandboxed" ? decided.wrapper : [],
    });
    assert.match(result.output, /^hidden$/m);
    assert.ok(!result.output.includes(token));
  });
});
