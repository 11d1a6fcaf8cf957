import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AnchorWorld } from "../../src/plan/anchors.js";
import { specHeadings } from "../../src/plan/anchors.js";
import type { Objection, Reply } from "../../src/plan/critique-schema.js";
import { type JudgeInput, judgeCritique } from "../../src/plan/judge.js";
import type { Rule } from "../../src/plan/rules.js";

const files: Record<string, string> = {
  "src/cart.js": "export const total = (cart) => 0;\n// prices are cents\n",
};
const world = (stories: string[]): AnchorWorld => ({
  tree: { tracked: new Set(Object.keys(files)), read: (path) => files[path] },
  stories: new Set(stories),
  headings: specHeadings("# cart\n## Goal\ntext\n```\n## Not a heading\n```\n## Constraints ##\n"),
});
const rules: Rule[] = [
  { id: "R-1", status: "binding", text: "every public function has a test", line: 1 },
  { id: "R-2", status: "proposed", text: "small stories", line: 2 },
];
const quote = { kind: "file", path: "src/cart.js", line: 1, quote: "export const total" } as const;
const objection = (extra: Partial<Objection> = {}): Objection => ({
  id: "OBJ-1",
  lens: "scope",
  claim: "total() has no test",
  anchors: [quote],
  rule: "R-1",
  ...extra,
});
const input = (objections: Objection[], replies: Reply[], revised: string[] = []): JudgeInput => ({
  objections,
  replies,
  rules,
  proposed: world(["US-1"]),
  revised: world(["US-1", "US-2"]),
  revisedStories: new Set(revised),
});

describe("judgeCritique: the rule table, in code", () => {
  it("a binding objection accepted with a story the revision added passes; one not revised blocks", () => {
    const accept: Reply = {
      objection: "OBJ-1",
      reply: "accept",
      anchors: [{ kind: "story", story: "US-2" }],
    };
    const passed = judgeCritique(input([objection()], [accept], ["US-2"]));
    assert.equal(passed.verdict, "pass");
    assert.equal(passed.objections[0]?.outcome, "answered");
    const unrevised = judgeCritique(input([objection()], [accept], []));
    assert.equal(unrevised.verdict, "fail");
    assert.match(unrevised.objections[0]?.replyProblems[0] ?? "", /no anchored story was added or changed/);
  });

  it("a rebuttal needs a resolving anchor that is not an inference; a misquoted line does not resolve", () => {
    const rebut = (anchors: Reply["anchors"]): Reply => ({ objection: "OBJ-1", reply: "rebut", anchors });
    assert.equal(
      judgeCritique(input([objection()], [rebut([{ kind: "spec", heading: "Constraints" }])])).verdict,
      "pass",
    );
    const inference = judgeCritique(
      input([objection()], [rebut([{ kind: "inference", reasoning: "trust me" }])]),
    );
    assert.equal(inference.verdict, "fail");
    assert.match(inference.objections[0]?.replyProblems[0] ?? "", /inference only/);
    const misquoted = judgeCritique(input([objection()], [rebut([{ ...quote, line: 2 }])]));
    assert.equal(misquoted.verdict, "fail");
    assert.match(
      misquoted.objections[0]?.replyProblems[0] ?? "",
      /src\/cart\.js:2 does not hold "export const total"/,
    );
    const heading = judgeCritique(
      input([objection()], [rebut([{ kind: "spec", heading: "Not a heading" }])]),
    );
    assert.equal(heading.verdict, "fail", "a line in a code fence is no heading");
  });

  it("an objection none of whose anchors resolves is an inference and advisory, whatever rule it cites", () => {
    const judged = judgeCritique(
      input(
        [
          objection({
            anchors: [
              { ...quote, quote: "not in the file at all" },
              { kind: "story", story: "US-9" },
            ],
          }),
        ],
        [{ objection: "OBJ-1", reply: "rebut", anchors: [{ kind: "inference", reasoning: "no" }] }],
      ),
    );
    assert.equal(judged.verdict, "pass");
    assert.equal(judged.objections[0]?.inference, true);
    assert.equal(judged.objections[0]?.outcome, "advisory");
    assert.deepEqual(judged.objections[0]?.unresolved, [
      'src/cart.js:1 does not hold "not in the file at all"',
      "story US-9: no story US-9 in the plan",
    ]);
  });

  it("a proposed or unknown rule, or none, is advisory", () => {
    const reply = (id: string): Reply => ({
      objection: id,
      reply: "rebut",
      anchors: [{ kind: "inference", reasoning: "x" }],
    });
    const judged = judgeCritique(
      input(
        [
          objection({ rule: "R-2" }),
          objection({ id: "OBJ-2", rule: "R-9" }),
          objection({ id: "OBJ-3", rule: undefined }),
        ],
        [reply("OBJ-1"), reply("OBJ-2"), reply("OBJ-3")],
      ),
    );
    assert.equal(judged.verdict, "pass");
    assert.deepEqual(
      judged.objections.map((o) => [o.rule?.status, o.outcome]),
      [
        ["proposed", "advisory"],
        ["unknown", "advisory"],
        [undefined, "advisory"],
      ],
    );
  });

  it("the protocol first: a missing reply, two replies, a reply to no objection each fail the critique", () => {
    const rebut: Reply = { objection: "OBJ-1", reply: "rebut", anchors: [{ kind: "story", story: "US-1" }] };
    const advisory = objection({ rule: undefined });
    assert.deepEqual(judgeCritique(input([advisory], [])).protocol, ["OBJ-1 has no reply"]);
    assert.deepEqual(judgeCritique(input([advisory], [rebut, rebut])).protocol, [
      "OBJ-1 has 2 replies; it is answered once",
    ]);
    const unknown = judgeCritique(input([advisory], [rebut, { ...rebut, objection: "OBJ-7" }]));
    assert.deepEqual(unknown.protocol, ["replies[1] answers OBJ-7, which the critic did not raise"]);
    assert.equal(unknown.verdict, "fail");
  });
});
