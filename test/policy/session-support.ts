import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import type { Settings } from "../../src/config/settings.js";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import type { Asker, PermissionRequest } from "../../src/policy/asker.js";
import { createCallbackAsker } from "../../src/policy/asker.js";
import type { ApprovalMode } from "../../src/policy/modes.js";
import type { ToolResult } from "../../src/tools/contract.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

/** A real session (real run_command, terminals, schedules, search) on a temp workspace, for attack tests. */
export interface PolicySession {
  ws: TempWorkspace;
  session: GantrySession;
  /** Permission questions asked so far (an asker that answers no, unless `answer` says otherwise). */
  asked: PermissionRequest[];
  run(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  command(line: string, extra?: Record<string, unknown>): Promise<ToolResult>;
  exists(relPath: string): boolean;
  close(): Promise<void>;
}

export interface PolicySessionOptions {
  mode: ApprovalMode;
  files?: Record<string, string>;
  /** Files in the session's home folder (never the real one), written before the session opens. */
  homeFiles?: Record<string, string>;
  settings?: Settings;
  /** How the user answers a permission question (default: no). */
  answer?: (request: PermissionRequest) => "once" | "deny";
}

/** Opens sessions for the tests of one file; each test's sessions are closed after it. */
export function policySessions(): (options: PolicySessionOptions) => Promise<PolicySession> {
  const opened: PolicySession[] = [];
  afterEach(async () => {
    for (const each of opened.splice(0)) await each.close();
  });
  return async (options) => {
    const each = await openPolicySession(options);
    opened.push(each);
    return each;
  };
}

export async function openPolicySession(options: PolicySessionOptions): Promise<PolicySession> {
  const ws = await createTempWorkspace(options.files ?? {});
  for (const [relPath, content] of Object.entries(options.homeFiles ?? {})) {
    await mkdir(path.dirname(path.join(ws.home, relPath)), { recursive: true });
    await writeFile(path.join(ws.home, relPath), content);
  }
  const asked: PermissionRequest[] = [];
  const asker: Asker = createCallbackAsker({
    onPermission: (request) => {
      asked.push(request);
      return { choice: options.answer?.(request) ?? "deny" };
    },
  });
  const session = createGantrySession({
    workspace: ws.root,
    home: ws.home,
    approvalMode: options.mode,
    asker,
    settings: { ...options.settings, exec: { killGraceMs: 300, ...options.settings?.exec } },
  });
  const run = (name: string, args: Record<string, unknown>) => session.pipeline.run({ name, args });
  return {
    ws,
    session,
    asked,
    run,
    command: (line, extra = {}) =>
      run("run_command", { CommandLine: line, Cwd: ".", WaitMsBeforeAsync: 10_000, ...extra }),
    exists: (relPath) => existsSync(path.resolve(ws.root, relPath)),
    async close() {
      await session.dispose();
      await ws.cleanup();
    },
  };
}

/** The session's workspace made a git repository with every file committed; returns the session. */
export function committed(s: PolicySession): PolicySession {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: s.ws.root });
  git("init", "-q", ".");
  git("add", "-A");
  git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "x");
  return s;
}

/** The settings of the "deny Bash(rm:*) holds in yolo" suites. */
export const DENY_RM: Settings = { permissions: { deny: ["Bash(rm:*)"] } };

/** How a refusal by deny Bash(rm:*) from the settings given to Gantry begins. */
export const DENIED_BY_RM = /^Denied by rule deny Bash\(rm:\*\) \(settings given to Gantry\): "/;

export interface RefusedPastDenyRm {
  /** Command lines, each run in a fresh yolo session under deny Bash(rm:*). */
  lines: readonly string[];
  /** The workspace's files; one of them is `victim`, the file each line tries to remove. */
  files: Record<string, string>;
  /** What the refusal says (default: DENIED_BY_RM, the rule named). */
  reason?: RegExp;
  /** Readies the fresh session before the line runs (commits it, makes a script executable). */
  prepare?: (s: PolicySession) => void;
  /** The test's name for a line (default: `refuses "<line>"`). */
  name?: (line: string) => string;
}

/**
 * One test per line, in the calling describe: in yolo under deny Bash(rm:*), the line is denied,
 * the refusal says `reason`, and `victim` is still there.
 */
export function itRefusesPastDenyRm(
  session: (options: PolicySessionOptions) => Promise<PolicySession>,
  cases: RefusedPastDenyRm,
): void {
  for (const line of cases.lines) {
    it(cases.name?.(line) ?? `refuses ${JSON.stringify(line)}`, async () => {
      const s = await session({ mode: "yolo", files: cases.files, settings: DENY_RM });
      cases.prepare?.(s);
      const result = await s.command(line);
      expect(result.errorCode, result.text).toBe("denied");
      expect(result.text).toMatch(cases.reason ?? DENIED_BY_RM);
      expect(s.exists("victim")).toBe(true);
    });
  }
}
