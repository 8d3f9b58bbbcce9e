import path from "node:path";
import { UNTRUSTED_BROKEN } from "../config/drop-invalid.js";
import { fileTrust } from "../config/file-trust.js";
import type { ConfigReport, Origin } from "../config/provenance.js";
import { readIfPresent } from "../config/read-if-present.js";
import { didYouMean } from "../config/settings.js";
import {
  scriptsNamedBy,
  type WorkspaceCode,
  workspaceCodeOf,
  workspaceCodeOfArgv,
} from "../trust/hook-scripts.js";
import { originOf, shownPath } from "../trust/origin.js";
import type { WorkspaceTrust } from "../trust/workspace-trust.js";
import { claudeMcpApprovals } from "./claude-approvals.js";
import {
  type McpServerConfig,
  type McpServerEntry,
  McpServerEntrySchema,
  resolveServer,
  serverNameProblem,
} from "./config.js";

/** A file that may hold `mcpServers`, and how to read it. */
interface ServerSource {
  abs: string;
  origin: Origin;
  /** Gemini CLI and Qwen Code read a bare `url` as SSE. */
  bareUrl: "sse" | "http";
  /** Where the servers sit in the file (`~/.claude.json` keeps a project's under `projects[root]`). */
  pick(json: Record<string, unknown>): unknown;
}

export interface LoadMcpOptions {
  /** Real path of the workspace. */
  root: string;
  home: string;
  trust: WorkspaceTrust;
  report: ConfigReport;
  env?: NodeJS.ProcessEnv;
  /** Servers the caller gives (library `mcpServers`, or settings given in place of the files): the user's. */
  given?: Record<string, unknown>;
  /** Settings were given in place of both `.agents/settings.json` files: those files are not read. */
  settingsGiven?: boolean;
}

const top = (json: Record<string, unknown>) => json.mcpServers;

/**
 * Every file MCP servers are configured in, the user's first, then the workspace's; a later file's
 * server replaces an earlier one of the same name (Claude Code: project over user).
 */
function serverSources(root: string, home: string, settingsGiven: boolean): ServerSource[] {
  const claudeJson = path.join(home, ".claude.json");
  const sources: ServerSource[] = [
    { abs: claudeJson, origin: "home", bareUrl: "http", pick: top },
    {
      abs: claudeJson,
      origin: "home",
      bareUrl: "http",
      // Claude Code's "local" scope: the user's servers for this one project
      pick: (json) =>
        (json.projects as Record<string, { mcpServers?: unknown }> | undefined)?.[root]?.mcpServers,
    },
    { abs: path.join(home, ".gemini", "settings.json"), origin: "home", bareUrl: "sse", pick: top },
    { abs: path.join(home, ".qwen", "settings.json"), origin: "home", bareUrl: "sse", pick: top },
    ...(settingsGiven
      ? []
      : [
          {
            abs: path.join(home, ".agents", "settings.json"),
            origin: "home" as const,
            bareUrl: "http" as const,
            pick: top,
          },
        ]),
  ];
  const workspaceFiles: [string, "sse" | "http"][] = [
    [".gemini/settings.json", "sse"],
    [".qwen/settings.json", "sse"],
    [".mcp.json", "http"],
    ...(settingsGiven ? [] : [[".agents/settings.json", "http"] as [string, "http"]]),
    [".agents/settings.local.json", "http"],
  ];
  for (const [rel, bareUrl] of workspaceFiles) {
    const abs = path.join(root, rel);
    // a workspace that is the home: its config folders are the user's, read once above
    if (originOf(abs, home, root) === "home") continue;
    sources.push({ abs, origin: "workspace", bareUrl, pick: top });
  }
  return sources;
}

/**
 * The MCP servers a session may start (SPEC §8): the user's always, the workspace's only where trust
 * covers their file. Every server is recorded in the report (`mcpServers.<name>` with its command line
 * verbatim), ignored ones with `wantsTrust`, so the trust question lists exactly what would start.
 */
