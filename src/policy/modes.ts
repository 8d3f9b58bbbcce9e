import type { SafetyLevel } from "../tools/contract.js";

/** How much runs without asking (SPEC §5): the `--approval-mode` flag, `approvalMode` in settings. */
export const APPROVAL_MODES = ["default", "auto-edit", "yolo", "plan"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** Claude Code's `permissions.defaultMode` names, so a `.claude/settings.json` works unchanged. */
const MODE_ALIASES: Record<string, ApprovalMode> = {
  default: "default",
  "auto-edit": "auto-edit",
  autoEdit: "auto-edit",
  acceptEdits: "auto-edit",
  yolo: "yolo",
  bypassPermissions: "yolo",
  plan: "plan",
  dontAsk: "default",
};

export function parseApprovalMode(value: string): ApprovalMode | undefined {
  return Object.hasOwn(MODE_ALIASES, value) ? MODE_ALIASES[value] : undefined;
}

export type Baseline = "allow" | "ask" | "deny";

/**
 * What a mode says about a call no rule matched. Interactive tools (ask_question, ask_permission)
 * talk to the user themselves, so asking first would only ask twice.
 */
export function modeBaseline(mode: ApprovalMode, safety: SafetyLevel): Baseline {
  if (safety === "read_only" || safety === "interactive") return "allow";
  switch (mode) {
    case "yolo":
      return "allow";
    case "plan":
      return "deny";
    case "auto-edit":
      return safety === "write" ? "allow" : "ask";
    case "default":
      return "ask";
  }
}

/** The flag that would let a call of this safety level run without asking, for headless messages. */
export function modeThatAllows(safety: SafetyLevel): ApprovalMode {
  return safety === "write" ? "auto-edit" : "yolo";
}

export const MODE_DESCRIPTIONS: Record<ApprovalMode, string> = {
  default: "read-only tools run; everything else asks",
  "auto-edit": "read-only tools and file edits run; commands and network tools ask",
  yolo: "everything runs except what a deny rule forbids",
  plan: "read-only tools only; everything else is denied",
};
