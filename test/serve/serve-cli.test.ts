import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { CLI, cliEnvironment, gantry } from "../e2e/harness.js";
import { deviceKeys } from "./device-client.js";
import { call } from "./http.js";

describe("gantry serve and gantry devices (built CLI)", () => {
  it("serve prints a URL with the token, keeps it 0600 while it runs, and removes it on Ctrl-C", async () => {
    const root = mkdtempSync(join(tmpdir(), "gantry-serve-cli-"));
    const child = spawn(process.execPath, [CLI, "serve", "--dir", root], {
      env: cliEnvironment(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => {
      out += c;
    });
    child.stderr.on("data", (c) => {
      err += c;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    try {
      for (let i = 0; i < 200 && !/#token=/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
      const [, port, token] = /^gantry serve: http:\/\/127\.0\.0\.1:(\d+)\/#token=(\S+)$/m.exec(out) ?? [];
      assert.ok(port && token, out + err);
      const file = join(root, ".gantry", "serve", "token");
      assert.equal(readFileSync(file, "utf8").trim(), token);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(
        (await call(Number(port), "GET", "/api/runs", { headers: { authorization: `Bearer ${token}` } }))
          .text,
        "[]",
      );
      assert.equal((await call(Number(port), "GET", "/api/runs")).status, 401);
    } finally {
      child.kill("SIGINT");
    }
    assert.equal(await exited, 0);
    assert.ok(!existsSync(join(root, ".gantry", "serve", "token")), "the token went with the server");
  });

  it("serve refuses a bad port; devices refuses a bad key and scope, lists, and revokes", async () => {
    const root = mkdtempSync(join(tmpdir(), "gantry-devices-cli-"));
    const port = await gantry(root, ["serve", "--port", "99999"]);
    assert.equal(port.code, 2);
    assert.match(port.stderr, /--port.*expected a port 0-65535/);
    const badKey = await gantry(root, ["devices", "add", "--name", "phone", "--public-key", "abc"]);
    assert.equal(badKey.code, 2);
    assert.match(badKey.stderr, /--public-key.*Ed25519 public key/);
    const keys = deviceKeys();
    const badScope = await gantry(root, [
      "devices",
      "add",
      "--name",
      "phone",
      "--public-key",
      keys.publicKey,
      "--scopes",
      "read,pause",
    ]);
    assert.equal(badScope.code, 2);
    const added = await gantry(root, [
      "devices",
      "add",
      "--name",
      "phone",
      "--public-key",
      keys.publicKey,
      "--scopes",
      "read,answer",
    ]);
    assert.equal(added.code, 0, added.stderr);
    const id = added.stdout.trim();
    assert.match(id, /^d-[0-9a-f]{12}$/);
    assert.equal(statSync(join(root, ".gantry", "serve", "devices.json")).mode & 0o777, 0o600);
    assert.equal((await gantry(root, ["devices", "revoke", id])).code, 0);
    const list = JSON.parse((await gantry(root, ["devices", "list", "--json"])).stdout);
    assert.deepEqual(
      list.map((d: { id: string; scopes: string[]; revokedAt?: string }) => [
        d.id,
        d.scopes,
        Boolean(d.revokedAt),
      ]),
      [[id, ["read", "answer"], true]],
    );
    assert.equal((await gantry(root, ["devices", "revoke", "d-000000000000"])).code, 2);
  });
});