export function loadMcpServers(options: LoadMcpOptions): { servers: McpServerConfig[]; warnings: string[] } {
  const { root, home, trust, report } = options;
  const env = options.env ?? process.env;
  const warnings: string[] = [];
  const byName = new Map<string, McpServerConfig>();
  const add = (config: McpServerConfig) => {
    const earlier = byName.get(config.name);
    if (earlier) markOverridden(report, earlier, config.file);
    byName.set(config.name, config);
  };
  if (options.given) {
    for (const config of readEntries(
      options.given,
      "servers given to Gantry",
      "given",
      root,
      env,
      "http",
      warnings,
    ))
      add(config);
  }
  const files = jsonFiles();
  // a file is judged on the bytes its servers were parsed from, not on a second read
  // none read (missing, unreadable): not read again for the judgement, which could block on a pipe
  const judged = (file: string) => fileTrust(file, "workspace", trust, files(file).bytes);
  const { disabled } = claudeMcpApprovals(root, home, {
    files,
    isTrusted: (file) => judged(file).trusted,
    warnings,
  });
  const mcpJson = path.join(root, ".mcp.json");
  for (const source of serverSources(root, home, options.settingsGiven === true)) {
    const shown =
      source.abs === path.join(home, ".claude.json") ? "~/.claude.json" : shownPath(source.abs, root, home);
    const status = source.origin === "home" ? ({ trusted: true } as const) : judged(source.abs);
    const raw = readServersOf(source, shown, status.trusted, files, warnings);
    if (raw === undefined) continue;
    for (const config of readEntries(raw, shown, source.origin, root, env, source.bareUrl, warnings)) {
      const refusedIn = source.abs === mcpJson ? disabled.get(config.name) : undefined;
      if (refusedIn !== undefined) {
        report.values.push(valueOf(config, false, `switched off by disabledMcpjsonServers in ${refusedIn}`));
        continue;
      }
      // the user's own server is pinned too: its command may run the workspace's code (`npx` of a
      // package in node_modules, `python3 -m` of a folder here, `node tools/server.js`)
      const pinned = !status.trusted ? status.why : pinScripts(config, trust, home);
      if (typeof pinned === "string") {
        report.values.push(valueOf(config, false, pinned, true));
        continue;
      }
      report.values.push(valueOf(pinned, true));
      add(pinned);
    }
  }
  return { servers: [...byName.values()], warnings };
}

/**
 * A server with the workspace scripts it runs pinned to the digests trust approved (as hooks' scripts
 * are, src/trust/hooks.ts), or why it may not start: one of them is not covered as it is now. A server
 * of the user's own runs no file of a workspace trust does not cover.
 */
function pinScripts(config: McpServerConfig, trust: WorkspaceTrust, home: string): McpServerConfig | string {
  const scripts: { file: string; digest: string }[] = [];
  const code = serverCode(config, trust.root, home);
  for (const file of code.scripts) {
    const status = trust.file(file);
    if (status.trusted && status.digest !== undefined) {
      scripts.push({ file, digest: status.digest });
      continue;
    }
    const shown = shownPath(file, trust.root, home);
    const reason = status.trusted ? "is unreadable" : status.why;
    if (config.origin === "workspace") return `its script ${shown} ${reason}`;
    return `it runs ${shown}, a file of this workspace: ${reason}; or change the server in ${config.file} so it runs no file of the workspace`;
  }
  // what the workspace's files define (`npm run mcp`) runs once the folder is trusted, unpinned (hooks.ts)
  const defined = code.defined[0];
  if (defined && trust.decision !== "trusted") {
    const status = trust.file(defined.file);
    const reason = status.trusted ? "this folder is not trusted" : status.why;
    const runs = defined.why.replace("{}", shownPath(defined.file, trust.root, home));
    return `it runs code of this workspace (${runs}): ${reason}; or change the server in ${config.file} so it runs none of the workspace's code`;
  }
  return scripts.length > 0 ? { ...config, scripts } : config;
}

/** Environment variables whose value makes a program load code (`NODE_OPTIONS=--require ./x.cjs`). */
const CODE_LOADING_ENV = [
  "NODE_OPTIONS",
  "BASH_ENV",
  "ENV",
  "PYTHONSTARTUP",
  "PERL5OPT",
  "RUBYOPT",
  "LD_PRELOAD",
];

/**
 * The workspace files a stdio server runs: what its command line names (as started: variables
 * expanded, relative paths from its `cwd`), the workspace's copy of what `npx` or `python3 -m`
 * runs, and what `NODE_OPTIONS` and the like in its `env` load.
 */
export function serverScripts(config: McpServerConfig, root: string, home?: string): string[] {
  return serverCode(config, root, home).scripts;
}

/** The same, with the code workspace files define that it runs (`npm run mcp`: package.json's script). */
function serverCode(config: McpServerConfig, root: string, home?: string): WorkspaceCode {
  if (config.transport.kind !== "stdio") return { scripts: [], defined: [] };
  const { command, args, env, cwd } = config.transport;
  const options = { cwd: path.resolve(root, cwd || root), ...(home ? { home } : {}) };
  // as written too: `${PWD}/tools/server.cjs` names the file even where PWD is not set when listing
  const argv = workspaceCodeOfArgv([command, ...args], root, options);
  const verbatim = workspaceCodeOf(config.verbatim, root, options);
  const found = new Set([...argv.scripts, ...verbatim.scripts]);
  for (const name of CODE_LOADING_ENV) {
    const value = env[name];
    if (value === undefined) continue;
    const line = name === "NODE_OPTIONS" ? `node ${value}` : `: ${value}`;
    for (const file of scriptsNamedBy(line, root, options)) found.add(file);
  }
  return { scripts: [...found], defined: [...argv.defined, ...verbatim.defined] };
}

