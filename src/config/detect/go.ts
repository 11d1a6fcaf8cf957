/**
 * Go modules (go.mod). `go test` needs -v for gantry to count tests: without it a passing package prints
 * only `ok  pkg 0.01s`. Go tests run by package, not by file, so there is no scoped command. The lint
 * command checks gofmt's formatting too, so formatFix (`gofmt -w`) has work when review fails on it.
 */
import type { ProjectFiles, StackResult } from "./types.js";

/** Fails, naming the files, when gofmt would change any: a formatting slip fails review like a lint finding. */
export const GOFMT_CHECK = "! gofmt -l . | grep .";

export function detectGo(files: ProjectFiles): StackResult | undefined {
  if (!files.isFile("go.mod")) return undefined;
  const source = "go.mod";
  const result: StackResult = {
    stack: "go",
    manifest: source,
    commands: {
      test: { command: "go test -v ./...", source },
      typecheck: { command: "go build ./...", source },
      // gofmt -l lists unformatted files and still exits 0: a listed file (grep matched) is the failure.
      lint: { command: `go vet ./... && ${GOFMT_CHECK}`, source },
      formatFix: { command: "gofmt -w .", source },
    },
    notes: ["go tests run by package: no scoped test command"],
  };
  const golangci = files.first([".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json"]);
  if (golangci) {
    result.commands.lint = { command: `golangci-lint run && ${GOFMT_CHECK}`, source: golangci };
    result.commands.lintFix = { command: "golangci-lint run --fix", source: golangci };
  }
  return result;
}
