import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { PROTECTED_CONFIG_FOLDERS, PROTECTED_CONFIG_ROOT_FILES } from "../../workspace/protected.js";
import type { SecretGuard } from "../../workspace/secrets.js";
import type { Workspace } from "../../workspace/workspace.js";
import { gitControlPaths } from "./git-layout.js";
import { pinCommonDirs } from "./git-pins.js";
import { credentialRules } from "./sandbox-credentials.js";
import type { SandboxSettings } from "./sandbox-settings.js";

// loaded on first use: the runtime is large, and most sessions never sandbox
type SandboxRuntimeModule = typeof import("@anthropic-ai/sandbox-runtime");
type SandboxRuntime = SandboxRuntimeModule["SandboxManager"];
let loadedRuntime: SandboxRuntime | undefined;
async function sandboxRuntime(): Promise<SandboxRuntime> {
  loadedRuntime ??= (await loadRuntimeModule()).SandboxManager;
  return loadedRuntime;
}

/**
 * By `require` (Node 22.12 and later load an ES module that way): the command's bundle runs its chunks
 * as vm scripts (src/cli/code-cache.cts), where an `import()` goes through a loader Node still calls
 * experimental and warns about on stderr. An older Node 22 cannot require it, and imports it.
 */
async function loadRuntimeModule(): Promise<SandboxRuntimeModule> {
  const name = "@anthropic-ai/sandbox-runtime";
  try {
    return createRequire(import.meta.url)(name) as SandboxRuntimeModule;
  } catch (cause) {
    if ((cause as { code?: string }).code !== "ERR_REQUIRE_ESM") throw cause;
    // Node 22.3–22.11 only, where the warning is the price (the build refuses a literal import() here)
    return import(name) as Promise<SandboxRuntimeModule>;
  }
}

export interface CommandSandbox {
  /** The command line that runs `command` inside the sandbox; `release` (once it ended) tidies after it. */
  wrap(command: string): Promise<{ commandLine: string; release: () => void }>;
  dispose(): Promise<void>;
}

export interface SandboxOptions {
  workspace: Workspace;
  settings: SandboxSettings;
  /** Whether the agent may change its own hooks and settings files (settings.allowAgentConfigEdits). */
  allowAgentConfigEdits: boolean;
  /** Where a warning goes (a secret-file scan that stopped short); default: stderr, prefixed `gantry: `. */
  log?: (line: string) => void;
  /** Entries the scan for secret files walks before it stops (default 50,000). */
  maxScannedEntries?: number;
  /** Home folders whose credential stores (sandbox-credentials.ts) are hidden; default: none. */
  homes?: readonly string[];
  /** The workspace's files commands may not read, asked before each command: secrets and Read deny rules. */
  hidden?: () => SecretGuard;
}

// The runtime is one per process (its proxies are shared); sessions share it and count references.
let runtimeUsers = 0;
let runtimeReady: Promise<void> | undefined;

function acquireRuntime(): Promise<void> {
  runtimeUsers++;
  runtimeReady ??= sandboxRuntime()
    .then((runtime) =>
      runtime.initialize({
        // per-session allow lists are registered per command, on top of this empty list
        network: { allowedDomains: [], deniedDomains: [] },
        filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
      }),
    )
    .catch((cause) => {
      runtimeReady = undefined;
      throw cause;
    });
  return runtimeReady;
}

async function releaseRuntime(): Promise<void> {
  runtimeUsers--;
  if (runtimeUsers > 0 || runtimeReady === undefined) return;
  runtimeReady = undefined;
  await (await sandboxRuntime()).reset();
}

/** Whether bubblewrap, socat and the platform let the sandbox run; the reason when not. */
export async function sandboxUnavailableReason(): Promise<string | undefined> {
  const SandboxManager = await sandboxRuntime();
  if (!SandboxManager.isSupportedPlatform()) return "the sandbox runtime does not support this platform";
  const check = SandboxManager.checkDependencies();
  return check.errors.length > 0 ? check.errors.join("; ") : undefined;
}

/**
 * Commands under @anthropic-ai/sandbox-runtime (bubblewrap on Linux): the workspace writable, the rest
 * read-only, the workspace's secret files unreadable, the agent's hooks and settings files and git's
 * settings and hooks (git-layout.ts) read-only, network only through the runtime's proxy to the allowed domains.
 */
