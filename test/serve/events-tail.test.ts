import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { EventsTail } from "../../src/serve/events-tail.js";

describe("reading a growing events.jsonl", () => {
  it("takes whole lines only, keeps a character split across two reads whole, and starts over when truncated", () => {
    const file = join(mkdtempSync(join(tmpdir(), "gantry-tail-")), "events.jsonl");
    const tail = new EventsTail(file);
    assert.deepEqual(tail.read(), [], "no file yet");
    // The first line ends 1 byte into the second 64 KiB read's worth: "é" (2 bytes) straddles the boundary.
    const pad = "x".repeat(64 * 1024 - '{"type":"a","text":"'.length - 1);
    writeFileSync(file, `{"type":"a","text":"${pad}é"}\n{"type":"b"`);
    const first = tail.read();
    assert.deepEqual(
      first.map((e) => [e.type, String(e.text ?? "").slice(-2)]),
      [["a", "xé"]],
    );
    assert.deepEqual(tail.read(), [], "nothing new: the half line waits");
    appendFileSync(file, '}\nnot json\n{"type":"c"}\n');
    assert.deepEqual(
      tail.read().map((e) => e.type),
      ["b", "c"],
    );
    assert.equal(tail.skipped, 1);
    writeFileSync(file, '{"type":"d"}\n');
    assert.deepEqual(
      tail.read().map((e) => e.type),
      ["d"],
      "a shorter file is read from the top",
    );
  });

  it("keeps the file open between reads: an answer's read takes what was appended, a closed tail goes on where it was, a replaced file is read from the top", () => {
    const dir = mkdtempSync(join(tmpdir(), "gantry-tail-"));
    const file = join(dir, "events.jsonl");
    const tail = new EventsTail(file);
    assert.deepEqual(tail.readAppended(), [], "no file yet");
    writeFileSync(file, '{"type":"a"}\n');
    assert.deepEqual(
      tail.readAppended().map((e) => e.type),
      ["a"],
    );
    appendFileSync(file, '{"type":"b"}\n{"type":"c"');
    assert.deepEqual(
      tail.readAppended().map((e) => e.type),
      ["b"],
      "whole lines only",
    );
    tail.close();
    appendFileSync(file, '}\n{"type":"d"}\n');
    assert.deepEqual(
      tail.read().map((e) => e.type),
      ["c", "d"],
      "reopened where it was: nothing read twice",
    );
    writeFileSync(join(dir, "next.jsonl"), '{"type":"e"}\n{"type":"f"}\n{"type":"g"}\n{"type":"h"}\n');
    renameSync(join(dir, "next.jsonl"), file);
    assert.deepEqual(tail.readAppended(), [], "the old file, still open, has nothing new");
    assert.deepEqual(
      tail.read().map((e) => e.type),
      ["e", "f", "g", "h"],
      "a poll's read finds the new file and reads it from the top",
    );
    tail.close();
  });
});
