import { execFile } from "node:child_process";

export interface GitOptions {
  env?: Record<string, string>;
  /** Written to git's standard input (a patch for `git apply`). */
  input?: string;
}

/**
 * One git command in `cwd` that never prompts and never runs a repository's own transports or hooks'
 * helpers from the command line; rejects with git's message.
 */
export function runGit(cwd: string, args: string[], options: GitOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      ["-c", "protocol.ext.allow=never", "-c", "protocol.fd.allow=never", "-C", cwd, ...args],
      {
        maxBuffer: 256 * 1024 * 1024,
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0", ...options.env },
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`git ${args[0]} failed: ${(stderr || error.message).trim()}`));
        else resolve(stdout);
      },
    );
    // git may exit before reading its input (a failed apply): that is its error to report, not a crash
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(options.input ?? "");
  });
}
