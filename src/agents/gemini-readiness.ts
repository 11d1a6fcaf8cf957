/**
 * Whether Gemini CLI sessions can work here, from its settings and environment (Gemini has no offline
 * login check): an auth type it accepts headless, and what GOOGLE_GEMINI_BASE_URL does to it.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { ReadinessContext, ReadinessFinding } from "./adapter.js";
import { isObject, obj } from "./output.js";

export async function geminiReadiness(context: ReadinessContext): Promise<ReadinessFinding[]> {
  const { env } = context;
  const home = join(env.HOME || homedir(), ".gemini");
  const selected = selectedAuthType(join(home, "settings.json"));
  const found: ReadinessFinding[] = [{ kind: "ok", text: "folder trust: --skip-trust" }];
  if (env.GOOGLE_GEMINI_BASE_URL && !selected) {
    // With the base URL set, Gemini CLI picks the "gateway" auth type, which headless mode rejects (exit 41).
    found.push({
      kind: "broken",
      text: 'GOOGLE_GEMINI_BASE_URL is set but ~/.gemini/settings.json names no security.auth.selectedType: Gemini CLI then exits 41 "Invalid auth method selected"; set it to "gemini-api-key"',
    });
  } else if (selected) {
    found.push({ kind: "ok", text: `auth type ${selected}` });
  } else if (
    env.GEMINI_API_KEY ||
    env.GOOGLE_API_KEY ||
    env.GOOGLE_GENAI_USE_VERTEXAI ||
    env.GOOGLE_GENAI_USE_GCA
  ) {
    found.push({ kind: "ok", text: "auth from the environment" });
  } else if (existsSync(join(home, "oauth_creds.json"))) {
    found.push({ kind: "ok", text: "logged in with Google" });
  } else {
    found.push({
      kind: "broken",
      text: "not logged in: set GEMINI_API_KEY, or run `gemini` once and log in",
    });
  }
  return found;
}

function selectedAuthType(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const value: unknown = JSON.parse(readFileSync(file, "utf8"));
    const type = isObject(value) ? obj(obj(value.security).auth).selectedType : undefined;
    return typeof type === "string" ? type : undefined;
  } catch {
    return undefined;
  }
}
