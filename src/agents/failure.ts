/**
 * Why a CLI session failed, in the CLI's own words: the tail of its standard error when it printed no result,
 * and whether the failure is one a retry or a higher tier cannot change (a rejected key, no login).
 */
import { oneLine } from "../util/text.js";

/** The last lines of `stderr` that say something, at most `max` characters, on one line. */
export function stderrWords(stderr: string, max = 400): string | undefined {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    // Stack frames and blank lines say nothing a person acts on.
    .filter((l) => l !== "" && !/^at\s/.test(l) && !/^[{}[\]],?$/.test(l));
  if (lines.length === 0) return undefined;
  const said = lines.slice(-3).join(" | ");
  return oneLine(said.length > max ? said.slice(said.length - max) : said, max);
}

/**
 * Authentication failures as the four CLIs and their providers word them: HTTP 401, Anthropic's
 * `authentication_error`, OpenAI's `invalid_api_key`, Google's UNAUTHENTICATED / "API key not valid",
 * Claude Code's "Invalid API key · Please run /login", Codex's "Not logged in", Gemini CLI's auth-method errors.
 */
const AUTH_FAILURE =
  /\b401\b|unauthori[sz]ed|authentication_error|invalid[_ ](x-)?api[_ -]?key|incorrect api key|api key not valid|UNAUTHENTICATED|not logged in|please run \/login|invalid auth method|must specify the GEMINI_API_KEY/i;

export function looksLikeAuthFailure(text: string): boolean {
  return AUTH_FAILURE.test(text);
}
