import { existsSync, mkdirSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pidNamespaceArgs } from "../../../src/tools/exec/process-tree.js";
import { sandboxUnavailableReason } from "../../../src/tools/exec/sandbox.js";
import { HAS_TMUX, startGantryInTmux } from "../../support/tmux.js";
import { type ExecFixture, openExecFixture, pidsWith, uniqueMarker, waitFor } from "./helpers.js";

/**
 * What a command the user allowed (a prompt-injected model's) tries beyond its own run: output that
 * drives the user's terminal, processes that outlive the call, reaching Gantry's own process.
 */

const unavailable = await sandboxUnavailableReason();
const opened: ExecFixture[] = [];
afterEach(async () => {
  for (const each of opened.splice(0)) await each.close();
});

async function fixture(sandbox = false): Promise<ExecFixture> {
  const opening = await openExecFixture({}, { sandbox: { enabled: sandbox } });
  opened.push(opening);
  return opening;
}

function run(each: ExecFixture, command: string, extra: Record<string, unknown> = {}) {
  return each.run("run_command", { CommandLine: command, Cwd: ".", WaitMsBeforeAsync: 20_000, ...extra });
}

/** Raw control characters a terminal acts on (C0 but newline and tab, DEL, C1). */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe("command output never drives the user's terminal", () => {
  it("drops 7-bit and 8-bit (C1) escapes: DCS, PM, APC, OSC 52, a lone CSI", async () => {
    const each = await fixture();
    // U+0090 DCS, U+009E PM, U+009F APC, U+009D OSC, U+009B CSI, each UTF-8 encoded, and ESC forms
    const command = String.raw`printf 'a\xc2\x90qpayload\xc2\x9cb\xc2\x9eprivacy\xc2\x9cc\xc2\x9fapc\xc2\x9cd\xc2\x9d52;c;eA==\xc2\x9ce\xc2\x9b\x1b]52;c;eA==\x07f\n'`;
    const result = await run(each, command);
    expect(result.text).not.toMatch(RAW_CONTROL);
    expect(result.text).not.toMatch(/payload|privacy|apc|eA==/);
    expect(result.text).toContain("abcdef");
  });
});

describe("nothing a command starts outlives it", () => {
  it("ends setsid, nohup and double-forked processes when the foreground command finishes", async () => {
    const each = await fixture();
    const marker = uniqueMarker();
    const result = await run(
      each,
      `(setsid nohup sleep 7${marker} >/dev/null 2>&1 &); (sleep 8${marker} & disown); (bash -c "sleep 9${marker} &" &); echo started`,
    );
    expect(result.text).toContain("started");
    expect(await waitFor(() => pidsWith(marker).length === 0)).toBe(true);
  });

  it("ends what a persistent terminal left running, setsid included, when the session ends", async () => {
    const each = await openExecFixture({}, {});
    const marker = uniqueMarker();
    const result = await run(
      each,
      `setsid sleep 7${marker} & nohup sleep 8${marker} >/dev/null 2>&1 & echo left`,
      {
        RunPersistent: true,
      },
    );
    expect(result.text).toContain("left");
    expect(await waitFor(() => pidsWith(marker).length === 2)).toBe(true);
    await each.close();
    expect(await waitFor(() => pidsWith(marker).length === 0)).toBe(true);
  });
});

describe.skipIf(pidNamespaceArgs() === null)("a command cannot reach Gantry's own process", () => {
  for (const sandbox of [false, true]) {
    it.skipIf(sandbox && unavailable !== undefined)(
      `sees neither Gantry's process, its environment nor its parent's folder (${sandbox ? "sandbox" : "PID namespace"})`,
      async () => {
        const each = await fixture(sandbox);
        const gantry = process.pid;
        const result = await run(
          each,
          `kill -0 ${gantry} 2>/dev/null && echo GANTRY-VISIBLE; [ -n "$(tr '\\0' '\\n' < /proc/${gantry}/environ 2>/dev/null)" ] && echo ENVIRON-READ; ls /proc/${gantry}/cwd/ 2>/dev/null && echo CWD-LISTED; echo done`,
        );
        expect(result.text).toContain("done");
        expect(result.text).not.toMatch(/GANTRY-VISIBLE|ENVIRON-READ|CWD-LISTED/);
      },
    );
  }
});

