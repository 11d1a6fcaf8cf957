import { type GantryPlugin, PLUGIN_KINDS, type PluginKind } from "./types.js";

/** The shape a factory returned is wrong; the message reads "<where>: expected X, got Y". */
export class PluginShapeError extends Error {
  override name = "PluginShapeError";
}

const KEYS = new Set(["name", "provides", "reviewers", "routers", "agents"]);
const LIST_OF: Record<PluginKind, { key: "reviewers" | "routers" | "agents"; method: string }> = {
  reviewer: { key: "reviewers", method: "review" },
  router: { key: "routers", method: "route" },
  agent: { key: "agents", method: "create" },
};

/** Checks what a plugin factory returned against the plugin API; throws a PluginShapeError. */
export function validatePlugin(value: unknown): GantryPlugin {
  if (!isRecord(value)) fail("the factory's result", "an object { name, provides, ... }", value);
  const unknown = Object.keys(value).filter((k) => !KEYS.has(k));
  if (unknown.length > 0) {
    throw new PluginShapeError(
      `unknown key${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => JSON.stringify(k)).join(", ")}; expected only ${[...KEYS].join(", ")}`,
    );
  }
  if (typeof value.name !== "string" || value.name.trim() === "")
    fail("name", "a non-empty string", value.name);
  const provides = value.provides;
  if (!Array.isArray(provides)) fail("provides", `an array of ${kindList()}`, provides);
  for (const [i, kind] of provides.entries()) {
    if (!PLUGIN_KINDS.includes(kind)) fail(`provides[${i}]`, `one of ${kindList()}`, kind);
  }
  for (const kind of PLUGIN_KINDS) {
    const { key, method } = LIST_OF[kind];
    const list = value[key];
    const declared = provides.includes(kind);
    if (list !== undefined && !Array.isArray(list)) fail(key, `an array of { name, ${method}() }`, list);
    const given = (list as unknown[] | undefined) ?? [];
    if (declared && given.length === 0) {
      throw new PluginShapeError(`provides "${kind}" but gives no ${key}; expected at least one in ${key}`);
    }
    if (!declared && given.length > 0) {
      throw new PluginShapeError(`gives ${key} but does not declare "${kind}" in provides`);
    }
    const seen = new Set<string>();
    for (const [i, item] of given.entries()) {
      const where = `${key}[${i}]`;
      if (!isRecord(item)) fail(where, `an object { name, ${method}() }`, item);
      if (typeof item.name !== "string" || item.name.trim() === "") {
        fail(`${where}.name`, "a non-empty string", item.name);
      }
      if (typeof item[method] !== "function") fail(`${where}.${method}`, "a function", item[method]);
      if (seen.has(item.name)) throw new PluginShapeError(`${where}: a second ${kind} named "${item.name}"`);
      seen.add(item.name);
    }
  }
  return value as unknown as GantryPlugin;
}

function fail(where: string, expected: string, got: unknown): never {
  throw new PluginShapeError(`${where}: expected ${expected}, got ${describeValue(got)}`);
}

const kindList = () => PLUGIN_KINDS.map((k) => `"${k}"`).join(", ");

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `undefined`, `null`, `an array`, `a function`, `an object with keys a, b`, or the value as JSON. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === "function") return "a function";
  if (typeof value === "object") {
    const keys = Object.keys(value);
    return keys.length ? `an object with keys ${keys.slice(0, 8).join(", ")}` : "an empty object";
  }
  const text = JSON.stringify(value) ?? String(value);
  return `${typeof value} ${text.length > 60 ? `${text.slice(0, 57)}...` : text}`;
}
