import type { ParseArgsConfig } from "node:util";

/** Options every `gantry` command takes, so `gantry tool` runs a call exactly as the agent would. */
export const GLOBAL_OPTIONS = {
  workspace: { type: "string", short: "w" },
  "approval-mode": { type: "string" },
  sandbox: { type: "boolean" },
  trust: { type: "boolean" },
  model: { type: "string", short: "m" },
  "base-url": { type: "string" },
  prompt: { type: "string", short: "p" },
  "output-format": { type: "string" },
  "max-turns": { type: "string" },
  continue: { type: "boolean", short: "c" },
  resume: { type: "string", short: "r" },
  acp: { type: "boolean" },
  version: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
} as const satisfies ParseArgsConfig["options"];

/** Options only one command takes (`gantry trust --list`), merged in when that command is named. */
export const COMMAND_OPTIONS: Record<string, ParseArgsConfig["options"]> = {
  trust: {
    list: { type: "boolean" },
    revoke: { type: "boolean" },
    never: { type: "boolean" },
    subfolders: { type: "boolean" },
  },
  mcp: {
    scope: { type: "string", short: "s" },
    transport: { type: "string", short: "t" },
    env: { type: "string", short: "e", multiple: true },
    header: { type: "string", short: "H", multiple: true },
    "subagent-only": { type: "boolean" },
  },
  worker: {
    port: { type: "string" },
    host: { type: "string" },
    admin: { type: "string" },
    workdir: { type: "string" },
    advertise: { type: "string" },
    "identity-key": { type: "string", multiple: true },
  },
  submit: { ingress: { type: "string" }, repo: { type: "string" }, ref: { type: "string" } },
  sessions: { ingress: { type: "string" }, follow: { type: "boolean" } },
  approve: { ingress: { type: "string" } },
  cancel: { ingress: { type: "string" } },
};

export interface GlobalOptions {
  workspace?: string;
  "approval-mode"?: string;
  sandbox?: boolean;
  trust?: boolean;
  model?: string;
  "base-url"?: string;
  prompt?: string;
  "output-format"?: string;
  "max-turns"?: string;
  continue?: boolean;
  resume?: string;
  acp?: boolean;
  version?: boolean;
  help?: boolean;
  /** A command's own options (COMMAND_OPTIONS). */
  list?: boolean;
  revoke?: boolean;
  never?: boolean;
  subfolders?: boolean;
  scope?: string;
  transport?: string;
  env?: string[];
  header?: string[];
  "subagent-only"?: boolean;
  port?: string;
  host?: string;
  admin?: string;
  workdir?: string;
  advertise?: string;
  "identity-key"?: string[];
  ingress?: string;
  repo?: string;
  ref?: string;
  follow?: boolean;
}

/** A mistake in how gantry was invoked: printed with the usage and exit code 2. */
export class UsageError extends Error {}

export const USAGE = `Usage:
  gantry [options] ["<prompt>"]           interactive session in the current folder (/help inside),
                                          starting with that prompt when one is given
  gantry -p "<prompt>" [options]          headless run (-p - reads the prompt from stdin)
  gantry tool <name> '<json args>'        run one tool call through the full pipeline, print the result JSON
  gantry tools                            list the tool registry
  gantry hooks check                      validate and list the hooks (.agents/hooks.json, .claude, .gemini)
  gantry agents                           list the subagent types (.agents/agents, .claude/agents, .gemini/agents, .qwen/agents)
  gantry trust [DIR]                      trust a folder's hooks, allow rules and settings (pinned as they are now)
  gantry trust --list | --revoke DIR | --never [DIR]
  gantry config                           every setting with its file, and whether it counts (and why not)
  gantry mcp list | get NAME              the MCP servers: state, tools, where each is configured
  gantry mcp add [-s user|project] [-t stdio|http|sse] [-e K=V] [-H "K: V"] NAME COMMAND|URL [-- ARGS...]
  gantry mcp add-json NAME JSON | remove NAME [-s SCOPE] | login NAME | logout NAME
  gantry mcp serve                        serve Gantry's tools over stdio to an MCP client
  gantry skills                           list the skills (SKILL.md folders in ~/.agents/skills, .claude/skills, ...)
  gantry artifacts [--resume ID | -c]     the plans, reports and images the agent saved, by session
  gantry --acp [options]                  an Agent Client Protocol agent on stdin/stdout, for editors (Zed, ...)
  gantry worker --port N [--admin URL] [--workdir DIR] [--host H] [--advertise URL] [--identity-key K]
                                          serve durable sessions to a Restate cluster
  gantry submit --ingress URL -p "<prompt>" --repo URL-or-path [--ref REF] [--trust] [options]
                                          start a durable session; prints its id
  gantry sessions --ingress URL [<id> [--follow]]
                                          list sessions, or print (and follow) one's stream-json lines
  gantry approve --ingress URL <id> <ask-id> yes|session|no [why]   answer an ask (or the questions' answers)
  gantry cancel --ingress URL <id>        cancel a durable session's running prompt
  gantry --version

Options:
  -w, --workspace DIR        the workspace folder (default: the current folder)
      --approval-mode MODE   default | auto-edit | yolo | plan
      --sandbox              run commands in the sandbox
      --trust                trust the workspace's configuration for this run (GANTRY_TRUST_WORKSPACE=1 too)
  -m, --model PROVIDER:ID    google | anthropic | openai | openai-compatible
      --base-url URL         the provider's API base URL (required for openai-compatible)
      --output-format FMT    text | json | stream-json (with -p)
      --max-turns N          stop after N model turns (per prompt when interactive)
  -c, --continue             continue the most recent session (with -p or interactive)
  -r, --resume ID            resume a saved session
`;
