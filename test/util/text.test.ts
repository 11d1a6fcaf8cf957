import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { escapeControls, oneLine, truncate } from "../../src/util/text.js";

describe("oneLine", () => {
  it("drops escape codes, turns line breaks and control characters into one space, trims", () => {
    assert.equal(oneLine("\u001b[31mred\u001b[0m\n\n  next\tline\u0000end \r\n"), "red next line end");
    assert.equal(oneLine("a\u2028b\u0085c\u00a0d"), "a b c d");
  });

  it("cuts to max characters, marking the cut", () => {
    assert.equal(oneLine("a b c d e f", 5), "a b …");
    assert.equal(oneLine("short", 5), "short");
    assert.equal(truncate("abcdef", 4, "..."), "a...");
  });
});

describe("escapeControls", () => {
  it("shows control characters as escapes and shortens a very long run", () => {
    assert.equal(escapeControls("a\nb\u0000c\td"), "a\\nb\\u0000c\\td");
    const long = escapeControls(`x${"y".repeat(200)}`);
    assert.match(long, /^xy{39}…\(201 characters\)$/);
  });
});
