import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pidNamespaceArgs } from "../../../src/tools/exec/process-tree.js";
import { type ExecFixture, openExecFixture, pidsWith, uniqueMarker, waitFor } from "./helpers.js";

let fixture: ExecFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const run = (CommandLine: string, extra: Record<string, unknown> = {}) =>
  (fixture as ExecFixture).run("run_command", { CommandLine, Cwd: ".", WaitMsBeforeAsync: 10_000, ...extra });

describe("run_command", () => {
  it("reports the exit code and the merged stdout and stderr", async () => {
    fixture = await openExecFixture();
    const result = await run("echo out; echo err >&2; exit 3");
    expect(result.error).toBe(false);
    expect(result.metadata.exitCode).toBe(3);
    expect(result.metadata.signal).toBeNull();
    expect(result.text).toContain("Exit code 3");
    expect(result.text).toContain("out\nerr");
  });

  it("reports the signal that killed the command", async () => {
    fixture = await openExecFixture();
    const result = await run("kill -KILL $$");
    expect(result.metadata.signal).toBe("SIGKILL");
    expect(result.text).toMatch(/killed by SIGKILL/i);
  });

  it("strips terminal escape sequences from the output", async () => {
    fixture = await openExecFixture();
    const result = await run(String.raw`printf '\033[1;32mgreen\033[0m \033]0;title\007plain\n'`);
    expect(result.text).toContain("green plain");
    expect(result.text).not.toContain("\u001b");
  });

  it("runs in Cwd and refuses a Cwd outside the workspace or not a folder", async () => {
    fixture = await openExecFixture({ "sub/file.txt": "x" });
    expect((await run("pwd", { Cwd: "sub" })).text).toContain(path.join(fixture.ws.root, "sub"));
    const outside = await run("pwd", { Cwd: fixture.ws.parent });
    expect(outside.errorCode).toBe("outside_workspace");
    expect((await run("pwd", { Cwd: "../" })).errorCode).toBe("outside_workspace");
    expect((await run("pwd", { Cwd: "sub/file.txt" })).errorCode).toBe("not_a_directory");
    expect((await run("pwd", { Cwd: "missing" })).errorCode).toBe("not_found");
  });

  it("gives a foreground command end-of-input on stdin, never Gantry's terminal", async () => {
    fixture = await openExecFixture();
    const result = await run("[ -t 0 ] || echo not-a-tty; read line; echo status=$?");
    expect(result.text).toContain("not-a-tty\nstatus=1");
  });

  it("lets a command that reads stdin finish in the foreground instead of hanging", async () => {
    fixture = await openExecFixture();
    const result = await run("cat; echo after-cat", { WaitMsBeforeAsync: 3_000 });
    expect(result.error).toBe(false);
    expect(result.metadata.taskId).toBeUndefined();
    expect(result.metadata.exitCode).toBe(0);
    expect(result.metadata.runtimeMs as number).toBeLessThan(2_000);
    expect(result.text).toContain("after-cat");
  });

  it("turns a command past WaitMsBeforeAsync into a task that is listed, read and killed", async () => {
    fixture = await openExecFixture();
    const marker = uniqueMarker();
    const started = await run(`echo ready; sleep 0.5; echo later; sleep ${marker}`, {
      WaitMsBeforeAsync: 300,
    });
    expect(started.metadata.taskId).toBe("t1");
    expect(started.text).toContain("background task t1");
    expect(started.text).toContain("ready");
    expect(started.text).not.toContain("send_input");

    const list = await fixture.run("manage_task", { Action: "list" });
    expect(list.text).toMatch(/t1 \[running\]/);
    expect(list.metadata.tasks).toMatchObject([{ id: "t1", state: "running", exitCode: null }]);

    let fresh = "";
    for (let tries = 0; tries < 50 && !fresh.includes("later"); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      fresh += (await fixture.run("manage_task", { Action: "status", TaskId: "t1" })).text;
    }
    expect(fresh).toContain("later");
    expect(fresh).not.toContain("ready");
    const quiet = await fixture.run("manage_task", { Action: "status", TaskId: "t1" });
    expect(quiet.text).toContain("(no new output)");

    // its stdin was at end-of-input from the start: input goes only to tasks started with WaitMsBeforeAsync 0
    const fed = await fixture.run("manage_task", { Action: "send_input", TaskId: "t1", Input: "hello\n" });
    expect(fed.errorCode).toBe("conflict");
    expect(fed.text).toContain("WaitMsBeforeAsync 0");

    const killed = await fixture.run("manage_task", { Action: "kill", TaskId: "t1" });
    expect(killed.metadata.state).toBe("killed");
    expect(pidsWith(`sleep ${marker}`)).toEqual([]);
    const after = await fixture.run("manage_task", { Action: "list" });
    expect(after.text).toMatch(/t1 \[killed\]/);
  });

  it("keeps stdin open for send_input when a command starts in the background (WaitMsBeforeAsync 0)", async () => {
    fixture = await openExecFixture();
    const marker = uniqueMarker();
    const started = await run(
      `while read line; do echo "got $line"; done; echo input-closed; sleep ${marker}`,
      {
        WaitMsBeforeAsync: 0,
      },
    );
    expect(started.metadata.taskId).toBe("t1");
    expect(started.text).toContain("send_input");

    const fed = await fixture.run("manage_task", { Action: "send_input", TaskId: "t1", Input: "hello\n" });
    expect(fed.error).toBe(false);
    expect(fed.text).toContain("got hello");
    const closed = await fixture.run("manage_task", {
      Action: "send_input",
      TaskId: "t1",
      Input: "bye\n\u0004",
    });
    expect(closed.text).toContain("got bye\ninput-closed");
    const again = await fixture.run("manage_task", { Action: "send_input", TaskId: "t1", Input: "more\n" });
    expect(again.errorCode).toBe("conflict");

    expect(await waitFor(() => pidsWith(`sleep ${marker}`).length > 0)).toBe(true);
    await fixture.run("manage_task", { Action: "kill", TaskId: "t1" });
    expect(pidsWith(`sleep ${marker}`)).toEqual([]);
  });

  it("says which task or schedule ids exist when given an unknown one", async () => {
    fixture = await openExecFixture();
    const result = await fixture.run("manage_task", { Action: "status", TaskId: "t9" });
    expect(result.errorCode).toBe("not_found");
    expect(result.text).toContain("Known: none");
  });

  it("ends the whole tree at the timeout, including a process ignoring SIGTERM and its grandchild", async () => {
    fixture = await openExecFixture({}, { exec: { timeoutMs: 400 } });
    const marker = uniqueMarker();
    const result = await run(
      `trap '' TERM; (trap '' TERM; sleep ${marker}1 & sleep ${marker}2) & setsid sleep ${marker}3 & sleep ${marker}4`,
    );
    expect(result.errorCode).toBe("timeout");
    expect(result.text).toContain("Timed out");
    await waitFor(() => pidsWith(marker).length === 0, 2_000);
    expect(pidsWith(marker)).toEqual([]);
  });

  it("with process-group isolation, still ends a TERM-ignoring child and its grandchild at the timeout", async () => {
    fixture = await openExecFixture({}, { exec: { timeoutMs: 400, isolation: "process-group" } });
    const marker = uniqueMarker();
    const result = await run(
      `trap '' TERM; (trap '' TERM; sleep ${marker}1 & sleep ${marker}2) & sleep ${marker}3`,
    );
    expect(result.metadata.isolation).toBe("process-group");
    expect(result.errorCode).toBe("timeout");
    await waitFor(() => pidsWith(marker).length === 0, 2_000);
    expect(pidsWith(marker)).toEqual([]);
  });

  it.runIf(pidNamespaceArgs() !== null)(
    "in a PID namespace, ends a double-forked setsid escapee too",
    async () => {
      fixture = await openExecFixture({}, { exec: { timeoutMs: 400 } });
      const marker = uniqueMarker();
      const result = await run(`(setsid bash -c 'trap "" TERM; sleep ${marker}' &) ; sleep 30`);
      expect(result.metadata.isolation).toBe("pid-namespace");
      await waitFor(() => pidsWith(marker).length === 0, 2_000);
      expect(pidsWith(marker)).toEqual([]);
    },
  );

  it("ends the command when the call is aborted", async () => {
    fixture = await openExecFixture();
    const marker = uniqueMarker();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const result = await fixture.run(
      "run_command",
      { CommandLine: `sleep ${marker}`, Cwd: ".", WaitMsBeforeAsync: 10_000 },
      controller.signal,
    );
    expect(result.errorCode).toBe("aborted");
    expect(pidsWith(marker)).toEqual([]);
  });

  it("shows head and tail of long output and keeps the full output in a git-ignored log", async () => {
    fixture = await openExecFixture({}, { limits: { maxOutputChars: 4_000 } });
    const result = await run("seq 1 100000");
    expect(result.metadata.truncated).toBe(true);
    expect(result.text.length).toBeLessThanOrEqual(4_000);
    expect(result.text).toMatch(/^Exit code 0.*\n1\n2\n3\n/);
    expect(result.text).toContain("100000");
    const logPath = result.metadata.fullOutputPath as string;
    expect(logPath.startsWith(path.join(fixture.ws.root, ".agents/tmp/commands"))).toBe(true);
    expect(readFileSync(logPath, "utf8").split("\n").length).toBe(100001);
    expect(readFileSync(path.join(fixture.ws.root, ".agents/tmp/.gitignore"), "utf8")).toContain("*");
    const viewed = await fixture.run("view_file", {
      AbsolutePath: logPath,
      StartLine: 50000,
      EndLine: 50001,
    });
    expect(viewed.text).toContain("50000");
  });

  it("streams partial output to a UI while the call waits", async () => {
    fixture = await openExecFixture();
    const updates: string[] = [];
    const result = await fixture.session.pipeline.run(
      {
        name: "run_command",
        args: { CommandLine: "echo first; sleep 0.8; echo second", Cwd: ".", WaitMsBeforeAsync: 5_000 },
      },
      { onUpdate: (partial) => updates.push(partial) },
    );
    expect(result.text).toContain("first\nsecond");
    expect(updates[0]).toBe("first\n");
  });

  it("writes no log file for short output", async () => {
    fixture = await openExecFixture();
    const result = await run("echo short");
    expect(result.metadata.fullOutputPath).toBeUndefined();
    expect(existsSync(path.join(fixture.ws.root, ".agents"))).toBe(false);
  });
});

