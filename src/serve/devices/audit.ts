import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { serveDir } from "../token.js";

export const AUDIT_FILE = "audit.jsonl";

export interface AuditRecord {
  verb: string;
  /** The device id the request claimed, as given (trimmed), or "-". */
  device: string;
  status: number;
  outcome: string;
}

/** Every device request, one line each, appended: verb, device, outcome. Never a body, a key or a signature. */
export function createAuditLog(root: string): (record: AuditRecord) => void {
  const file = join(serveDir(root), AUDIT_FILE);
  return (record) => {
    appendFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), ...record })}\n`, { mode: 0o600 });
  };
}
