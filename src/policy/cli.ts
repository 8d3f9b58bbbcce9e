import { fstatSync, statSync } from "node:fs";
import { isatty } from "node:tty";
import type { Asker } from "./asker.js";
import { createHeadlessAsker } from "./asker.js";
import { APPROVAL_MODES, type ApprovalMode, parseApprovalMode } from "./modes.js";
import { createTerminalAsker } from "./terminal-asker.js";

export interface CliPermissionOptions {
  approvalMode?: ApprovalMode;
  defaultApprovalMode: ApprovalMode;
  asker: Asker;
  /** Releases the terminal when the command ends. */
  close(): void;
}

/**
 * What the `gantry` command hands createGantrySession: `--approval-mode` (it wins over settings),
 * "default" when nothing names a mode, and a terminal asker when stdin is a TTY (else headless).
 */
export function cliPermissionOptions(flag: string | undefined): CliPermissionOptions {
  let approvalMode: ApprovalMode | undefined;
  if (flag !== undefined) {
    approvalMode = parseApprovalMode(flag);
    if (!approvalMode) {
      throw new Error(`--approval-mode must be one of ${APPROVAL_MODES.join(", ")}; got "${flag}"`);
    }
  }
  if (stdinIsTerminal()) {
    const terminal = createTerminalAsker();
    return { approvalMode, defaultApprovalMode: "default", asker: terminal, close: () => terminal.close() };
  }
  return { approvalMode, defaultApprovalMode: "default", asker: createHeadlessAsker(), close: () => {} };
}

/**
 * isatty, not process.stdin.isTTY: that makes the stdin stream, which a one-shot call never reads.
 * A terminal is a character device, so a pipe or a file (a script, a benchmark) is told apart by one
 * fstat, without loading node:tty (it loads node:net, ms of a one-shot call's start-up); so is
 * /dev/null (a detached run, `< /dev/null`, a spawn with stdin ignored), told apart by its device number.
 */
function stdinIsTerminal(): boolean {
  try {
    const stdin = fstatSync(0);
    if (!stdin.isCharacterDevice() || isDevNull(stdin.rdev)) return false;
  } catch {
    return false; // no stdin at all
  }
  return isatty(0);
}

function isDevNull(rdev: number): boolean {
  try {
    return statSync("/dev/null").rdev === rdev;
  } catch {
    return false;
  }
}
