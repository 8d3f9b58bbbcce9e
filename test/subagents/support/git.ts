import { execFileSync } from "node:child_process";

/** Makes `root` a git repository with one commit of everything in it. */
export function initRepo(root: string): void {
  const run = (...args: string[]) => execFileSync("git", ["-C", root, ...args], { stdio: "pipe" });
  run("init", "-q", "-b", "main");
  run("config", "user.email", "t@example.com");
  run("config", "user.name", "t");
  run("add", "-A");
  run("commit", "-q", "-m", "init");
}

export function gitOut(root: string, ...args: string[]): string {
  return execFileSync("git", ["-C", root, ...args], { encoding: "utf8" });
}
