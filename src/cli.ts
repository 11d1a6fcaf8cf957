#!/usr/bin/env node
import { Command, CommanderError, Option } from "commander";
import { reportFailure } from "./cli/exit.js";

// Only commander is imported at start-up; each command loads what it needs when it runs.
const program = new Command()
  .name("gantry")
  .description("Carries a feature's user stories through an AI coding agent, stage by stage.")
  .version("0.1.0")
  .exitOverride()
  .configureOutput({ outputError: (text, write) => write(text) });

const collect = (value: string, previous: string[]) => [...previous, value];

program
  .command("run")
  .description("run a feature's stories through the pipeline")
  .requiredOption("-f, --feature <name>", "the feature under .gantry/features/")
  .option("--story <id>", "only this story (repeatable)", collect, [])
  .option("--dir <path>", "the project root", ".")
  .option("--dry-run", "print the stories, their order and routing; run nothing")
  .option("--allow-dirty", "start even though the working tree has uncommitted changes")
  .option("--reporter <name>", "a reporter instead of the config's (repeatable)", collect, [])
  .addOption(
    new Option("--regression <mode>", "override execution.regression.mode").choices([
      "inline",
      "deferred",
      "off",
    ]),
  )
  .option("--json", "print only the machine-readable summary, on stdout")
  .option("--silent", "no progress in the terminal (file reporters still write)")
  .option("--plan", "plan the stories first (gantry plan) when the feature has no prd.json")
  .option(
    "--parallel <n>",
    "stories at once, each in its own worktree (0 = one a core); default execution.parallel",
  )
  .option(
    "--shard <i/K>",
    "run shard i of K (see plan-shards) on branch gantry/<feature>/shard-<i>, then push it",
  )
  .option("--no-push", "with --shard: do not push the shard branch")
  .action(async (options) => exit(await (await import("./cli/run.js")).runCommand(options)));

program
  .command("plan")
  .description("turn a feature's spec into stories in its prd.json, by the agent in role plan")
  .requiredOption("-f, --feature <name>", "the feature under .gantry/features/")
  .option("--from <file>", "the spec, instead of .gantry/features/<name>/spec.md")
  .option("--dir <path>", "the project root", ".")
  .option("--dry-run", "print the stories; write nothing")
  .option("--no-critic", "no critic session before prd.json is written (recorded as skipped)")
  .action(async (options) => exit(await (await import("./cli/plan.js")).planCommand(options)));

program
  .command("rules")
  .description("list the project's rules (.gantry/rules.md) that gantry plan's critic cites")
  .option("--dir <path>", "the project root", ".")
  .option("--json", "machine-readable output")
  .action(async (options) => exit(await (await import("./cli/rules.js")).rulesCommand(options)));

program
  .command("features")
  .description("manage features")
  .command("new")
  .description("create .gantry/features/<name>/spec.md from a template")
  .argument("<name>", "the feature")
  .option("--dir <path>", "the project root", ".")
  .action(async (name: string, options) =>
    exit(await (await import("./cli/features.js")).featuresNewCommand(name, options)),
  );

program
  .command("plan-shards")
  .description(
    "split a feature's open stories into K shards for a CI matrix (dependency chains kept together)",
  )
  .requiredOption("-f, --feature <name>", "the feature under .gantry/features/")
  .requiredOption("--shards <k>", "how many shards (CI runners)")
  .option("--dir <path>", "the project root", ".")
  .option("--json", "print the matrix as JSON")
  .action(async (options) => exit(await (await import("./cli/plan-shards.js")).planShardsCommand(options)));

program
  .command("merge-shards")
  .description(
    "merge the shard branches into the feature branch, judging each merged tree, then ledger check",
  )
  .requiredOption("-f, --feature <name>", "the feature under .gantry/features/")
  .requiredOption("--shards <k>", "the K the shards ran with (--shard i/K): only the plan's shards merge")
  .option("--dir <path>", "the project root", ".")
  .option("--reporter <name>", "a reporter instead of the config's (repeatable)", collect, [])
  .option("--json", "print only the machine-readable summary, on stdout")
  .action(async (options) =>
    exit(await (await import("./cli/run.js")).runCommand({ ...options, story: [], mergeShards: true })),
  );

program
  .command("validate")
  .description("the pre-flight of a run, without running: config, PRDs, agent, reporters, git, ...")
  .option("-f, --feature <name>", "only this feature")
  .option("--dir <path>", "the project root", ".")
  .option("--json", "machine-readable output")
  .option("--strict", "keys in a PRD that look misspelt are errors, not warnings")
  .action(async (options) => exit(await (await import("./cli/validate.js")).validateCommand(options)));

program
  .command("status")
  .description("show the stories of each feature and their status")
  .option("-f, --feature <name>", "only this feature")
  .option("--dir <path>", "the project root", ".")
  .option("--json", "machine-readable output")
  .action(async (options) => exit(await (await import("./cli/status.js")).statusCommand(options)));

program
  .command("runs")
  .description("list the runs: start, feature, status, stories passed and failed, cost, directory")
  .option("-f, --feature <name>", "only this feature's runs")
  .option("--dir <path>", "the project root", ".")
  .option("--json", "machine-readable output, on stdout")
  .action(async (options) => exit(await (await import("./cli/runs.js")).runsCommand(options)));

