#!/usr/bin/env node
// The demo's scripted review-panel reviewer: no AI. gantry runs `node scripts/reviewer.mjs NAME` for each
// reviewer of `review.panel`, all at once, each read-only on the tree, with the review prompt (the story,
// its acceptance criteria and its diff) on standard input. It answers with findings as JSON
// (gantry's schemas/review-answer.schema.json), chosen by reviewer and story:
// - alice calls US-001's parsing a blocker on her own: one opinion, so gantry lowers it to `important`
//   and the story still passes (docs/review.md);
// - bob calls the receipt lines of US-006 worth a look (`important`);
// - otherwise no findings.

async function readPrompt() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

const name = process.argv[2] ?? "";
const story = process.env.GANTRY_STORY_ID ?? "";
const prompt = await readPrompt();
const findings = [];
if (name === "alice" && story === "US-001" && prompt.includes("src/parse-price.js")) {
  findings.push({
    file: "src/parse-price.js",
    line: 1,
    severity: "blocking",
    ruleId: "input-validation",
    text: "parsePrice trusts its input: a string like '1e3' parses as a price",
  });
}
if (name === "bob" && story === "US-006") {
  findings.push({
    file: "src/receipt.js",
    line: 0,
    severity: "important",
    text: "receipt lines are padded with spaces; a long item name pushes the price out of its column",
  });
}
process.stdout.write(`${JSON.stringify({ findings })}\n`);
