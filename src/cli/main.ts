import { readFileSync } from "node:fs";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { didYouMean } from "../config/did-you-mean.js";
import { nameRunForCodeCache } from "./code-cache-run.js";
import { COMMAND_OPTIONS, GLOBAL_OPTIONS, type GlobalOptions, USAGE, UsageError } from "./options.js";
import { parsePlainArguments } from "./plain-arguments.js";

/** Each command's module is loaded only when it runs, so `gantry --version` starts as fast as node. */
const COMMANDS: Record<
  string,
  () => Promise<{ run(args: string[], options: GlobalOptions): Promise<number> }>
> = {
  tool: () => import("./commands/tool.js"),
  tools: () => import("./commands/tools.js"),
  hooks: () => import("./commands/hooks.js"),
  agents: () => import("./commands/agents.js"),
  trust: () => import("./commands/trust.js"),
  config: () => import("./commands/config.js"),
  mcp: () => import("./commands/mcp.js"),
  skills: () => import("./commands/skills.js"),
  artifacts: () => import("./commands/artifacts.js"),
  worker: () => import("./commands/worker.js"),
  submit: () => import("./commands/submit.js"),
  sessions: () => import("./commands/sessions.js"),
  approve: () => import("./commands/approve.js"),
  cancel: () => import("./commands/cancel.js"),
};

/** Commands whose `-p` is their own (the prompt they send), not a headless run. */
const PROMPT_COMMANDS = new Set(["submit"]);

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArguments(argv);
  const options = values as GlobalOptions;
  if (options.version) {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (options.acp) return ranAs("acp", await (await import("../acp/stdio.js")).run(positionals, options));
  const [command, ...rest] = positionals;
  if (options.prompt !== undefined && !PROMPT_COMMANDS.has(command ?? ""))
    return ranAs("headless", await (await import("./headless.js")).run(positionals, options));
  const load = command === undefined ? undefined : COMMANDS[command];
  // `gantry` alone, or `gantry "fix the bug"`: an interactive session (with that first prompt)
  if (!load || command === undefined) {
    const interactive = await import("./interactive.js");
    return ranAs("interactive", await interactive.run(positionals, options, Object.keys(COMMANDS)));
  }
  const code = await (await load()).run(rest, options);
  // `gantry tool` names its run itself, by the tool it called
  return command === "tool" ? code : ranAs(command, code);
}

/**
 * A command that is done, with nothing left running, ends the process at once rather than through
 * Node's teardown of its heap and threads (0.2 ms of a one-call `gantry tool` in interleaved pairs):
 * with no active handle or request Node would end it there anyway, and the 'exit' listeners (the code
 * caches) still run. Anything still open (a child being stopped, a write in flight, a stream on a pipe)
 * leaves the exit to Node, as does a `beforeExit` listener, which only Node's own exit calls.
 */
function exitOnceIdle(): void {
  setImmediate(() => {
    if (process.getActiveResourcesInfo().length === 0 && process.listenerCount("beforeExit") === 0)
      process.exit();
  });
}

/** A command's exit code; a success names the run for the code caches (src/cli/code-cache-run.ts). */
function ranAs(name: string, code: number): number {
  if (code === 0) nameRunForCodeCache(name);
  return code;
}

/**
 * A plain command line as Node's parser reads it (plain-arguments.ts); any other through Node's parser,
 * with a did-you-mean for a misspelled option (`--modle`: did you mean "--model"?).
 */
function parseArguments(argv: string[]) {
  const options = { ...GLOBAL_OPTIONS, ...commandOptions(argv) };
  const plain = parsePlainArguments(argv, options);
  if (plain) return plain;
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (cause) {
    const unknown = /^Unknown option '(-{1,2}[^']+)'/.exec((cause as Error).message)?.[1];
    if (unknown === undefined) throw cause;
    const known = Object.keys(options).map((name) => `--${name}`);
    throw new UsageError(`unknown option "${unknown}"${didYouMean(unknown, known)}`);
  }
}

/** The options of the command argv names (its first word that is not an option or an option's value). */
function commandOptions(argv: string[]): ParseArgsConfig["options"] {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") return {};
    if (!arg.startsWith("-")) return COMMAND_OPTIONS[arg] ?? {};
    if (arg.includes("=")) continue;
    const option = Object.entries(GLOBAL_OPTIONS).find(
      ([name, spec]) => arg === `--${name}` || ("short" in spec && arg === `-${spec.short}`),
    )?.[1];
    if (option?.type === "string") i++; // its value
  }
  return {};
}

main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      const usage =
        error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
      process.stderr.write(`gantry: ${(error as Error).message}\n`);
      if (usage) process.stderr.write(`\n${USAGE}`);
      process.exitCode = usage ? 2 : 1;
    },
  )
  .then(exitOnceIdle);
