import { readFileSync, readlinkSync } from "node:fs";
import { LOCATION_VARIABLES } from "../../policy/shell-location-variables.js";
import { randomHex } from "../../session/random-ids.js";
import type { OutputCapture } from "./output-buffer.js";
import { descendantsOf, type ExitStatus } from "./process-tree.js";
import type { RunningCommand } from "./running-command.js";
import type { ExecRuntime } from "./runtime.js";

/**
 * Persistent terminals (RunPersistent): one long-lived bash per id, fed one command at a time, so
 * `cd` and `export` carry over. Each command runs through `eval` with stdin at /dev/null (the shell
 * reads its commands from stdin), then prints a sentinel line carrying `$?` and `$PWD`. The shell's
 * real folder is read from /proc after each command (a `PWD=` assignment cannot fake it), so the
 * policy judges the next command's relative paths against where the shell really is.
 */
export interface TerminalPool {
  /** Runs `command` in terminal `id`, creating it in `cwd` if it does not exist. */
  run(id: string, command: string, cwd: string): Promise<RunningCommand & { createdTerminal: boolean }>;
  isBusy(id: string): boolean;
  list(): string[];
  /** Terminal `id`'s real current folder: undefined when it is not open, null when it cannot be told. */
  folderOf(id: string): string | null | undefined;
  /** Terminal `id`'s `$HOME` (what `~` means there): undefined when it is not open, null when it cannot be told. */
  homeOf(id: string): string | null | undefined;
  /** Which variables that change where commands lead (CDPATH, GIT_DIR, …) terminal `id`'s shell has set. */
  locationVariablesOf(id: string): readonly string[] | undefined;
}

interface Terminal {
  id: string;
  shell: RunningCommand;
  sentinel: string;
  current?: { capture: OutputCapture; resolve: (status: ExitStatus) => void };
  pending: string;
  /** Where the shell is, as of its last finished command. */
  folder: string | null;
  /** Its `$HOME` as of its last finished command (a command may export another). */
  home: string | null;
  /** The variables of src/policy/shell-location-variables.ts its shell had set after its last command. */
  locationVariables: string[];
  /** The bash reading the commands (below bwrap in a namespace), once found. */
  shellPid?: number;
}

