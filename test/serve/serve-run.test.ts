import assert from "node:assert/strict";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { startDeviceRoutes } from "../../src/serve/devices/routes.js";
import type { RunListItem } from "../../src/serve/hub.js";
import { startServer } from "../../src/serve/server.js";
import type { RunView } from "../../src/serve/view-types.js";
import {
  baseConfig,
  gantry,
  lastRun,
  makeProject,
  passingTest,
  prdStories,
  runDirs,
  story,
} from "../e2e/harness.js";
import { follow } from "./follow.js";
import { call } from "./http.js";

const TOKEN = "e2e-token";
const auth = { authorization: `Bearer ${TOKEN}` };
const json = { ...auth, "content-type": "application/json" };
const module = (name: string) => ({
  write: {
    [`src/${name}.js`]: `export const ${name} = 2;\n`,
    [`test/${name}.test.js`]: passingTest(
      name,
      `const { ${name} } = await import("../src/${name}.js");\n  assert.equal(${name}, 2);`,
    ),
  },
});

/** Waits for a live run to ask a question the server can answer; returns the run and the question. */
/** The first answerable question, other than `answered` (the page's view may lag an answer by one poll). */
export async function pendingQuestion(
  port: number,
  headers: Record<string, string>,
  answered: readonly string[] = [],
): Promise<{ runId: string; requestId: string; options: string[] }> {
  for (let i = 0; i < 600; i++) {
    const runs = (await call(port, "GET", "/api/runs", { headers })).body as unknown as RunListItem[];
    for (const run of runs.filter((r) => r.live)) {
      const view = (await call(port, "GET", `/api/runs/${run.runId}`, { headers }))
        .body as unknown as RunView;
      const question = view.pending.find((q) => q.answerable && !answered.includes(q.id));
      if (question) return { runId: run.runId, requestId: question.id, options: question.options };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("no question came");
}

describe("gantry serve steering a real run of the built CLI", { timeout: 300_000 }, () => {
  it("a question answered on the page and one signed by a phone let the run go on; a skip control skips a later story", async () => {
    const root = makeProject({
      stories: [
        story("US-1", { acceptanceCriteria: [] }),
        story("US-2"),
        story("US-3", { acceptanceCriteria: [] }),
      ],
      plan: { "US-1": [module("alpha")], "US-2": [module("beta")], "US-3": [module("gamma")] },
      config: {
        ...baseConfig(),
        interaction: {
          channel: "serve",
          file: { pollMs: 50 },
          triggers: { "story-ambiguity": { timeoutSeconds: 90 } },
        },
      },
    });
    const keyFile = join(mkdtempSync(join(tmpdir(), "gantry-device-")), "phone.pem");
    const keygen = await gantry(root, ["devices", "keygen", "--out", keyFile]);
    const enrol = await gantry(root, [
      "devices",
      "add",
      "--name",
      "phone",
      "--public-key",
      keygen.stdout.trim(),
      "--scopes",
      "read,answer",
    ]);
    assert.equal(enrol.code, 0, enrol.stderr);
    const deviceId = enrol.stdout.trim();
    const devices = startDeviceRoutes(root, { warn: () => {} });
    const server = await startServer({
      root,
      host: "127.0.0.1",
      port: 0,
      token: TOKEN,
      pollMs: 50,
      deviceRoutes: devices.routes,
    });
    try {
      const running = gantry(root, ["run", "--feature", "f"]);
      // `gantry logs --follow` from another process follows the same run until it ends.
      let followed: ReturnType<typeof follow> | undefined;
      for (let i = 0; i < 300 && !followed; i++) {
        if (runDirs(root).some((dir) => existsSync(join(dir, "events.jsonl"))))
          followed = follow(root, ["-f", "f"]);
        else await new Promise((r) => setTimeout(r, 50));
      }
      const { runId, requestId, options } = await pendingQuestion(server.port, auth);
      assert.deepEqual(options, ["approve", "skip", "abort"]);
      const skip = await call(server.port, "POST", `/api/runs/${runId}/control`, {
        headers: json,
        body: JSON.stringify({ action: "skip", storyId: "US-2" }),
      });
      assert.equal(skip.status, 200, skip.text);
      const answer = await call(server.port, "POST", `/api/runs/${runId}/answer`, {
        headers: json,
        body: JSON.stringify({ requestId, action: "approve" }),
      });
      assert.equal(answer.status, 200, answer.text);
      // US-3 asks too: this time a phone answers, signed by the reference client.
      const next = await pendingQuestion(server.port, auth, [requestId]);
      assert.notEqual(next.requestId, requestId);
      const signedAnswer = await gantry(root, [
        "devices",
        "sign",
        "--device",
        deviceId,
        "--key",
        keyFile,
        "--method",
        "POST",
        "--target",
        `/v1/device/runs/${runId}/answer`,
        "--body",
        JSON.stringify({ requestId: next.requestId, action: "approve" }),
        "--url",
        `http://127.0.0.1:${server.port}`,
      ]);
      assert.equal(signedAnswer.code, 0, signedAnswer.stdout + signedAnswer.stderr);
      const result = await running;
      const finished = Date.now();
      assert.equal(result.code, 1, `a skipped story is not done: ${result.stderr}`);
      const stories = prdStories(root);
      assert.deepEqual(
        ["US-1", "US-2", "US-3"].map((id) => stories[id]?.status),
        ["passed", "skipped", "passed"],
      );
      const { events } = lastRun(root);
      const responses = events.filter((e) => e.type === "interaction:response");
      assert.deepEqual(
        responses.map((r) => [r.action, r.respondedBy]),
        [
          ["approve", "serve:page"],
          ["approve", `serve:device:${deviceId}`],
        ],
      );
      const control = events.find((e) => e.type === "run:control");
      assert.deepEqual([control?.action, control?.storyId, control?.by], ["skip", "US-2", "page"]);
      const logs = await followed;
      assert.ok(logs, "the run started");
      assert.equal(logs.code, 0);
      assert.ok(logs.at - finished < 5_000, "--follow ended with the run");
      assert.match(logs.stdout, /^\[\d\d:\d\d:\d\d\] run \S+: feature f, 3 stories$/m);
      assert.match(logs.stdout, /answered story-ambiguity: approve \(serve:page\)/);
      assert.match(logs.stdout, /control skip US-2 \(page\)/);
      assert.match(logs.stdout, /run complete: 2 passed/);
      const again = await gantry(root, ["logs", "--feature", "f"]);
      assert.equal(again.stdout, logs.stdout, "the same lines from the finished run's files");

      const view = (await call(server.port, "GET", `/api/runs/${runId}`, { headers: auth }))
        .body as unknown as RunView;
      assert.equal(view.live, false);
      assert.deepEqual(
        view.stories.map((s) => [s.id, s.status]),
        [
          ["US-1", "passed"],
          ["US-2", "skipped"],
          ["US-3", "passed"],
        ],
      );
      assert.ok(
        view.stories[0]?.gates.some(
          (g) => g.gate === "verify" && g.verdict === "pass" && /^[0-9a-f]{40}$/.test(g.tree),
        ),
      );
    } finally {
      await server.close();
    }
  });
});
