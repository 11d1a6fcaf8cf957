import type { LedgerEntry } from "../model/ledger.js";
import { truncate } from "../util/text.js";

type Detail = Record<string, unknown>;
const list = (value: unknown): Detail[] => (Array.isArray(value) ? (value as Detail[]) : []);
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const where = (f: Detail) =>
  `${String(f.file)}${typeof f.line === "number" && f.line > 0 ? `:${f.line}` : ""}`;
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** Each gate's detail in words; a gate not known here shows its reason or nothing, never raw JSON. */
const BY_GATE: Record<string, (d: Detail) => string> = {
  review: (d) =>
    list(d.checks)
      .map((c) => `${String(c.name)} ${c.success ? "ok" : "failed"}`)
      .join(", ") || "no checks",
  "story-check": (d) => {
    const checks = list(d.checks)
      .map((c) => `${String(c.name)} ${c.success ? "ok" : "failed"}`)
      .join(", ");
    return `${text(d.phase) ?? ""}${d.phase ? ": " : ""}${checks || "no checks"}`;
  },
  "review-decision": (d) => text(d.reason) ?? "",
  "test-integrity": (d) => {
    const findings = list(d.findings).map((f) => `${where(f)} ${String(f.kind)}`);
    const allowed = list(d.allowed).map(
      (f) => `${where(f)} ${String(f.kind)} (allowed: ${String(f.allowedBy)})`,
    );
    const parts = [
      findings.length ? `${plural(findings.length, "finding")}: ${findings.join("; ")}` : "",
      allowed.length ? `allowed: ${allowed.join("; ")}` : "",
    ].filter(Boolean);
    return parts.join(" · ") || text(d.reason) || "no findings";
  },
  "test-strength": (d) => {
    const files = list(d.files);
    const weak = files.filter((f) => f.outcome === "passes-without-change").map((f) => String(f.file));
    if (weak.length) return `pass without the change: ${weak.join(", ")}`;
    return text(d.reason) ?? (files.length ? `${plural(files.length, "file")} checked` : "");
  },
  tamper: (d) => {
    const changes = list(d.changes).map((c) => `${String(c.what)}${c.restored ? " (put back)" : ""}`);
    return changes.length ? `${String(d.role)} changed ${changes.join("; ")}` : "nothing changed";
  },
  readiness: (d) => {
    const gaps = list(d.gaps).map((g) => `${String(g.code)}${g.severity === "warning" ? " (warning)" : ""}`);
    const accepted =
      Array.isArray(d.accepted) && d.accepted.length ? `; accepted: ${d.accepted.join(", ")}` : "";
    return `${gaps.length ? `gaps: ${gaps.join(", ")}` : "no gaps"}${accepted}`;
  },
};

/** A verdict's evidence in a few words: `TEST_FAILURE · vitest: 10 passed, 2 failed`, `typecheck ok, lint failed`. */
export function verdictSummary(entry: LedgerEntry): string {
  const d = entry.detail as Detail;
  if (typeof d.status === "string") {
    const counts =
      typeof d.passCount === "number"
        ? `: ${d.passCount} passed, ${d.failCount ?? 0} failed${d.skipCount ? `, ${d.skipCount} skipped` : ""}`
        : "";
    const runner = typeof d.runner === "string" ? ` · ${d.runner}` : "";
    const reason = typeof d.reason === "string" ? ` (${d.reason})` : "";
    return `${d.status}${runner}${counts}${reason}`;
  }
  const summary = BY_GATE[entry.gate]?.(d) ?? text(d.reason) ?? "";
  return truncate(summary, 400);
}
