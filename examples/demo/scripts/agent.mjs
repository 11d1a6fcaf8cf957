#!/usr/bin/env node
// The demo's scripted agent: no AI, just the changes in ./story-changes.mjs, chosen by story and role.
// gantry's command adapter runs it through /bin/sh -c in the project root with the prompt on standard
// input and GANTRY_STORY_ID, GANTRY_ROLE (implement | rectify | autofix), GANTRY_TIER, GANTRY_MODEL,
// GANTRY_ATTEMPT, GANTRY_PROMPT_FILE, GANTRY_FEATURE and GANTRY_RUN_ID in the environment.
//
// It does not rely on GANTRY_ATTEMPT: it counts its own sessions per story and role in
// .agent-state.json (git-ignored), so "the third session for US-004" means the same thing whatever
// gantry counts. Exit 0 = finished session; exit 1 = it was asked for a story it has no script for.

import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, normalize, sep } from "node:path";
import { changeFor } from "./story-changes.mjs";

const STATE_FILE = ".agent-state.json";
const ROLES = ["implement", "rectify", "autofix"];
const ALLOWED_DIRS = ["src", "test"];

const storyId = process.env.GANTRY_STORY_ID ?? "";
const role = process.env.GANTRY_ROLE ?? "";
const tier = process.env.GANTRY_TIER ?? "?";
const model = process.env.GANTRY_MODEL ?? "?";

function die(message) {
  process.stderr.write(`scripted agent: ${message}\n`);
  process.exit(1);
}

/** Reads (and otherwise ignores) the prompt, so gantry's write to our stdin never hits a closed pipe. */
async function readPrompt() {
  if (process.stdin.isTTY) return "";
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

function loadState() {
  try {
    return JSON.parse(readFileSync(STATE_FILE, "utf8"));
  } catch (error) {
    if (error.code === "ENOENT") return {};
    die(`cannot read ${STATE_FILE}: ${error.message}`);
  }
}

function saveState(state) {
  writeFileSync(`${STATE_FILE}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(`${STATE_FILE}.tmp`, STATE_FILE);
}

/** Changes stay inside src/ and test/: a path anywhere else is a bug in the script. */
function checkedPath(path) {
  const clean = normalize(path);
  if (!ALLOWED_DIRS.some((dir) => clean.startsWith(`${dir}${sep}`)) || clean.includes("..")) {
    die(`refusing to write ${path}: changes stay inside ${ALLOWED_DIRS.join("/ and ")}/`);
  }
  return clean;
}

if (!storyId) die("GANTRY_STORY_ID is not set (run me through gantry, or set it by hand)");
if (role === "research") {
  // The readiness gate's read-only research session (US-007): nothing in this repository says what gift
  // wrapping should do, so it writes no findings and says so with its marker.
  process.stdout.write(`scripted agent: ${storyId} research: nothing in the repository settles it\n\n`);
  process.stdout.write(
    "## RESEARCH BLOCKED\nNo file here describes gift wrapping; a person has to say what it does.\n",
  );
  process.exit(0);
}
if (!ROLES.includes(role)) die(`expected GANTRY_ROLE to be one of ${ROLES.join(", ")}, got "${role}"`);

const prompt = await readPrompt();
const state = loadState();
const counts = { implement: 0, rectify: 0, autofix: 0, total: 0, ...state[storyId] };
counts[role] += 1;
counts.total += 1;

const change = changeFor(storyId, role, { role: counts[role], story: counts.total });
if (!change) {
  die(
    `no script for ${storyId}; this demo scripts US-001, US-002, US-003, US-004 and US-006 (US-005 should be blocked)`,
  );
}
state[storyId] = counts;
saveState(state);

const written = [];
for (const [path, text] of Object.entries(change.files)) {
  const target = checkedPath(path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  written.push(target);
}

const session = `${role} session ${counts[role]} (${counts.total} for this story), tier ${tier}, model ${model}`;
const wrote = written.length > 0 ? `wrote ${written.join(", ")}` : "changed nothing";
process.stdout.write(`scripted agent: ${storyId} ${session}; prompt ${prompt.length} chars\n`);
process.stdout.write(`scripted agent: ${change.note}; ${wrote}\n`);
