import { applyViewPatch } from "./view-patch.js";

/**
 * The page's script, sent inline with the page and allowed by its hash (CSP). Everything shown is set as
 * text, never as markup: story titles and reasons come from the PRD and the agent's work.
 */
export const PAGE_SCRIPT = String.raw`
"use strict";
const tokenFromHash = new URLSearchParams(location.hash.slice(1)).get("token");
if (tokenFromHash) sessionStorage.setItem("gantry-token", tokenFromHash);
const token = sessionStorage.getItem("gantry-token") || "";
const auth = { authorization: "Bearer " + token };
let runs = [];
let shown = null;
let chosen = null;

const el = (tag, attrs, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "onclick") node.onclick = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== undefined && c !== null) node.append(typeof c === "string" ? c : c);
  return node;
};
const usd = (n) => "$" + Number(n || 0).toFixed(2);
const say = (line) => { document.getElementById("notice").textContent = line; };

// A request that got no answer (the server gone, or its connection dropped while the server yielded the CPU
// to a busy run) says so; pressed again, an answer the server did take meanwhile is refused as answered.
async function post(path, body) {
  try {
    const response = await fetch(path, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const reply = await response.json().catch(() => ({}));
    say(response.status + " " + (reply.code || "") + ": " + (reply.message || ""));
  } catch (error) {
    say("no answer from the server (" + error.message + "): press it again");
  }
}

function renderRuns() {
  const list = document.getElementById("runs");
  list.replaceChildren(...runs.map((r) => el("li", {
      class: "run " + r.status + (shown && r.runId === shown.runId ? " selected" : ""),
      "data-run": r.runId,
      onclick: () => choose(r.runId),
    }, r.runId + " · " + (r.feature || "?") + " · " + r.status + (r.live ? " (live)" : "") + " · " + usd(r.costUsd))));
}

function renderRun() {
  const root = document.getElementById("run");
  if (!shown) { root.replaceChildren(el("p", {}, "no runs yet")); return; }
  const v = shown;
  const head = el("h2", { id: "run-head" }, v.runId + " — " + (v.feature || "?") + " — " + v.status + (v.live ? " (live)" : ""));
  const cost = el("p", { id: "run-cost" }, "cost so far " + usd(v.costUsd) + (v.costBasis.length ? " (" + v.costBasis.join(", ") + ")" : ""));
  const runGates = el("ul", { id: "run-gates" }, ...v.gates.map((g) => el("li", { class: "verdict " + g.verdict }, "run " + g.gate + " " + g.verdict + " tree " + String(g.tree).slice(0, 10))));
  const critique = v.planCritique ? el("details", { id: "plan-critique" }, el("summary", {}, "plan critique"), el("pre", {}, v.planCritique.join("\n"))) : "";
  const controls = el("div", { id: "controls" });
  if (v.live) {
    controls.append(
      el("button", { id: "control-pause", onclick: () => post("/api/runs/" + v.runId + "/control", { action: "pause" }) }, "pause after this story"),
      el("button", { id: "control-abort", onclick: () => confirm("Abort the run (as Ctrl-C)?") && post("/api/runs/" + v.runId + "/control", { action: "abort" }) }, "abort"),
    );
  }
  const pending = el("div", { id: "pending" }, ...v.pending.map((q) => el("div", { class: "question", "data-request": q.id },
    el("p", {}, q.trigger + (q.storyId ? " (" + q.storyId + ")" : "") + ": " + q.summary),
    el("p", { class: "muted" }, "no answer by " + (q.expiresAt || "?") + " takes " + q.fallback),
    ...(q.answerable
      ? q.options.map((o) => el("button", { class: "answer", "data-action": o, onclick: () => post("/api/runs/" + v.runId + "/answer", { requestId: q.id, action: o }) }, o))
      : [el("p", { class: "muted" }, "asked through another channel; answer it there")]))));
  const rows = v.stories.map((s) => el("tr", { class: "story " + s.status, id: "story-" + s.id },
    el("td", {}, s.id), el("td", {}, s.title), el("td", { class: "status" }, s.status), el("td", {}, s.tier || ""),
    el("td", { class: "passes" }, String(s.passes ?? 0)), el("td", { class: "stage" }, s.stage || ""),
    el("td", {}, usd(s.costUsd) + (s.costBasis.length ? " " + s.costBasis.join("/") : "")),
    el("td", {}, el("ul", {}, ...s.gates.map((g) => el("li", { class: "verdict " + g.verdict }, g.gate + " " + g.verdict + " @" + g.attempt + " tree " + String(g.tree).slice(0, 10))))),
    el("td", {}, s.reason || ""),
    el("td", {}, v.live && s.status === "pending" ? el("button", { class: "skip", onclick: () => post("/api/runs/" + v.runId + "/control", { action: "skip", storyId: s.id }) }, "skip") : "")));
  const table = el("table", { id: "stories" },
    el("tr", {}, ...["story", "title", "status", "tier", "passes", "stage", "cost", "gates (tree judged)", "reason", ""].map((h) => el("th", {}, h))),
    ...v.stories.flatMap((s, i) => s.reviews && s.reviews.length ? [rows[i], findingsRow(s)] : [rows[i]]));
  const log = el("pre", { id: "log" }, v.log.join("\n"));
  root.replaceChildren(head, cost, runGates, critique, controls, pending, table, el("h3", {}, "log"), log);
}

// The review panel's findings of a story, each with its basis (docs/review.md): the text is a model's, set as text.
function findingsRow(s) {
  const where = (f) => f.file + (f.line > 0 ? ":" + f.line : "");
  const severity = (f) => f.raisedAs === f.severity ? f.severity : f.raisedAs + " → " + f.severity;
  const decisions = s.reviews.map((d) => el("div", { class: "decision " + d.verdict, "data-attempt": String(d.attempt) },
    el("p", { class: "decision-head" }, "review-decision " + d.verdict + " @" + d.attempt + " tree " + String(d.tree).slice(0, 10) + ": " + d.reason),
    ...d.missing.map((m) => el("p", { class: "missing" }, m.reviewer + ": no valid answer (" + m.problem + ")")),
    d.findings.length ? el("table", { class: "findings" },
      el("tr", {}, ...["reviewer", "where", "severity", "finding", "basis"].map((h) => el("th", {}, h))),
      ...d.findings.map((f) => el("tr", { class: "finding " + f.kind },
        el("td", { class: "reviewers" }, f.reviewers.join(", ")),
        el("td", { class: "where" }, where(f) + (f.ruleId ? " [" + f.ruleId + "]" : "")),
        el("td", { class: "severity" }, severity(f)),
        el("td", { class: "text" }, f.text),
        el("td", { class: "basis" }, f.basis)))) : el("p", { class: "muted" }, "no findings")));
  return el("tr", { class: "findings", id: "findings-" + s.id }, el("td", { colspan: "10" }, ...decisions));
}

async function choose(runId) {
  chosen = runId;
  const response = await fetch("/api/runs/" + encodeURIComponent(runId), { headers: auth });
  if (response.ok) { shown = await response.json(); renderRun(); renderRuns(); }
}

// Unless a run was picked, follow the live one; stay on it while it lives (two features may run at once).
const wanted = (run) =>
  (chosen !== null && run.runId === chosen) ||
  (chosen === null && (!shown || run.runId === shown.runId || (run.live && !shown.live)));

function onRun(view) {
  if (wanted(view) && !(shown && shown.runId === view.runId && shown.version > view.version)) {
    shown = view; renderRun(); renderRuns();
  }
}

${applyViewPatch.toString()}

// A change of a run comes as a patch from the version every client holds; a page that holds another
// version of it (it fetched the run meanwhile) or not the run at all fetches it whole if it shows it.
const fetching = new Set();
async function fetchRun(runId) {
  if (fetching.has(runId)) return;
  fetching.add(runId);
  try {
    const response = await fetch("/api/runs/" + encodeURIComponent(runId), { headers: auth });
    if (response.ok) onRun(await response.json());
  } finally { fetching.delete(runId); }
}

function onPatch(patch) {
  if (shown && shown.runId === patch.runId) {
    if (shown.version === patch.from) { applyViewPatch(shown, patch); renderRun(); renderRuns(); return; }
    if (shown.version >= patch.to) return;
  }
  if (wanted(patch)) fetchRun(patch.runId);
}

async function stream() {
  for (;;) {
    try {
      const response = await fetch("/api/events", { headers: auth });
      if (response.status === 401) { say("the link's token is missing or wrong: open the URL gantry serve printed"); return; }
      if (!response.ok || !response.body) throw new Error("HTTP " + response.status);
      document.body.dataset.connected = "yes";
      // A new stream (a restarted server counts its versions again): what it sends first is taken as is.
      if (shown) shown.version = undefined;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const type = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (!data) continue;
          if (type === "runs") { runs = JSON.parse(data); renderRuns(); }
          if (type === "run") onRun(JSON.parse(data));
          if (type === "patch") onPatch(JSON.parse(data));
        }
      }
    } catch (error) {
      say("disconnected: " + error.message + "; reconnecting");
    }
    document.body.dataset.connected = "no";
    await new Promise((r) => setTimeout(r, 1000));
  }
}
renderRun();
stream();
`;
