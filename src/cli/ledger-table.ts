import { shortHash } from "../ledger/gate-rule.js";
import type { LedgerEntry } from "../model/ledger.js";
import { oneLine } from "../util/text.js";

const HEADERS = ["TIME (UTC)", "STORY", "GATE", "VERDICT", "ATTEMPT", "TREE", "DETAIL"] as const;

/**
 * A run's verdicts as an aligned plain-text table, one verdict a row, in file order. Lines in `forged`
 * (no valid MAC) are shown, marked, so a reader sees what was planted; they count for nothing.
 */
export function formatLedgerTable(
  entries: LedgerEntry[],
  forged: ReadonlySet<LedgerEntry> = new Set(),
): string {
  const rows = entries.map((entry) => [
    entry.at.replace("T", " ").slice(0, 19),
    entry.storyId,
    entry.gate,
    forged.has(entry) ? `${entry.verdict} (NO VALID MAC)` : entry.verdict,
    String(entry.attempt ?? ""),
    shortHash(entry.tree),
    formatDetail(entry.detail),
  ]);
  const widths = HEADERS.map((header, i) =>
    Math.max(header.length, ...rows.map((row) => row[i]?.length ?? 0)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(HEADERS), ...rows.map(line)].map((text) => `${text}\n`).join("");
}

/**
 * The detail a reader wants at a glance: the runner and its counts for a test gate, each check for
 * review, else the detail's plain fields as key=value.
 */
export function formatDetail(detail: Record<string, unknown> | undefined): string {
  if (!detail || typeof detail !== "object") return "";
  if (typeof detail.runner === "string") {
    const counts = [`${num(detail.passCount)} passed`, `${num(detail.failCount)} failed`];
    if (num(detail.skipCount) > 0) counts.push(`${num(detail.skipCount)} skipped`);
    const status = typeof detail.status === "string" && detail.status !== "PASS" ? ` ${detail.status}` : "";
    const reason = typeof detail.reason === "string" ? ` — ${oneLine(detail.reason, 80)}` : "";
    return `${detail.runner}: ${counts.join(", ")}${status}${reason}`;
  }
  if (Array.isArray(detail.checks)) {
    return detail.checks
      .map(
        (check: { name?: unknown; success?: unknown }) =>
          `${String(check?.name)} ${check?.success ? "ok" : "failed"}`,
      )
      .join(", ");
  }
  return Object.entries(detail)
    .filter(([, value]) => ["string", "number", "boolean"].includes(typeof value))
    .map(([key, value]) => `${key}=${oneLine(String(value), 80)}`)
    .join(" ");
}

const num = (value: unknown): number => (typeof value === "number" ? value : 0);
