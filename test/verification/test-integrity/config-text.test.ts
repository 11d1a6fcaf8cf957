import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  canonical,
  clip,
  firstDifference,
  lineOf,
  normalize,
  parseObject,
  sectionOf,
  stringRecord,
  testBlock,
} from "../../../src/verification/strategies/test-integrity/config-text.js";

describe("config text helpers of the test-config checks", () => {
  it("parseObject: a JSON object, else undefined (an array, a string, null, broken JSON)", () => {
    assert.deepEqual(parseObject('{"scripts":{"test":"node --test"}}'), { scripts: { test: "node --test" } });
    assert.deepEqual(parseObject("{}"), {});
    for (const text of ["[1]", '"x"', "null", "3", "{broken", ""])
      assert.equal(parseObject(text), undefined, text);
  });

  it("stringRecord: strings kept, other values as JSON; not an object is empty", () => {
    assert.deepEqual(stringRecord({ test: "jest", n: 2, o: { a: 1 }, f: false }), {
      test: "jest",
      n: "2",
      o: '{"a":1}',
      f: "false",
    });
    for (const value of [undefined, null, "text", 7, false])
      assert.deepEqual(stringRecord(value), {}, String(value));
  });

  it("canonical: key order is no change, anything else is; arrays keep their order", () => {
    assert.equal(canonical({ b: 1, a: { d: 2, c: 3 } }), canonical({ a: { c: 3, d: 2 }, b: 1 }));
    assert.equal(canonical({ b: 1, a: 2 }), '{"a":2,"b":1}');
    assert.equal(canonical({ z: 1, a: 1, m: 1 }), '{"a":1,"m":1,"z":1}');
    assert.notEqual(canonical({ a: [1, 2] }), canonical({ a: [2, 1] }));
    assert.equal(canonical([{ b: 1, a: 2 }]), '[{"a":2,"b":1}]');
    assert.notEqual(canonical({ a: 1 }), canonical({ a: "1" }));
    assert.equal(canonical(undefined), "undefined");
    assert.equal(canonical(null), "null");
  });

  it("sectionOf: the wanted sections' lines with their headers, the first header and its line", () => {
    const text = [
      "[project]",
      'name = "x"',
      "[tool.pytest.ini_options]  # the tests",
      'addopts = "-q"   ',
      "[tool.black]",
      "line-length = 100",
      '[ "tool.pytest.more" ]',
      "x = 1",
    ].join("\n");
    const section = sectionOf(text, (name) => name.startsWith("tool.pytest"));
    assert.deepEqual(section.lines, [
      "[tool.pytest.ini_options]  # the tests",
      'addopts = "-q"',
      '[ "tool.pytest.more" ]',
      "x = 1",
    ]);
    assert.equal(section.text, section.lines.join("\n"));
    assert.equal(section.start, 3);
    assert.equal(section.header, "[tool.pytest.ini_options]  # the tests");
    const tables = sectionOf("[[tool.pytest]]\na = 1\n[other]\nb = 2", (name) => name === "tool.pytest");
    assert.deepEqual(tables.lines, ["[[tool.pytest]]", "a = 1"]);
    assert.equal(tables.start, 1);
    const none = sectionOf("[a]\nx = 1", () => false);
    assert.deepEqual(none, { text: "", lines: [], start: 0 });
    assert.equal("header" in none, false);
    assert.deepEqual(sectionOf("x = [1, 2]\n[a] y", () => true).lines, [], "not a header line");
    assert.deepEqual(
      sectionOf("x[a]\ny = 1", () => true).lines,
      [],
      "a name before the bracket: not a header",
    );
    const indented = sectionOf("  [tool.pytest]  \na = 1", (name) => name === "tool.pytest");
    assert.equal(indented.header, "[tool.pytest]");
    assert.deepEqual(indented.lines, ["  [tool.pytest]", "a = 1"]);
  });

  it("testBlock: the test object by brace matching, braces in strings and escapes skipped", () => {
    const config = [
      "export default defineConfig({",
      "  plugins: [react()],",
      "  test: {",
      "    include: ['src/**/*.test.ts', \"a}b\", `c{d`],",
      "    env: { A: 'x\\'}' },",
      "  },",
      "  server: { port: 3000 },",
      "});",
    ].join("\n");
    const block = testBlock(config);
    assert.equal(block.line, 3);
    assert.equal(
      block.text,
      "test: {\n    include: ['src/**/*.test.ts', \"a}b\", `c{d`],\n    env: { A: 'x\\'}' },\n  }",
    );
    assert.deepEqual(testBlock("export default { server: {} }"), { text: "" });
    assert.deepEqual(
      testBlock("const latest: { a: 1 }"),
      { text: "" },
      "a word ending in test is not the key",
    );
    assert.deepEqual(
      testBlock("xy\ntest : { a: 1\nb: 2"),
      { text: "test : { a: 1\nb: 2", line: 2 },
      "unclosed: the rest",
    );
    assert.deepEqual(
      testBlock("defineConfig({ test:{ a: 1 } })"),
      { text: "test:{ a: 1 }", line: 1 },
      "no spaces, inside another object",
    );
  });

  it("firstDifference: the first line that differs beyond trailing spaces, a removed line, or whitespace only", () => {
    assert.deepEqual(firstDifference(["a", "b", "c"], ["a", "B", "c"]), { index: 1, line: 2, text: "B" });
    assert.deepEqual(firstDifference(["a", "b"], ["a"]), { index: 1, line: 2, text: "(removed: b)" });
    assert.deepEqual(firstDifference(["a"], ["a", "  new  "]), { index: 1, line: 2, text: "new" });
    assert.deepEqual(firstDifference(["a  ", "b"], ["a", "b"]), { index: 0, line: 1, text: "(whitespace)" });
    assert.deepEqual(firstDifference(["a"], ["a  "]), { index: 0, line: 1, text: "(whitespace)" });
    assert.deepEqual(
      firstDifference(["a"], ["a", ""]),
      { index: 0, line: 1, text: "(whitespace)" },
      "an empty line added",
    );
    assert.deepEqual(
      firstDifference(["a", ""], ["a"]),
      { index: 0, line: 1, text: "(whitespace)" },
      "an empty line removed",
    );
    assert.deepEqual(firstDifference(["a", "  b  "], ["a"]), { index: 1, line: 2, text: "(removed: b)" });
    assert.equal(firstDifference(["a"], [`${"x".repeat(200)}`]).text.length, 160);
  });

  it("lineOf: the 1-based line of a needle, after an anchor when given", () => {
    const text = '{\n  "scripts": {\n    "test": "a"\n  },\n  "jest": {\n    "test": "b"\n  }\n}';
    assert.equal(lineOf(text, '"test"'), 3);
    assert.equal(lineOf(text, '"test"', '"jest"'), 6);
    assert.equal(lineOf(text, '"test"', '"missing anchor"'), 3, "an anchor not found: from the start");
    assert.equal(lineOf(text, '"nothing"'), undefined);
    assert.equal(lineOf('"x"\n"x"', '"x"'), 1);
  });

  it("normalize folds whitespace; clip keeps 160 characters at most", () => {
    assert.equal(normalize("  a \n\t b  c "), "a b c");
    assert.equal(clip("x".repeat(160)), "x".repeat(160));
    assert.equal(clip("x".repeat(161)), `${"x".repeat(157)}...`);
  });
});
