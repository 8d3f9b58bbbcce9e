import { execFile, spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { GANTRY_BIN } from "./cli.js";

const run = promisify(execFile);

/** tmux is installed (the terminal UI's tests drive the real program in it). */
export const HAS_TMUX = spawnSync("tmux", ["-V"]).status === 0;

/**
 * A real terminal for the terminal UI's tests: `gantry` runs in a detached tmux session on a private
 * socket; tests type with `send-keys`, paste with a bracketed paste, and read the screen with
 * `capture-pane` (with `colour: true` the escape codes of colours and attributes stay in).
 */
export interface TmuxTerminal {
  /** tmux key names (`Enter`, `Escape`, `C-c`, `BTab`, `M-Enter`, `Up`) or literal text with `type`. */
  keys(...keys: string[]): Promise<void>;
  type(text: string): Promise<void>;
  /** Types `text` and presses Enter: a request sent. */
  enter(text: string): Promise<void>;
  /** A bracketed paste, as a terminal delivers pasted text to a program that asked for it. */
  paste(text: string): Promise<void>;
  screen(options?: { colour?: boolean }): Promise<string>;
  /** Waits until the screen shows `text` (or matches it); returns the screen. */
  waitFor(text: string | RegExp, options?: { timeoutMs?: number; colour?: boolean }): Promise<string>;
  /** The program's exit status once it ended; undefined while it runs. */
  exitStatus(): Promise<number | undefined>;
  waitForExit(timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

export interface TmuxOptions {
  env: Record<string, string>;
  width?: number;
  height?: number;
}

export async function startGantryInTmux(args: string[], options: TmuxOptions): Promise<TmuxTerminal> {
  const dir = await mkdtemp(path.join(tmpdir(), "gantry-tmux-"));
  const socket = path.join(dir, "socket");
  const tmux = (...rest: string[]) => run("tmux", ["-S", socket, ...rest], { encoding: "utf8" });
  // through env(1): tmux sets TERM for its panes itself, and the test may want another (TERM=dumb)
  const env = Object.entries({ TERM: "xterm-256color", ...options.env }).map(
    ([key, value]) => `${key}=${value}`,
  );
  // the shell records the exit code: tmux's own pane_dead_status is sometimes left empty
  const exitFile = path.join(dir, "exit-code");
  const command = `${["env", ...env, process.execPath, GANTRY_BIN, ...args].map(shellQuote).join(" ")}; echo $? > ${shellQuote(exitFile)}`;
  await tmux(
    "-f",
    "/dev/null",
    "new-session",
    "-d",
    "-x",
    String(options.width ?? 100),
    "-y",
    String(options.height ?? 40),
    command,
    ";",
    "set-option",
    "-g",
    "remain-on-exit",
    "on",
  );
  const screen = async (opts: { colour?: boolean } = {}) =>
    (await tmux("capture-pane", "-p", ...(opts.colour ? ["-e"] : []))).stdout;
  const exitStatus = async () => {
    const text = await readFile(exitFile, "utf8").catch(() => "");
    return /^\d+\n$/.test(text) ? Number(text) : undefined;
  };
  return {
    keys: async (...keys) => void (await tmux("send-keys", ...keys)),
    type: async (text) => void (await tmux("send-keys", "-l", text)),
    enter: async (text) => {
      await tmux("send-keys", "-l", text);
      await tmux("send-keys", "Enter");
    },
    async paste(text) {
      const file = path.join(dir, "paste.txt");
      await writeFile(file, text);
      await tmux("load-buffer", file);
      await tmux("paste-buffer", "-p", "-d");
    },
    screen,
    async waitFor(text, opts = {}) {
      const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
      let last = "";
      while (Date.now() < deadline) {
        last = await screen(opts);
        if (typeof text === "string" ? last.includes(text) : text.test(last)) return last;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`the screen never showed ${String(text)}; it shows:\n${last}`);
    },
    exitStatus,
    async waitForExit(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const status = await exitStatus();
        if (status !== undefined) return status;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`gantry did not exit; the screen shows:\n${await screen()}`);
    },
    async close() {
      await tmux("kill-server").catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}
