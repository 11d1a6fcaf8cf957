/**
 * Go modules (go.mod). `go test` needs -v for gantry to count tests: without it a passing package prints
 * only `ok  pkg 0.01s`. Go tests run by package, not by file, so there is no scoped command.
 */
import type { ProjectFiles, StackResult } from "./types.js";

export function detectGo(files: ProjectFiles): StackResult | undefined {
  if (!files.isFile("go.mod")) return undefined;
  const source = "go.mod";
  const result: StackResult = {
    stack: "go",
    manifest: source,
    commands: {
      test: { command: "go test -v ./...", source },
      typecheck: { command: "go build ./...", source },
      lint: { command: "go vet ./...", source },
      formatFix: { command: "gofmt -w .", source },
    },
    notes: ["go tests run by package: no scoped test command"],
  };
  const golangci = files.first([".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json"]);
  if (golangci) {
    result.commands.lint = { command: "golangci-lint run", source: golangci };
    result.commands.lintFix = { command: "golangci-lint run --fix", source: golangci };
  }
  return result;
}
