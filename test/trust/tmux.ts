import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";

/** A real terminal: a detached tmux session running one command, read with capture-pane. */
export interface TmuxTerminal {
  screen(): string;
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<string>;
  type(keys: string): void;
  press(...keys: string[]): void;
  close(): void;
}

export const HAS_TMUX = (() => {
  try {
    execFileSync("tmux", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

export function openTmux(command: string[], env: Record<string, string>, cwd: string): TmuxTerminal {
  const name = `gantry-test-${randomBytes(4).toString("hex")}`;
  const exports = Object.entries(env).map(([key, value]) => `${key}=${shellQuote(value)}`);
  const line = `cd ${shellQuote(cwd)} && env ${exports.join(" ")} ${command.map(shellQuote).join(" ")}; echo "[exited $?]"; sleep 30`;
  execFileSync("tmux", ["new-session", "-d", "-s", name, "-x", "160", "-y", "50", "bash", "-c", line]);
  const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });
  const terminal: TmuxTerminal = {
    screen: () => tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", name),
    async waitFor(text, timeoutMs = 20_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const screen = terminal.screen();
        if (typeof text === "string" ? screen.includes(text) : text.test(screen)) return screen;
        if (Date.now() > end)
          throw new Error(`timed out waiting for ${String(text)}; the screen:\n${screen}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    type: (keys) => void tmux("send-keys", "-t", name, "-l", keys),
    press: (...keys) => void tmux("send-keys", "-t", name, ...keys),
    close: () => {
      try {
        tmux("kill-session", "-t", name);
      } catch {
        // already gone
      }
    },
  };
  return terminal;
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}
