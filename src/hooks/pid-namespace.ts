import { pidNamespaceArgs } from "../tools/exec/process-tree.js";

/**
 * A hook's command runs as the first process of a PID namespace of its own: when that process ends
 * (it exits, or is killed at a timeout) the kernel ends every process left in the namespace, including
 * those that left the process group with `setsid` or a double fork. `unshare` costs about 1 ms a spawn
 * (bwrap about 8), so it is tried first: as root, then in a user namespace that keeps the caller's uid.
 * `--kill-child` ends the namespace when `unshare` itself is killed.
 */
const CANDIDATES = [
  ["unshare", "--pid", "--fork", "--kill-child", "--"],
  ["unshare", "--user", "--map-current-user", "--pid", "--fork", "--kill-child", "--"],
];

let prefix: string[] | undefined;

/** The argv to put before a hook's shell (empty where no namespace can be made: a process group only). Probed once. */
export function pidNamespacePrefix(): string[] {
  if (prefix !== undefined) return prefix;
  const { spawnSync } = process.getBuiltinModule("node:child_process");
  const works = (argv: string[]) =>
    spawnSync(argv[0] as string, [...argv.slice(1), "true"], { stdio: "ignore", timeout: 5_000 }).status ===
    0;
  prefix = CANDIDATES.find(works) ?? bwrapPrefix();
  return prefix;
}

/** The PID namespace run_command makes with bubblewrap (probed only when unshare cannot make one). */
function bwrapPrefix(): string[] {
  const args = pidNamespaceArgs();
  return args ? ["bwrap", ...args, "--"] : [];
}