describe.skipIf(!HAS_TMUX)("a command has no controlling terminal", () => {
  // TIOCSTI on the controlling terminal types into the user's shell: what it typed would run after Gantry
  const stuff = [
    "import fcntl, os, termios",
    "try:",
    "    fd = os.open('/dev/tty', os.O_WRONLY)",
    "    for c in 'zq' + '-stuffed-zq': fcntl.ioctl(fd, termios.TIOCSTI, c.encode())",
    "except OSError as error: print('refused', error.errno)",
  ].join("\n");
  const script = `python3 -c "$(echo ${Buffer.from(stuff).toString("base64")} | base64 -d)"; echo tried`;

  for (const sandbox of unavailable === undefined ? [false, true] : [false]) {
    it(`cannot type into the terminal Gantry runs in through /dev/tty (${sandbox ? "sandbox" : "no sandbox"})`, async () => {
      const each = await fixture();
      const args = JSON.stringify({ CommandLine: script, Cwd: ".", WaitMsBeforeAsync: 20_000 });
      const flags = [
        "--workspace",
        each.ws.root,
        "--approval-mode",
        "yolo",
        ...(sandbox ? ["--sandbox"] : []),
      ];
      const terminal = await startGantryInTmux(["tool", "run_command", args, ...flags], {
        env: { HOME: each.ws.home },
        width: 200,
      });
      try {
        expect(await terminal.waitForExit(60_000)).toBe(0);
        const screen = await terminal.screen();
        expect(screen).toContain("refused 6");
        expect(screen).not.toContain("zq-stuffed-zq");
      } finally {
        await terminal.close();
      }
    });
  }
});

describe("a repository cannot point Gantry's command logs elsewhere", () => {
  for (const link of [".agents/tmp/commands", ".agents/tmp"]) {
    it(`neither writes logs into nor prunes the folder a shipped ${link} link names`, async () => {
      const each = await fixture();
      const victim = path.join(each.ws.parent, "victim");
      mkdirSync(path.join(victim, "old-folder"), { recursive: true });
      writeFileSync(path.join(victim, "old-folder/data"), "precious\n");
      writeFileSync(path.join(victim, "old.txt"), "precious\n");
      const threeDaysAgo = new Date(Date.now() - 3 * 24 * 3600 * 1000);
      for (const entry of ["old.txt", "old-folder"])
        utimesSync(path.join(victim, entry), threeDaysAgo, threeDaysAgo);
      mkdirSync(path.dirname(path.join(each.ws.root, link)), { recursive: true });
      symlinkSync(victim, path.join(each.ws.root, link));
      // past the output limit the full output would go to a log under the link
      const result = await run(each, "seq 1 60000");
      expect(result.metadata.truncated).toBe(true);
      expect(result.metadata.fullOutputPath).toBeUndefined();
      expect(result.text).toContain("the full output could not be saved");
      expect(readdirSync(victim).sort()).toEqual(["old-folder", "old.txt"]);
      expect(existsSync(path.join(victim, "old-folder/data"))).toBe(true);
    });
  }

  it("prunes only its own day-old session folders from the real log folder", async () => {
    const each = await fixture();
    const logs = path.join(each.ws.root, ".agents/tmp/commands");
    const threeDaysAgo = new Date(Date.now() - 3 * 24 * 3600 * 1000);
    for (const name of ["2026-01-01-0123abcd", "notes"]) {
      mkdirSync(path.join(logs, name), { recursive: true });
      utimesSync(path.join(logs, name), threeDaysAgo, threeDaysAgo);
    }
    await run(each, "seq 1 60000");
    expect(readdirSync(logs)).toContain("notes");
    expect(readdirSync(logs)).not.toContain("2026-01-01-0123abcd");
  });
});