/**
 * A file's JSON, read and parsed once per load (`~/.claude.json`, often megabytes of Claude Code's state,
 * holds both a project's servers and its approvals): undefined when missing, why not when it cannot be
 * read (`unreadable`) or is not JSON (`broken`).
 */
export type JsonFiles = (abs: string) => {
  json?: Record<string, unknown>;
  broken?: string;
  unreadable?: string;
  /** What was read, for the file's trust. */
  bytes?: Buffer;
};

function jsonFiles(): JsonFiles {
  const read = new Map<string, ReturnType<JsonFiles>>();
  return (abs) => {
    let found = read.get(abs);
    if (found) return found;
    let bytes: Buffer | undefined;
    try {
      bytes = readIfPresent(abs);
    } catch (cause) {
      found = { unreadable: (cause as Error).message };
    }
    if (!found) {
      try {
        const json = bytes === undefined ? undefined : (JSON.parse(bytes.toString("utf8")) as unknown);
        found =
          typeof json === "object" && json !== null
            ? { json: json as Record<string, unknown>, bytes }
            : { bytes };
      } catch (cause) {
        found = { broken: (cause as Error).message, bytes };
      }
    }
    read.set(abs, found);
    return found;
  };
}

/**
 * A broken file of another harness (or a workspace's) must not stop Gantry: its servers are skipped,
 * and said so, in the settings loader's words for a workspace's file (one line where both read it).
 */
function readServersOf(
  source: ServerSource,
  shown: string,
  trusted: boolean,
  files: JsonFiles,
  warnings: string[],
): unknown {
  const { json, broken, unreadable } = files(source.abs);
  const problem =
    broken !== undefined
      ? `is not valid JSON: ${broken}`
      : unreadable !== undefined
        ? `cannot be read: ${unreadable}`
        : undefined;
  if (problem)
    warnings.push(
      !trusted
        ? `${shown} ${problem}; ${UNTRUSTED_BROKEN}`
        : `${shown} ${problem}; its MCP servers are skipped`,
    );
  return json ? source.pick(json) : undefined;
}

function readEntries(
  raw: unknown,
  file: string,
  origin: Origin,
  root: string,
  env: NodeJS.ProcessEnv,
  bareUrl: "sse" | "http",
  warnings: string[],
): McpServerConfig[] {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    warnings.push(`${file}: "mcpServers" must be an object of servers by name; ignored`);
    return [];
  }
  const configs: McpServerConfig[] = [];
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const entry = parseEntry(name, value, file, warnings);
    if (!entry) continue;
    configs.push(resolveServer(entry, { name, file, origin, workspaceRoot: root, env, bareUrl }));
  }
  return configs;
}

const knownKeys = () => Object.keys(McpServerEntrySchema().shape);

function parseEntry(
  name: string,
  value: unknown,
  file: string,
  warnings: string[],
): McpServerEntry | undefined {
  const nameProblem = serverNameProblem(name);
  if (nameProblem) {
    warnings.push(`${file}: ${nameProblem}; the server is skipped`);
    return undefined;
  }
  const parsed = McpServerEntrySchema().safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(entry)"}: ${i.message}`);
    warnings.push(`${file}: MCP server "${name}" is invalid (${problems.join("; ")}); it is skipped`);
    return undefined;
  }
  const known = knownKeys();
  for (const key of Object.keys(value as Record<string, unknown>)) {
    if (!known.includes(key))
      warnings.push(`${file}: MCP server "${name}": unknown key "${key}"${didYouMean(key, known)}; ignored`);
  }
  if (parsed.data.trust === true)
    warnings.push(
      `${file}: MCP server "${name}": "trust" is ignored; allow its tools with permissions.allow ["mcp__${name}"]`,
    );
  return parsed.data;
}

function valueOf(config: McpServerConfig, honoured: boolean, why?: string, wantsTrust?: boolean) {
  return {
    key: `mcpServers.${config.name}`,
    // a workspace's server is shown whole (its env and headers are the repository's own text); the user's by its command
    value: config.origin === "workspace" ? config.reviewed : config.verbatim,
    file: config.file,
    origin: config.origin,
    honoured,
    ...(why ? { why } : {}),
    ...(wantsTrust ? { wantsTrust } : {}),
  };
}

function markOverridden(report: ConfigReport, earlier: McpServerConfig, laterFile: string): void {
  const value = report.values.find(
    (v) => v.key === `mcpServers.${earlier.name}` && v.file === earlier.file && v.honoured,
  );
  if (value) {
    value.honoured = false;
    value.why = `replaced by the server of the same name in ${laterFile}`;
  }
}
