import { isGitCommandKey } from "../policy/shell-config-commands.js";

export interface GitOptions {
  signal?: AbortSignal;
  env?: Record<string, string>;
  /** Written to git's standard input (a patch for `git apply`). */
  input?: string;
}

/**
 * Settings every Gantry git call carries: no hook runs (the repository's `.git/hooks` or the folder a
 * `core.hooksPath` names), no fsmonitor, no submodule is fetched, and no transport runs a command.
 */
const ALWAYS = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "submodule.recurse=false",
  "protocol.ext.allow=never",
  "protocol.fd.allow=never",
];

/**
 * One git command of Gantry's own (an agent's worktree, a durable session's checkout) in a folder whose
 * `.git` the repository controls: a folder that came as an archive, or whose `.git/config` a script
 * changed, can name commands git would run (filters, diff drivers, fsmonitor, hooks) outside the
 * sandbox and the policy, approved by nobody. Those the repository's own configuration sets (`.git/config`,
 * a file it includes, a worktree's config) are switched off; the user's and the system's are kept (a
 * git-lfs filter keeps working). Never prompts; rejects with git's own message.
 */
export async function runGit(cwd: string, args: string[], options: GitOptions = {}): Promise<string> {
  const overrides = [...ALWAYS, ...repositoryCommandOverrides(await listConfig(cwd, options))];
  return execGit(cwd, overrides, args, options);
}

/** `git config --list` with each entry's scope; reading configuration runs nothing. */
async function listConfig(cwd: string, options: GitOptions): Promise<string> {
  try {
    return await execGit(cwd, [], ["config", "--list", "--show-scope", "-z"], { ...options, input: "" });
  } catch (error) {
    // exit 1 with no output: no configuration at all (outside a repository, no user config)
    if (error instanceof GitError && error.code === 1 && error.stderr === "") return "";
    throw error;
  }
}

/**
 * The `-c` settings that switch off every command the repository's own configuration names. Entries
 * come as `scope NUL key LF value NUL`; an included file's entries carry the scope of the file that
 * includes it.
 */
export function repositoryCommandOverrides(listing: string): string[] {
  const overrides = new Set<string>();
  const fields = listing.split("\0");
  for (let at = 0; at + 1 < fields.length; at += 2) {
    const scope = fields[at] as string;
    if (scope !== "local" && scope !== "worktree") continue;
    const entry = fields[at + 1] as string;
    const key = (entry.includes("\n") ? entry.slice(0, entry.indexOf("\n")) : entry).toLowerCase();
    if (!isGitCommandKey(key)) continue;
    overrides.add(`${key}=`);
    // an empty filter is no filter, unless the repository also says the filter must succeed
    const filter = /^filter\.(.+)\.(clean|smudge|process)$/.exec(key);
    if (filter) overrides.add(`filter.${filter[1]}.required=false`);
  }
  return [...overrides];
}

class GitError extends Error {
  constructor(
    message: string,
    readonly code: number | string | undefined,
    readonly stderr: string,
  ) {
    super(message);
  }
}

function execGit(cwd: string, settings: string[], args: string[], options: GitOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    // child_process is loaded with the first git call, not with every `gantry` start
    const child = process.getBuiltinModule("node:child_process").execFile(
      "git",
      ["-C", cwd, ...settings.flatMap((setting) => ["-c", setting]), ...args],
      {
        maxBuffer: 256 * 1024 * 1024,
        signal: options.signal,
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0", ...options.env },
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        reject(
          new GitError(
            `git ${args[0]} failed: ${(stderr || error.message).trim()}`,
            error.code ?? undefined,
            stderr,
          ),
        );
      },
    );
    // git may exit before reading its input (a failed apply): that is its error to report, not a crash
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(options.input ?? "");
  });
}
