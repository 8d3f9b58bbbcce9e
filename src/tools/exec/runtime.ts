import { lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import type { Settings } from "../../config/settings.js";
import { type SessionVariables, withSessionVariables } from "../../hooks/env-file.js";
import { randomHex } from "../../session/random-ids.js";
import type { SecretGuard } from "../../workspace/secrets.js";
import type { Workspace } from "../../workspace/workspace.js";
import { createOutputCapture, type OutputCapture } from "./output-buffer.js";
import { shellLevel, spawnProcessTree } from "./process-tree.js";
import { type RunningCommand, trackProcessTree } from "./running-command.js";
import { type CommandSandbox, createCommandSandbox } from "./sandbox.js";
import { scrubEnvironment } from "./sandbox-env.js";
import { type ResolvedExecSettings, resolveExecSettings } from "./settings.js";
import { createTaskBook, type TaskBook } from "./tasks.js";

/** Workspace-relative folder of full command logs; a generated .gitignore keeps it out of git and search. */
export const COMMAND_LOG_FOLDER = ".agents/tmp/commands";
/** Session log folders older than this are removed when a new session writes its first log. */
const LOG_RETENTION_MS = 24 * 60 * 60 * 1000;

/** What the command tools of one session share: settings, the sandbox, tasks and where logs go. */
export interface ExecRuntime {
  readonly workspace: Workspace;
  readonly settings: ResolvedExecSettings;
  readonly sandboxed: boolean;
  readonly tasks: TaskBook;
  /** Environment every command starts with (read at each start: SessionStart hooks may add to it). */
  readonly env: NodeJS.ProcessEnv;
  newCapture(): OutputCapture;
  /**
   * Starts a one-off command (bash) in `cwd`, in the sandbox when it is on. Its standard input is
   * /dev/null (end-of-input at once) unless `input` is true: then an open pipe that `write` feeds.
   */
  start(
    command: string,
    cwd: string,
    options?: { input?: boolean; capture?: OutputCapture },
  ): Promise<RunningCommand>;
  /** Wraps a long-lived shell for a persistent terminal. */
  startShell(cwd: string, capture: OutputCapture): Promise<RunningCommand>;
  /** Ends every command and terminal; later starts are refused. */
  dispose(): Promise<void>;
  readonly disposed: boolean;
}

/**
 * `home`: the session's home folder; its credential stores are hidden from sandboxed commands, as are
 * the real home's. `hidden`: what sandboxed commands may not read in the workspace (default: its secrets).
 */
export function createExecRuntime(
  workspace: Workspace,
  settings: Settings,
  home?: string,
  variables?: SessionVariables,
  hidden?: () => SecretGuard,
): ExecRuntime {
  const resolved = resolveExecSettings(settings.exec);
  const sandboxed = settings.sandbox?.enabled === true;
  const sandbox: CommandSandbox | undefined = sandboxed
    ? createCommandSandbox({
        workspace,
        settings: settings.sandbox ?? {},
        allowAgentConfigEdits: settings.allowAgentConfigEdits === true,
        homes: [...new Set([home ?? homedir(), homedir()])],
        ...(hidden ? { hidden } : {}),
      })
    : undefined;
  const sessionId = `${new Date().toISOString().slice(0, 10)}-${randomHex(4)}`;
  const logFolder = path.join(workspace.root, COMMAND_LOG_FOLDER, sessionId);
  const tasks = createTaskBook();
  const live = new Set<RunningCommand>();
  let captures = 0;
  let folderReady = false;
  let disposed = false;

  const baseEnv: NodeJS.ProcessEnv = {
    ...process.env,
    // the shell the sandbox starts, and any `bash -c` a command starts, reads no ~/.bashrc (process-tree.ts)
    SHLVL: shellLevel(process.env.SHLVL),
    GANTRY: "1",
    TERM: "dumb",
    NO_COLOR: "1",
    PAGER: "cat",
    GIT_PAGER: "cat",
    GIT_TERMINAL_PROMPT: "0",
  };
  delete baseEnv.FORCE_COLOR;
  let built = { version: -1, env: baseEnv };
  /** What commands start with: the variables SessionStart hooks set applied, then, sandboxed, no credential (sandbox-env.ts). */
  function commandEnv(): NodeJS.ProcessEnv {
    const version = variables?.version ?? 0;
    if (built.version !== version) {
      const env = variables ? withSessionVariables(baseEnv, variables) : baseEnv;
      built = { version, env: sandbox ? scrubEnvironment(env, settings.sandbox?.env?.allow).env : env };
    }
    return built.env;
  }

  function prepareLogFolder(): void {
    // a repository may ship .agents/tmp as a link: logs and the prune of old ones would act outside it
    const linked = linkOnTheWay(workspace.root, COMMAND_LOG_FOLDER);
    if (linked) throw new Error(`${linked} is not a real folder of the workspace`);
    if (folderReady) return;
    folderReady = true;
    const base = path.dirname(path.dirname(logFolder));
    mkdirSync(logFolder, { recursive: true });
    writeFileSync(path.join(base, ".gitignore"), "# command logs written by Gantry\n*\n");
    pruneOldLogs(path.dirname(logFolder), path.basename(logFolder));
  }

  async function launch(
    script: string,
    cwd: string,
    capture: OutputCapture,
    stdin: "pipe" | "null",
  ): Promise<RunningCommand> {
    if (disposed) throw new Error("the session has ended");
    let sandboxedCommand: string | undefined;
    let release: (() => void) | undefined;
    if (sandbox) {
      // every HTTP client goes through the runtime's proxy, where the allowlist decides, loopback included
      const wrapped = await sandbox.wrap(`exec 2>&1\nunset NO_PROXY no_proxy\n${script}`);
      sandboxedCommand = wrapped.commandLine;
      release = wrapped.release;
    }
    const tree = spawnProcessTree({
      script,
      cwd,
      env: commandEnv(),
      isolation: resolved.isolation,
      sandboxedCommand,
      stdin,
    });
    const running = trackProcessTree(tree, capture, () => {
      live.delete(running);
      release?.();
    });
    live.add(running);
    return running;
  }

  const runtime: ExecRuntime = {
    workspace,
    settings: resolved,
    sandboxed,
    tasks,
    get env() {
      return commandEnv();
    },
    newCapture() {
      captures++;
      return createOutputCapture({
        logPath: path.join(logFolder, `command-${captures}.log`),
        spillChars: Math.max(workspace.limits.maxOutputChars, 32 * 1024),
        prepare: prepareLogFolder,
      });
    },
    start(command, cwd, options = {}) {
      return launch(command, cwd, options.capture ?? runtime.newCapture(), options.input ? "pipe" : "null");
    },
    async startShell(cwd, capture) {
      // the shell reads its commands from the pipe; each command gets /dev/null (terminals.ts)
      return launch("exec bash --noprofile --norc", cwd, capture, "pipe");
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      await Promise.all([...live].map((running) => running.kill(resolved.killGraceMs)));
      await sandbox?.dispose();
    },
    get disposed() {
      return disposed;
    },
  };
  return runtime;
}

/** The first of `rel`'s folders below `root` that exists and is not a real folder (a link), if any. */
function linkOnTheWay(root: string, rel: string): string | undefined {
  let folder = root;
  for (const part of rel.split("/")) {
    folder = path.join(folder, part);
    let info: import("node:fs").Stats;
    try {
      info = lstatSync(folder);
    } catch {
      return undefined; // Gantry makes the rest
    }
    if (!info.isDirectory()) return path.relative(root, folder);
  }
  return undefined;
}

/** A session's log folder name (sessionId above): only those are pruned, never anything else found there. */
const SESSION_FOLDER = /^\d{4}-\d{2}-\d{2}-[0-9a-f]{8}$/;

function pruneOldLogs(folder: string, keep: string): void {
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry === keep || !SESSION_FOLDER.test(entry)) continue;
    const full = path.join(folder, entry);
    try {
      const info = lstatSync(full);
      if (info.isDirectory() && Date.now() - info.mtimeMs > LOG_RETENTION_MS)
        rmSync(full, { recursive: true, force: true });
    } catch {
      // another session may be pruning the same folder
    }
  }
}
