import { createHash } from "node:crypto";
import { PAGE_SCRIPT } from "./page-script.js";

const SCRIPT_HASH = createHash("sha256").update(PAGE_SCRIPT).digest("base64");

/** Only this page's own script and styles run; it talks to this server only. */
export const PAGE_CSP = [
  "default-src 'none'",
  `script-src 'sha256-${SCRIPT_HASH}'`,
  "style-src 'unsafe-inline'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; display: flex; min-height: 100vh; color: #1d232a; }
nav { width: 320px; background: #f3f5f7; padding: 12px; border-right: 1px solid #d7dce1; }
nav ul { list-style: none; padding: 0; margin: 0; } nav li { padding: 6px; cursor: pointer; border-radius: 4px; font-size: 12px; }
nav li.selected { background: #dde6ef; } nav li.running { font-weight: 600; }
main { flex: 1; padding: 12px 20px; }
table { border-collapse: collapse; width: 100%; } td, th { border-bottom: 1px solid #e3e7eb; padding: 4px 6px; text-align: left; vertical-align: top; }
tr.passed .status { color: #17803d; } tr.failed .status, tr.blocked .status { color: #b42318; } tr.in-progress .status { color: #1f5fbf; font-weight: 600; }
li.verdict { font-size: 12px; } li.verdict.pass { color: #17803d; } li.verdict.fail { color: #b42318; }
ul { margin: 0; padding-left: 16px; }
.question { border: 2px solid #e0a100; background: #fff8e1; padding: 8px; margin: 8px 0; border-radius: 6px; }
.muted { color: #66707a; font-size: 12px; }
button { margin-right: 6px; }
pre#log { background: #111820; color: #d8e0e8; padding: 8px; max-height: 320px; overflow: auto; font-size: 12px; }
#notice { color: #66707a; min-height: 1.4em; }
tr.findings > td { padding: 2px 6px 10px 24px; background: #fafbfc; }
.decision-head { margin: 4px 0; font-size: 12px; } .decision.fail .decision-head { color: #b42318; } .decision.pass .decision-head { color: #17803d; }
table.findings { font-size: 12px; } table.findings td.text { white-space: pre-wrap; max-width: 520px; }
tr.finding.blocker td.severity { color: #b42318; font-weight: 600; } tr.finding.lowered td.severity { color: #a15c00; }
.missing { color: #b42318; font-size: 12px; margin: 2px 0; }
`;

/** The static page: no run data in it (that comes over the token-checked routes), so it needs no token. */
export const PAGE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gantry serve</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<style>${STYLE}</style></head>
<body><nav><h1>gantry</h1><p id="notice"></p><ul id="runs"></ul></nav><main id="run"></main>
<script>${PAGE_SCRIPT}</script></body></html>
`;
