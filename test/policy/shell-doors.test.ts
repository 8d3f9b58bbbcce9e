import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { waitFor } from "../tools/exec/helpers.js";
import { type PolicySession, policySessions } from "./session-support.js";

const session = policySessions();

const DENY_RM = { permissions: { deny: ["Bash(rm:*)"] } };

describe("a schedule's TimerCondition is judged like any command", () => {
  it("yolo with deny Bash(rm:*): a condition that removes a file is refused and never runs", async () => {
    const s = await session({ mode: "yolo", files: { victim: "keep\n" }, settings: DENY_RM });
    const result = await s.run("schedule", { Prompt: "go", TimerCondition: "rm victim" });
    expect(result.text).toBe(
      'Denied by rule deny Bash(rm:*) (settings given to Gantry): "rm victim" matches it',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(s.exists("victim")).toBe(true);
    expect((await s.run("manage_task", { Action: "list" })).text).toBe("No background tasks or schedules.");
  });

  it("allow: [schedule] in default mode covers the schedule, not the command in its condition", async () => {
    const s = await session({ mode: "default", settings: { permissions: { allow: ["schedule"] } } });
    const result = await s.run("schedule", { Prompt: "go", TimerCondition: "touch made" });
    expect(result.errorCode).toBe("denied");
    expect(s.asked.map((request) => request.subjects)).toEqual([["touch made", "made"]]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(s.exists("made")).toBe(false);
    const plain = await s.run("schedule", { Prompt: "later", DurationSeconds: 60 });
    expect(plain.error, plain.text).toBe(false);
  });

  it("a condition the rules allow runs and fires the schedule", async () => {
    const s = await session({
      mode: "default",
      settings: { permissions: { allow: ["schedule", "Bash(test -e ready)"] } },
    });
    await s.ws.write("ready", "");
    const result = await s.run("schedule", { Prompt: "ready now", TimerCondition: "test -e ready" });
    expect(result.error, result.text).toBe(false);
    await s.session.inbox.wait("main", AbortSignal.timeout(5_000));
    expect(s.session.inbox.drain()).toMatchObject([{ text: "ready now" }]);
  });
});

describe("input sent to a running shell task is judged as a command", () => {
  async function bashTask(s: PolicySession): Promise<string> {
    const started = await s.command("bash", { WaitMsBeforeAsync: 0 });
    expect(started.metadata.taskId, started.text).toBeDefined();
    return started.metadata.taskId as string;
  }
  const send = (s: PolicySession, TaskId: string, Input: string) =>
    s.run("manage_task", { Action: "send_input", TaskId, Input });

  it("yolo with deny Bash(rm:*): `rm victim` sent to a background bash is refused; other input runs", async () => {
    const s = await session({ mode: "yolo", files: { victim: "keep\n" }, settings: DENY_RM });
    const task = await bashTask(s);
    const denied = await send(s, task, "rm victim\n");
    expect(denied.text).toBe(
      'Denied by rule deny Bash(rm:*) (settings given to Gantry): "rm victim" matches it',
    );
    const fed = await send(s, task, "echo fed-ok\n");
    expect(fed.text).toContain("fed-ok");
    expect(s.exists("victim")).toBe(true);
  });

  it("a line sent in pieces is judged whole: `r` then `m victim`", async () => {
    const s = await session({ mode: "yolo", files: { victim: "keep\n" }, settings: DENY_RM });
    const task = await bashTask(s);
    expect((await send(s, task, "r")).error).toBe(false);
    const rest = await send(s, task, "m victim\n");
    expect(rest.text).toMatch(/^Denied by rule deny Bash\(rm:\*\).*"rm victim" matches it/);
    await send(s, task, "\n");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(s.exists("victim")).toBe(true);
  });

  it("a redirect after an earlier `cd` into .agents is judged where the shell is", async () => {
    const s = await session({ mode: "yolo", files: { ".agents/hooks.json": "{}\n" } });
    const task = await bashTask(s);
    expect((await send(s, task, "cd .agents\n")).error).toBe(false);
    const result = await send(s, task, "echo pwned > hooks.json\n");
    expect(result.text).toMatch(/^Denied by protected files \(\.agents\/hooks\.json\)/);
    expect(readFileSync(path.join(s.ws.root, ".agents/hooks.json"), "utf8")).toBe("{}\n");
  });

  it("counts as a command unless the task's own command was allowed to run anything", async () => {
    // bash started with a one-time yes: its input asks again
    const asked = await session({
      mode: "default",
      answer: (request) => (request.subjects.includes("bash") ? "once" : "deny"),
    });
    const task = await bashTask(asked);
    const refused = await send(asked, task, "touch made\n");
    expect(refused.errorCode).toBe("denied");
    expect(asked.asked.map((request) => request.subjects)).toEqual([
      ["bash"],
      ["manage_task", "touch made", "made"],
    ]);
    // bash allowed by a rule: what it is fed runs, deny rules still hold
    const allowed = await session({
      mode: "default",
      files: { victim: "keep\n" },
      settings: { permissions: { allow: ["Bash(bash)", "manage_task"], deny: ["Bash(rm:*)"] } },
    });
    const second = await bashTask(allowed);
    const ran = await send(allowed, second, "touch made && echo made-ok\n");
    expect(ran.text).toContain("made-ok");
    expect((await send(allowed, second, "rm victim\n")).errorCode).toBe("denied");
    expect(allowed.exists("victim")).toBe(true);
  });
});

describe("a persistent terminal's relative paths are judged in its real folder", () => {
  const ALLOW = { permissions: { allow: ["Bash(cd:*)", "Bash(echo:*)", "Bash(PWD=*)"] } };

  it("`cd` outside in one call, then a relative redirect in the next, is asked about as a write outside", async () => {
    const s = await session({ mode: "auto-edit", settings: ALLOW });
    const outside = path.join(s.ws.parent, "outside");
    mkdirSync(outside);
    const terminal = { RequestedTerminalID: "t" };
    expect((await s.command(`cd ${outside}`, terminal)).error).toBe(false);
    const write = await s.command("echo PWN > planted.txt", terminal);
    expect(write.errorCode).toBe("denied");
    expect(s.asked.map((request) => request.subjects)).toEqual([["planted.txt"]]);
    expect(s.exists(path.join(outside, "planted.txt"))).toBe(false);
    // inside the workspace again, the same write is an edit auto-edit allows
    expect((await s.command(`cd ${s.ws.root}`, terminal)).error).toBe(false);
    expect((await s.command("echo ok > planted.txt", terminal)).error).toBe(false);
    expect(s.exists("planted.txt")).toBe(true);
  });

  it("a faked $PWD does not fool it: the folder is read from the shell process itself", async () => {
    const s = await session({ mode: "auto-edit", settings: ALLOW });
    const outside = path.join(s.ws.parent, "outside");
    mkdirSync(outside);
    const terminal = { RequestedTerminalID: "t" };
    expect((await s.command(`cd ${outside} && PWD=${s.ws.root}`, terminal)).error).toBe(false);
    expect((await s.command("echo PWN > planted.txt", terminal)).errorCode).toBe("denied");
    expect(s.exists(path.join(outside, "planted.txt"))).toBe(false);
  });

  it("a $HOME exported in one call is what `~` means in the next", async () => {
    const s = await session({ mode: "yolo", files: { ".agents/hooks.json": "{}\n" } });
    const terminal = { RequestedTerminalID: "t" };
    expect((await s.command("export HOME=$PWD/.agents", terminal)).error).toBe(false);
    const result = await s.command("echo x > ~/hooks.json", terminal);
    expect(result.text).toMatch(/^Denied by protected files \(\.agents\/hooks\.json\)/);
    expect(readFileSync(path.join(s.ws.root, ".agents/hooks.json"), "utf8")).toBe("{}\n");
  });

  it("a `cd .agents` then `echo > hooks.json` in the next call is refused as a protected write", async () => {
    const s = await session({ mode: "yolo", files: { ".agents/hooks.json": "{}\n" } });
    const terminal = { RunPersistent: true };
    expect((await s.command("cd .agents", terminal)).error).toBe(false);
    expect((await s.command("echo x > hooks.json", terminal)).text).toMatch(/^Denied by protected files/);
    expect(readFileSync(path.join(s.ws.root, ".agents/hooks.json"), "utf8")).toBe("{}\n");
  });
});

describe("paths are resolved as the kernel resolves them", () => {
  it("`link/../x` lands next to the link's target, outside the workspace: asked about in auto-edit", async () => {
    const s = await session({ mode: "auto-edit", settings: { permissions: { allow: ["Bash(echo:*)"] } } });
    const outside = path.join(s.ws.parent, "outside", "deep");
    mkdirSync(outside, { recursive: true });
    const { symlinkSync } = await import("node:fs");
    symlinkSync(outside, path.join(s.ws.root, "link"));
    const result = await s.command("echo PWN > link/../escaped.txt");
    expect(result.errorCode).toBe("denied");
    expect(s.asked.map((request) => request.subjects)).toEqual([["link/../escaped.txt"]]);
    expect(await waitFor(() => !s.exists(path.join(s.ws.parent, "outside", "escaped.txt")), 200)).toBe(true);
  });
});