export function createCommandSandbox(options: SandboxOptions): CommandSandbox {
  const { workspace, settings } = options;
  let acquired = false;
  let disposed = false;
  let warnedIncompleteScan = false;
  const log = options.log ?? ((line: string) => void process.stderr.write(`gantry: ${line}\n`));

  return {
    async wrap(command) {
      if (disposed) throw new Error("the session has ended");
      if (!acquired) {
        // fail closed: a sandbox that was asked for and cannot run refuses every command
        const reason = await sandboxUnavailableReason();
        if (reason) throw new Error(`the sandbox is on but cannot run here: ${reason}`);
        acquired = true;
        await acquireRuntime();
      }
      const SandboxManager = await sandboxRuntime();
      const commandId = randomBytes(16).toString("base64url");
      const secrets = secretPathsIn(workspace, options.maxScannedEntries, options.hidden?.());
      if (!secrets.complete && !warnedIncompleteScan) {
        warnedIncompleteScan = true;
        log(
          `sandbox: the scan for secret files stopped after ${secrets.scanned} entries of ${workspace.root}; secret files past them stay readable by commands (list them in sandbox.denyRead)`,
        );
      }
      const credentials = credentialRules(workspace.root, secrets.nestedGitEntries, options.homes ?? []);
      const writable = [workspace.root, ...(settings.allowWrite ?? [])];
      // the runtime's own git rules follow Gantry's working folder, not the workspace
      const gitPaths = gitControlPaths(workspace.root, secrets.nestedGitEntries);
      const unpin = pinCommonDirs(gitPaths, writable);
      const denyWrite = [
        ...gitPaths,
        ...RUN_ON_OPEN_PATHS.map((name) => path.join(workspace.root, name)),
        ...(options.allowAgentConfigEdits ? [] : protectedConfigPaths(workspace)),
        ...(settings.denyWrite ?? []),
      ];
      const commandLine = await SandboxManager.wrapWithSandbox(
        command,
        "bash",
        {
          filesystem: {
            allowWrite: writable,
            denyWrite,
            denyRead: [...secrets.paths, ...credentials.denyRead, ...(settings.denyRead ?? [])],
          },
          network: { allowedDomains: [], deniedDomains: settings.deniedDomains ?? [] },
          credentials: { files: credentials.masked },
        },
        undefined,
        { commandId, commandText: command },
      ).catch((cause) => {
        unpin();
        throw cause;
      });
      const allowed = settings.allowedDomains ?? [];
      if (allowed.length > 0)
        SandboxManager.registerCommandNetworkLists(commandId, { allowedDomains: allowed });
      const release = () => {
        SandboxManager.unregisterCommandNetworkLists(commandId);
        // removes the placeholders bwrap made for deny paths that did not exist (once no sandbox runs)
        SandboxManager.cleanupAfterCommand();
        unpin();
      };
      return { commandLine, release };
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      if (acquired) await releaseRuntime();
    },
  };
}

/**
 * What the sandbox runtime keeps read-only in Gantry's working folder, which is not always the
 * workspace (--workspace, an editor, the library), so Gantry names them in the workspace itself: files
 * an editor, git or a shell runs code from once the user opens the folder (VS Code's folder-open tasks
 * and settings, JetBrains run configurations, .gitmodules, rc files).
 */
const RUN_ON_OPEN_PATHS = [
  ".vscode",
  ".idea",
  ".gitmodules",
  ".gitconfig",
  ".bashrc",
  ".bash_profile",
  ".zshrc",
  ".zprofile",
  ".profile",
  ".ripgreprc",
];

/**
 * What a sandboxed command may not write (SPEC §4, §5a): the workspace's config folders whole (hooks,
 * settings, agent definitions, fork profiles; also where none exists yet: the runtime then blocks
 * creating them), `.mcp.json`, the scripts hooks run and the user's own config folders.
 */
export function protectedConfigPaths(workspace: Workspace): string[] {
  const paths = [
    ...PROTECTED_CONFIG_FOLDERS.map((folder) => path.join(workspace.root, folder)),
    ...PROTECTED_CONFIG_ROOT_FILES.map((file) => path.join(workspace.root, file)),
    ...workspace.protectedPaths.filter((entry) => existsSync(entry) || isInside(workspace.root, entry)),
  ];
  return [...new Set(paths)];
}

function isInside(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
}

const SKIPPED_FOLDERS = new Set(["node_modules", ".git"]);
const MAX_WALKED_ENTRIES = 50_000;

/**
 * The workspace's secret files and folders, judged by the same guard as the file tools. `.git` is
 * left readable so git works inside the sandbox (its credentials are masked: sandbox-credentials.ts);
 * `nestedGitEntries` are the `.git` folders and files found below the root. Files created after the
 * walk are not covered, and the walk (breadth first) stops after `maxEntries` entries (`complete: false`:
 * the caller says so).
 */
export function secretPathsIn(
  workspace: Workspace,
  maxEntries = MAX_WALKED_ENTRIES,
  guard: SecretGuard = workspace.secrets,
): { paths: string[]; complete: boolean; scanned: number; nestedGitEntries: string[] } {
  const paths: string[] = [];
  const nestedGitEntries: string[] = [];
  let scanned = 0;
  let complete = true;
  // breadth first: a repository's deep folders cannot spend the budget before the shallow secrets are seen
  const queue: { folder: string; rel: string }[] = [{ folder: workspace.root, rel: "" }];
  for (let at = 0; at < queue.length && complete; at++) {
    const { folder, rel } = queue[at] as { folder: string; rel: string };
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (scanned >= maxEntries) {
        complete = false;
        break;
      }
      scanned++;
      const entryRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.name === ".git" && rel !== "") nestedGitEntries.push(path.join(folder, entry.name));
      if (SKIPPED_FOLDERS.has(entry.name)) continue;
      if (guard.isSecret(entryRel)) paths.push(path.join(folder, entry.name));
      else if (entry.isDirectory()) queue.push({ folder: path.join(folder, entry.name), rel: entryRel });
    }
  }
  return { paths, complete, scanned, nestedGitEntries };
}