export function createTerminalPool(runtime: ExecRuntime): TerminalPool {
  const terminals = new Map<string, Terminal>();

  async function open(id: string, cwd: string): Promise<Terminal> {
    // loaded with the first command: a call that runs none (a one-shot view_file) need not load it
    const { StringDecoder } = process.getBuiltinModule("node:string_decoder");
    const decoder = new StringDecoder("utf8");
    const terminal: Terminal = {
      id,
      sentinel: `__GANTRY_DONE_${randomHex(6)}_`,
      pending: "",
      folder: cwd,
      home: runtime.env.HOME ?? null,
      locationVariables: [],
      shell: undefined as unknown as RunningCommand,
    };
    const router = routerCapture((chunk) => route(terminal, decoder.write(chunk)));
    terminal.shell = await runtime.startShell(cwd, router);
    terminals.set(id, terminal);
    void terminal.shell.finished.then((status) => {
      terminals.delete(id);
      const current = terminal.current;
      terminal.current = undefined;
      if (current) {
        current.capture.write(terminal.pending);
        current.resolve(status);
      }
    });
    return terminal;
  }

  function route(terminal: Terminal, text: string): void {
    const current = terminal.current;
    if (!current) return;
    const buffer = terminal.pending + text;
    const match = new RegExp(
      `\\n${terminal.sentinel}(\\d+):([^\\n\\x01]*)\\x01([^\\n\\x01]*)\\x01([^\\n]*)__\\n`,
    ).exec(buffer);
    if (match) {
      terminal.pending = "";
      current.capture.write(buffer.slice(0, match.index));
      terminal.folder = shellFolder(terminal, match[2] as string);
      terminal.home = trusted(match[3] as string);
      terminal.locationVariables = (match[4] as string)
        .split(" ")
        .filter((name) => LOCATION_VARIABLES.includes(name));
      terminal.current = undefined;
      current.resolve({ exitCode: Number(match[1]), signal: null });
      return;
    }
    // hold back what could be the start of the sentinel line
    const started = buffer.lastIndexOf(`\n${terminal.sentinel}`);
    const keepFrom = started >= 0 ? started : Math.max(0, buffer.length - terminal.sentinel.length - 1);
    terminal.pending = buffer.slice(keepFrom);
    current.capture.write(buffer.slice(0, keepFrom));
  }

  return {
    async run(id, command, cwd) {
      let terminal = terminals.get(id);
      const createdTerminal = terminal === undefined;
      terminal ??= await open(id, cwd);
      if (terminal.current) throw new Error(`terminal "${id}" is still running a command`);
      const capture = runtime.newCapture();
      const target = terminal;
      const finished = new Promise<ExitStatus>((resolve) => {
        target.current = { capture, resolve };
      }).then((status) => {
        capture.finish();
        return status;
      });
      const quoted = `'${command.replaceAll("'", `'\\''`)}'`;
      // a newline or \x01 in a reported value would break the sentinel line; such a report is not trusted
      const report = (name: string) => `"\${${name}//[$'\\n\\x01']/?}"`;
      target.shell.write(
        `eval ${quoted} </dev/null; printf '\\n${target.sentinel}%s:%s\\001%s\\001%s__\\n' "$?" ${report("PWD")} ${report("HOME")} "${SET_LOCATION_VARIABLES}"\n`,
      );
      return {
        capture,
        isolation: target.shell.isolation,
        finished,
        createdTerminal,
        acceptsInput: false,
        write() {},
        closeInput() {},
        async kill(graceMs) {
          await target.shell.kill(graceMs);
          return finished;
        },
      };
    },
    isBusy(id) {
      return terminals.get(id)?.current !== undefined;
    },
    list() {
      return [...terminals.keys()];
    },
    folderOf(id) {
      const terminal = terminals.get(id);
      return terminal === undefined ? undefined : terminal.folder;
    },
    homeOf(id) {
      const terminal = terminals.get(id);
      return terminal === undefined ? undefined : terminal.home;
    },
    locationVariablesOf(id) {
      return terminals.get(id)?.locationVariables;
    },
  };
}

/** Expands to the names of the location variables the shell has set (CDPATH only when not empty). */
const SET_LOCATION_VARIABLES = LOCATION_VARIABLES.map((name) =>
  name === "CDPATH" ? `\${CDPATH:+CDPATH }` : `\${${name}+${name} }`,
).join("");

const SHELL_COMMAND_LINE = "bash\0--noprofile\0--norc\0";

/**
 * The shell's real folder: /proc/<pid>/cwd of the bash reading the commands (the top process of the
 * tree, or the first below it in a namespace); where /proc is missing, what the shell reported.
 */
function shellFolder(terminal: Terminal, reported: string): string | null {
  const root = terminal.shell.pid;
  if (root !== undefined && root > 0) {
    terminal.shellPid ??= [root, ...descendantsOf(root)].find(
      (pid) => commandLineOf(pid) === SHELL_COMMAND_LINE,
    );
    if (terminal.shellPid !== undefined) {
      try {
        return readlinkSync(`/proc/${terminal.shellPid}/cwd`);
      } catch {
        // gone, or not ours to read: fall back to the report
      }
    }
  }
  return trusted(reported);
}

/** A value the shell reported, unless sanitizing it changed it (it held a newline or \x01) or it is empty. */
function trusted(reported: string): string | null {
  return reported === "" || reported.includes("?") ? null : reported;
}

function commandLineOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return undefined;
  }
}

/** A capture that only forwards the shell's raw output to the terminal's router. */
function routerCapture(forward: (chunk: Buffer | string) => void): OutputCapture {
  return {
    write: (chunk) => forward(chunk),
    finish() {},
    markSeen() {},
    latest: () => "",
    render: () => ({ text: "", truncated: false, omittedChars: 0 }),
    takeNew: () => ({ text: "", truncated: false, omittedChars: 0 }),
    totalBytes: 0,
    totalChars: 0,
    logPath: undefined,
  };
}
