import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TestIntegrityFinding } from "../../../src/model/events.js";
import {
  allowingCriterion,
  findingKey,
} from "../../../src/verification/strategies/test-integrity/allowance.js";

const finding = (kind: TestIntegrityFinding["kind"], file = "test/old.test.js"): TestIntegrityFinding => ({
  kind,
  file,
  evidence: "",
});

describe("a criterion that allows a test-integrity finding", () => {
  it("names the finding's file by path or by file name and says the kind of change", () => {
    const deleted = finding("test-deleted");
    assert.equal(allowingCriterion(deleted, ["Remove test/old.test.js"]), "Remove test/old.test.js");
    assert.equal(
      allowingCriterion(deleted, ["Delete old.test.js, it is obsolete"]),
      "Delete old.test.js, it is obsolete",
    );
    assert.equal(
      allowingCriterion(deleted, [
        "The cart shows a total",
        "Move the cases of old.test.js into cart.test.js",
      ]),
      "Move the cases of old.test.js into cart.test.js",
      "the first criterion that allows it, among others",
    );
    assert.equal(
      allowingCriterion(deleted, ["Keep test/old.test.js as it is"]),
      undefined,
      "no word of the kind",
    );
    assert.equal(allowingCriterion(deleted, ["Remove test/other.test.js"]), undefined, "another file");
    assert.equal(allowingCriterion(deleted, []), undefined);
  });

  it("a word of the kind counts only as a whole word's start: 'undelete' or 'premove' do not allow", () => {
    const deleted = finding("test-deleted");
    assert.equal(allowingCriterion(deleted, ["Undelete test/old.test.js"]), undefined);
    assert.equal(allowingCriterion(deleted, ["Premove test/old.test.js"]), undefined);
    assert.equal(
      allowingCriterion(deleted, ["REMOVING test/old.test.js is fine"]),
      "REMOVING test/old.test.js is fine",
    );
  });

  it("each kind has its own words: a skip allows a marker, not a deletion; fewer allows fewer tests", () => {
    const file = "test/net.test.ts";
    const skip = "Skip the flaky case in test/net.test.ts";
    assert.equal(allowingCriterion(finding("marker-added", file), [skip]), skip);
    assert.equal(allowingCriterion(finding("test-deleted", file), [skip]), undefined);
    assert.equal(allowingCriterion(finding("fewer-tests", file), [skip]), undefined);
    const fewer = "Fewer cases in net.test.ts: two were duplicates";
    assert.equal(allowingCriterion(finding("fewer-tests", file), [fewer]), fewer);
    assert.equal(allowingCriterion(finding("marker-added", file), [fewer]), undefined);
    const rename = "Rename test/net.test.ts to test/network.test.ts";
    assert.equal(allowingCriterion(finding("test-renamed-away", file), [rename]), rename);
    assert.equal(allowingCriterion(finding("fewer-tests", file), [rename]), undefined);
    const config = "Change the test script in package.json to run with coverage";
    assert.equal(allowingCriterion(finding("test-config-changed", "package.json"), [config]), config);
    assert.equal(allowingCriterion(finding("marker-added", "package.json"), [config]), undefined);
  });

  it("gantry's config is named by its file or by quality.commands; quality.commands names no other file", () => {
    const gantry = finding("test-config-changed", ".gantry/config.json");
    const criterion = "Update quality.commands.test to run the unit tests only";
    assert.equal(allowingCriterion(gantry, [criterion]), criterion);
    assert.equal(allowingCriterion(gantry, ["Update config.json"]), "Update config.json", "its file name");
    assert.equal(allowingCriterion(finding("test-config-changed", "package.json"), [criterion]), undefined);
    assert.equal(allowingCriterion(gantry, ["Change the build's timeout"]), undefined, "names neither");
  });
});

describe("a criterion that allows a lint / type-check finding", () => {
  it("check-config-changed: the config file named with a word for changing or relaxing it", () => {
    const tsconfig = finding("check-config-changed", "packages/web/tsconfig.json");
    for (const criterion of [
      "Change tsconfig.json to target ES2022",
      "Relax strict mode in packages/web/tsconfig.json for the generated client",
      "Turn on skipLibCheck in tsconfig.json",
      "Exclude the generated folder in tsconfig.json",
      "Disable the noExplicitAny rule in tsconfig.json",
      "Enable allowJs in tsconfig.json",
    ]) {
      assert.equal(allowingCriterion(tsconfig, [criterion]), criterion, criterion);
    }
    assert.equal(
      allowingCriterion(tsconfig, ["tsconfig.json stays strict"]),
      undefined,
      "no word of the kind",
    );
    assert.equal(allowingCriterion(tsconfig, ["Relax the rules in biome.json"]), undefined, "another file");
    const lint = finding("check-config-changed", ".gantry/config.json");
    const criterion = "Change quality.commands.lint to eslint";
    assert.equal(allowingCriterion(lint, [criterion]), criterion);
  });

  it("suppression-added: the file named with a word for suppressing; ordinary words like 'allow' or 'expect' do not", () => {
    const file = "src/legacy/parse.ts";
    const hit = finding("suppression-added", file);
    for (const criterion of [
      "Disable the no-explicit-any lint rule for src/legacy/parse.ts",
      "Ignore the type error in parse.ts until the library is fixed",
      "Suppress the biome warning on the generated table in parse.ts",
      "Silence noUnusedVariables in parse.ts",
      "parse.ts may carry a @ts-expect-error for the untyped module",
      "parse.ts may carry a // @ts-nocheck",
      "Add #[allow(dead_code)] to parse.ts",
      "Mark the import in parse.ts with noqa",
      "Mark the call in parse.ts with nolint",
    ]) {
      assert.equal(allowingCriterion(hit, [criterion]), criterion, criterion);
    }
    for (const criterion of [
      "parse.ts allows a trailing comma",
      "parse.ts expects a number and returns it",
      "Change parse.ts to read dates",
      "Skip empty lines in parse.ts",
    ]) {
      assert.equal(allowingCriterion(hit, [criterion]), undefined, criterion);
    }
    assert.equal(
      allowingCriterion(finding("check-config-changed", file), ["Ignore the type error in parse.ts"]),
      "Ignore the type error in parse.ts",
      "ignoring is also a word for relaxing a config",
    );
    assert.equal(
      allowingCriterion(finding("marker-added", file), ["Suppress the warning in parse.ts"]),
      undefined,
      "suppress is not a word for a skip marker",
    );
  });
});

describe("findingKey", () => {
  it("is equal for equal findings and differs in any of kind, file, line and evidence; no line is line 0", () => {
    const base: TestIntegrityFinding = {
      kind: "marker-added",
      file: "test/a.test.js",
      line: 3,
      evidence: "it.skip(",
    };
    assert.equal(findingKey(base), findingKey({ ...base }));
    const others: TestIntegrityFinding[] = [
      { ...base, kind: "fewer-tests" },
      { ...base, file: "test/b.test.js" },
      { ...base, line: 4 },
      { ...base, evidence: "it.todo(" },
    ];
    for (const other of others) assert.notEqual(findingKey(other), findingKey(base), JSON.stringify(other));
    const { line: _, ...noLine } = base;
    assert.equal(findingKey(noLine), findingKey({ ...base, line: 0 }));
    assert.notEqual(findingKey(noLine), findingKey({ ...base, line: 1 }));
  });
});
