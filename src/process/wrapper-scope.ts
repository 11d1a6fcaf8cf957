import type { WriteScope } from "./activity.js";

/** Wrappers whose confinement is known, by identity: one built elsewhere, or changed after, has none. */
const scopes = new WeakMap<readonly string[], WriteScope>();

/**
 * Marks a wrapper (bwrap's command line, up to `--`) as one whose commands can write only `scope`, and
 * freezes it so the mark stays true. Only the code that builds the binds may say this (sandbox.ts).
 */
export function confine(wrapper: string[], scope: WriteScope): readonly string[] {
  Object.freeze(wrapper);
  scopes.set(wrapper, scope);
  return wrapper;
}

/** Where commands under `wrapper` can write; undefined (anywhere) for no wrapper or an unknown one. */
export function scopeOf(wrapper: readonly string[] | undefined): WriteScope | undefined {
  return wrapper ? scopes.get(wrapper) : undefined;
}
