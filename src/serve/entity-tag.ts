import { hash } from "node:crypto";

/** Distinct keys (the run list, one per run) kept before the tags are forgotten and made again. */
const MAX_KEYS = 1000;

/**
 * The entity tags of the cached JSON answers (`GET /api/runs`, `GET /api/runs/{id}`), a digest of the bytes
 * sent, made once per distinct answer: the hub makes each answer's JSON once per change and hands every
 * request the same string, so a request costs one comparison of references here, not a digest.
 */
export class EntityTags {
  private readonly last = new Map<string, { json: string; tag: string }>();

  /** The tag of the JSON's UTF-8 bytes, made once per answer. */
  tag(key: string, json: string): string {
    const known = this.last.get(key);
    if (known && known.json === json) return known.tag;
    if (this.last.size >= MAX_KEYS) this.last.clear();
    const tag = `"${hash("sha256", json, "base64url").slice(0, 27)}"`;
    this.last.set(key, { json, tag });
    return tag;
  }
}

/**
 * Whether an `If-None-Match` value names `tag` (RFC 9110 13.1.2: a list of tags, weak ones compared
 * weakly, or `*`): then the client's copy is current and the answer is `304` with no body.
 */
export function noneMatchHolds(ifNoneMatch: string | undefined, tag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch === tag) return true;
  for (const part of ifNoneMatch.split(",")) {
    const candidate = part.trim();
    if (candidate === "*") return true;
    if ((candidate.startsWith("W/") ? candidate.slice(2) : candidate) === tag) return true;
  }
  return false;
}

/** A read's answer: `304` with no body when the client holds this copy (`If-None-Match`), else the JSON with its tag. */
export function conditionalReply(
  tags: EntityTags,
  ifNoneMatch: string | undefined,
  key: string,
  json: string,
): { status: number; json: string; etag: string } {
  const etag = tags.tag(key, json);
  return noneMatchHolds(ifNoneMatch, etag) ? { status: 304, json: "", etag } : { status: 200, json, etag };
}
