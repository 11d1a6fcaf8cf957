/**
 * Turns raw captured output into plain text lines, the way a terminal would have shown them:
 * CRLF becomes LF, CI log prefixes go, carriage-return overwrites are applied, escape codes are
 * stripped. Every step is a single linear pass and is skipped when its trigger character is absent.
 */

// CSI (ESC [ ... final), OSC / APC / DCS strings (ESC ] ... BEL or ESC \), charset designations
// (ESC ( B), and two-character escapes (ESC c, ESC 7, ...). No nested quantifiers: linear time.
const ESC = "\u001b";
const BEL = "\u0007";
const CSI8 = "\u009b";
const ESCAPES = new RegExp(
  `${ESC}(?:\\[[0-?]*[ -/]*[@-~]|[\\]_P^X][^${BEL}${ESC}\\n]*(?:${BEL}|${ESC}\\\\)?|[()*+#%][0-9A-Za-z@]|[@-Z\\\\^-~=>0-9])|${CSI8}[0-?]*[ -/]*[@-~]`,
  "g",
);
const ESCAPE_AT = new RegExp(ESCAPES.source, "y");

/** GitHub Actions / Azure Pipelines raw logs prefix every line with an ISO timestamp. */
const CI_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/gm;
/** `##[group]`, `##[endgroup]`, `##[error]`, `##[section]`, ... markers; the text after them stays. */
const CI_MARKER = /^##\[[a-z]+\]/gm;

export function normalizeOutput(raw: string): string {
  let text = raw;
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.includes("\r\n")) text = text.replace(/\r\n/g, "\n");
  const head = text.slice(0, 4096);
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/m.test(head)) text = text.replace(CI_TIMESTAMP, "");
  if (text.includes("##[")) text = text.replace(CI_MARKER, "");
  if (text.includes("\r")) text = text.replace(/^[^\n\r]*\r[^\n]*/gm, renderLine);
  if (text.includes(ESC) || text.includes(CSI8)) text = text.replace(ESCAPES, "");
  return text;
}

/**
 * Replays one line containing carriage returns on a one-line screen: `\r` moves to column 0, later
 * text overwrites earlier text, `ESC[K` / `ESC[2K` erase, `ESC[nG` moves the cursor. Other escape
 * codes are dropped.
 */
export function renderLine(line: string): string {
  const screen: string[] = [];
  let col = 0;
  let i = 0;
  while (i < line.length) {
    const ch = line[i] as string;
    if (ch === "\r") {
      col = 0;
      i++;
      continue;
    }
    if (ch === ESC) {
      const next = line[i + 1];
      if (next === "[") {
        let j = i + 2;
        while (j < line.length && line.charCodeAt(j) >= 0x20 && line.charCodeAt(j) <= 0x3f) j++;
        const params = line.slice(i + 2, j);
        const final = line[j];
        if (final === "K") {
          if (params === "" || params === "0") screen.length = Math.min(screen.length, col);
          else if (params === "2") screen.length = 0;
          else if (params === "1") for (let k = 0; k < col && k < screen.length; k++) screen[k] = " ";
        } else if (final === "G") {
          col = Math.max(0, (Number.parseInt(params, 10) || 1) - 1);
        }
        i = j + 1;
        continue;
      }
      ESCAPE_AT.lastIndex = i;
      const match = ESCAPE_AT.exec(line);
      i = match ? i + match[0].length : i + 1;
      continue;
    }
    while (screen.length < col) screen.push(" ");
    screen[col++] = ch;
    i++;
  }
  return screen.join("");
}