program
  .command("schema")
  .description("print a JSON Schema: config, prd")
  .argument("[name]", "which schema", "config")
  .action(async (name: string) => exit(await (await import("./cli/schema.js")).schemaCommand(name)));

program
  .command("parse-tests")
  .description("print what a test log parses to")
  .argument("<file>", "a log file, or - for standard input")
  .option("--runner <name>", "the runner, instead of detecting it")
  .option("--exit-code <n>", "combine with the command's exit code as verify does")
  .option("--json", "machine-readable output")
  .action(async (file: string, options) =>
    exit(await (await import("./cli/parse-tests.js")).parseTestsCommand(file, options)),
  );

program
  .command("init")
  .description("write .gantry/config.json with the project's test, lint and typecheck commands")
  .option("--dir <path>", "the project root", ".")
  .option("--force", "overwrite an existing .gantry/config.json")
  .option("--json", "print only the detection result as JSON, on stdout")
  .action(async (options) => exit(await (await import("./cli/init.js")).initCommand(options)));

program
  .command("agents")
  .description("list the agent adapters: CLI on PATH, version, model per tier")
  .option("--dir <path>", "the project root (default: .)")
  .option("--json", "machine-readable output, on stdout")
  .action(async (options) => exit(await (await import("./cli/agents.js")).agentsCommand(options)));

program
  .command("logs")
  .description("print a run's progress lines (the newest run unless --run names one)")
  .option("-f, --feature <name>", "the newest run of this feature")
  .option("--run <id>", "a run id under .gantry/runs/")
  .option("--follow", "follow a live run until it ends")
  .option("--dir <path>", "the project root (default: .)")
  .option("--json", "the run's events, one JSON object a line, on stdout")
  .action(async (options) => exit(await (await import("./cli/logs.js")).logsCommand(options)));

program
  .command("serve")
  .description("serve a live page of every run, and signed device routes (docs/serve.md)")
  .option("--port <n>", "the port (default: a free one)")
  .option("--host <address>", "listen on this address instead of 127.0.0.1 (warns)")
  .option("--nice <n>", "idle (SCHED_IDLE, the default) or a niceness 0-19: a run here comes first")
  .option("--dir <path>", "the project root (default: .)")
  .action(async (options) => exit(await (await import("./cli/serve.js")).serveCommand(options)));

const devices = program
  .command("devices")
  .description("enrol, list and revoke devices that may use gantry serve's signed routes");
const devicesCli = () => import("./cli/devices.js");
devices
  .command("add")
  .description("enrol a device's Ed25519 public key")
  .requiredOption("--name <name>", "what the device is called")
  .requiredOption("--public-key <base64>", "the device's Ed25519 public key: 32 raw bytes, base64")
  .option("--scopes <list>", "read, answer (comma-separated)", "read")
  .option("--dir <path>", "the project root (default: .)")
  .action(async (options) => exit(await (await devicesCli()).devicesAddCommand(options)));
devices
  .command("list")
  .description("list the enrolled devices")
  .option("--dir <path>", "the project root (default: .)")
  .option("--json", "machine-readable output, on stdout")
  .action(async (options) => exit(await (await devicesCli()).devicesListCommand(options)));
devices
  .command("revoke")
  .description("revoke a device: its requests are refused from now on")
  .argument("<id>", "the device id (see gantry devices list)")
  .option("--dir <path>", "the project root (default: .)")
  .action(async (id: string, options) => exit(await (await devicesCli()).devicesRevokeCommand(id, options)));
devices
  .command("keygen")
  .description("make an Ed25519 key pair to try the device routes; prints the public key")
  .requiredOption("--out <file>", "where the private key is written (PEM, 0600)")
  .action(async (options) => exit(await (await devicesCli()).devicesKeygenCommand(options)));
devices
  .command("sign")
  .description("sign one device request (the reference client); --url sends it")
  .requiredOption("--device <id>", "the device id")
  .requiredOption("--key <file>", "the device's private key (PEM)")
  .requiredOption("--target <path>", "e.g. /v1/device/runs")
  .option("--method <method>", "GET or POST", "GET")
  .option("--body <json>", "the request body")
  .option("--url <url>", "the server, e.g. http://127.0.0.1:8080")
  .action(async (options) => exit(await (await devicesCli()).devicesSignCommand(options)));

const ledger = program
  .command("ledger")
  .description("list a run's or a plan's gate verdicts (the newest unless --run names one)")
  .option("--run <id>", "a run id under .gantry/runs/, or a plan's id (plan-…)")
  .option("--dir <path>", "the project root (default: .)")
  .option("--json", "the entries as a JSON array, on stdout")
  .action(async (options) => exit(await (await import("./cli/ledger.js")).ledgerCommand(options)));

ledger
  .command("check")
  .description("exit 0 only if every mandatory gate passed on the current working tree")
  .option("--dir <path>", "the project root (default: .)")
  .option("-f, --feature <name>", "only verdicts recorded for this feature")
  .option("--json", "machine-readable output, on stdout")
  .action(async (_options, command) =>
    exit(await (await import("./cli/ledger.js")).ledgerCheckCommand(command.optsWithGlobals())),
  );

function exit(code: number): void {
  process.exitCode = code;
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : 2; // EXIT.badInput; cli.ts imports commander only
  } else {
    process.exitCode = reportFailure(error);
  }
}