describe("run_command persistent terminals", () => {
  it("keeps cd and export between calls", async () => {
    fixture = await openExecFixture({ "sub/a.txt": "a" });
    await run("cd sub && export GREETING=hello", { RunPersistent: true });
    const second = await run("pwd; echo $GREETING; ls", { RunPersistent: true });
    expect(second.text).toContain(path.join(fixture.ws.root, "sub"));
    expect(second.text).toContain("hello\na.txt");
    const other = await run("echo ${GREETING:-unset}", { RequestedTerminalID: "other" });
    expect(other.text).toContain("unset");
    expect(other.metadata.terminalId).toBe("other");
  });

  it("reports each command's exit code and survives a syntax error", async () => {
    fixture = await openExecFixture();
    expect((await run("false", { RunPersistent: true })).metadata.exitCode).toBe(1);
    const broken = await run(`echo "unterminated`, { RunPersistent: true });
    expect(broken.metadata.exitCode).not.toBe(0);
    const next = await run("echo 'it'\\''s fine'", { RunPersistent: true });
    expect(next.text).toContain("it's fine");
  });

  it("refuses a second command while the terminal is busy with a task", async () => {
    fixture = await openExecFixture();
    const marker = uniqueMarker();
    const first = await run(`sleep ${marker}`, { RunPersistent: true, WaitMsBeforeAsync: 200 });
    expect(first.metadata.taskId).toBe("t1");
    const second = await run("echo hi", { RunPersistent: true });
    expect(second.errorCode).toBe("conflict");
    await fixture.run("manage_task", { Action: "kill", TaskId: "t1" });
    expect(pidsWith(marker)).toEqual([]);
    expect((await run("echo again", { RunPersistent: true })).text).toContain("again");
  });
});
