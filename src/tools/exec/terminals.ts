import { randomBytes } from "node:crypto";
import { StringDecoder } from "node:string_decoder";
import type { OutputCapture } from "./output-buffer.js";
import type { ExitStatus } from "./process-tree.js";
import type { RunningCommand } from "./running-command.js";
import type { ExecRuntime } from "./runtime.js";

/**
 * Persistent terminals (RunPersistent): one long-lived bash per id, fed one command at a time, so
 * `cd` and `export` carry over. Each command runs through `eval` with stdin at /dev/null (the shell
 * reads its commands from stdin), then prints a sentinel line carrying `$?`.
 */
export interface TerminalPool {
  /** Runs `command` in terminal `id`, creating it in `cwd` if it does not exist. */
  run(id: string, command: string, cwd: string): Promise<RunningCommand & { createdTerminal: boolean }>;
  isBusy(id: string): boolean;
  list(): string[];
}

interface Terminal {
  id: string;
  shell: RunningCommand;
  sentinel: string;
  current?: { capture: OutputCapture; resolve: (status: ExitStatus) => void };
  pending: string;
}

export function createTerminalPool(runtime: ExecRuntime): TerminalPool {
  const terminals = new Map<string, Terminal>();

  async function open(id: string, cwd: string): Promise<Terminal> {
    const decoder = new StringDecoder("utf8");
    const terminal: Terminal = {
      id,
      sentinel: `__GANTRY_DONE_${randomBytes(6).toString("hex")}_`,
      pending: "",
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
    const match = new RegExp(`\\n${terminal.sentinel}(\\d+)__\\n`).exec(buffer);
    if (match) {
      terminal.pending = "";
      current.capture.write(buffer.slice(0, match.index));
      terminal.current = undefined;
      current.resolve({ exitCode: Number(match[1]), signal: null });
      return;
    }
    // hold back what could be the start of the sentinel line
    const keep = terminal.sentinel.length + 16;
    terminal.pending = buffer.slice(-keep);
    current.capture.write(buffer.slice(0, Math.max(0, buffer.length - keep)));
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
      target.shell.write(`eval ${quoted} </dev/null; printf '\\n${target.sentinel}%s__\\n' "$?"\n`);
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
  };
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
