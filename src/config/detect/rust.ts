/**
 * Rust (Cargo.toml): cargo's own test, clippy, check and fmt; `--workspace` at a workspace root. The lint
 * command checks the formatting too (`cargo fmt --check`), so formatFix has work when review fails on it.
 */
import type { ProjectFiles, StackResult } from "./types.js";

export function detectRust(files: ProjectFiles): StackResult | undefined {
  const manifest = files.read("Cargo.toml");
  if (manifest === undefined) return undefined;
  const workspace = /^\s*\[workspace\]\s*$/m.test(manifest);
  const all = workspace ? " --workspace" : "";
  const source = workspace ? "[workspace] in Cargo.toml" : "Cargo.toml";
  return {
    stack: "rust",
    manifest: "Cargo.toml",
    commands: {
      test: { command: `cargo test${all}`, source },
      typecheck: { command: `cargo check${all}`, source },
      lint: {
        command: `cargo clippy${all} -- -D warnings && cargo fmt${workspace ? " --all" : ""} --check`,
        source,
      },
      formatFix: { command: workspace ? "cargo fmt --all" : "cargo fmt", source },
    },
    notes: ["cargo tests run by crate: no scoped test command"],
  };
}
