import { UNTRUSTED_BROKEN } from "../config/drop-invalid.js";
import { fileTrust } from "../config/file-trust.js";
import type { ConfigReport } from "../config/provenance.js";
import type { HandlerConfig, HookConfig, HookGroup } from "../hooks/rules.js";
import { workspaceCodeOf } from "./hook-scripts.js";
import { originOf, shownPath } from "./origin.js";
import { shownPairs } from "./shown-value.js";
import type { WorkspaceTrust } from "./workspace-trust.js";

/**
 * The hooks a session runs (SPEC §5a): the user's own always; a workspace file's only when trust covers
 * it, and of those only the handlers whose scripts are as approved. A kept handler carries the digests
 * of its workspace scripts, checked before every run (hooks/step.ts): a script swapped mid-session does
 * not run, the call is denied. Everything left out is recorded in the report.
 */
export function applyTrustToHooks(
  config: HookConfig,
  trust: WorkspaceTrust,
  home: string,
  report: ConfigReport,
): HookConfig {
  // each file judged on the bytes its hooks were parsed from
  // a file read for the config but not readable is not read again for the judgement (a pipe would block)
  const judged = (file: string) =>
    config.contents ? fileTrust(file, "workspace", trust, config.contents[file]) : trust.file(file);
  const counts = (file: string) => originOf(file, home, trust.root) === "home" || judged(file).trusted;
  const groups: HookGroup[] = [];
  for (const group of config.groups) {
    const userOwned = originOf(group.file, home, trust.root) === "home";
    const record = recorder(group, trust, home, report);
    const fileTrust = userOwned ? ({ trusted: true } as const) : judged(group.file);
    if (!fileTrust.trusted) {
      for (const handler of handlersOf(group))
        record(handler, { honoured: false, why: fileTrust.why, wantsTrust: true });
      continue;
    }
    groups.push({
      ...group,
      rules: group.rules.map((rule) => ({
        ...rule,
        handlers: rule.handlers.map((handler) => pinHandler(handler, group, userOwned, trust, home, record)),
      })),
    });
  }
  // an ignored file's mistakes cannot stop the session: a repository must not be able to block it;
  // they are named, as its hooks would be, so a broken file is not passed over in silence
  for (const problem of config.problems)
    if (problem.severity === "error" && !counts(problem.file))
      report.warnings.push(
        `${problemLine(problem, shownPath(problem.file, trust.root, home))}; ${UNTRUSTED_BROKEN}`,
      );
  return {
    groups,
    files: config.files.filter(counts),
    problems: config.problems.filter((problem) => counts(problem.file)),
    events: config.events.filter((event) => counts(event.file)),
  };
}

/** A hook file's problem; the whole file's in the settings loader's words (one line where both read it). */
function problemLine(problem: HookConfig["problems"][number], shown: string): string {
  if (problem.at !== "(file)") return `${shown}: ${problem.at}: ${problem.message}`;
  return `${shown} ${problem.message.replace(/^not valid JSON/, "is not valid JSON")}`;
}

type Verdict = { honoured: boolean; why?: string; wantsTrust?: boolean; origin?: "home" | "workspace" };
type HandlerRecorder = (handler: HandlerConfig, verdict: Verdict) => void;

/** Records one handler of a group in the report, described as the trust question shows it. */
function recorder(
  group: HookGroup,
  trust: WorkspaceTrust,
  home: string,
  report: ConfigReport,
): HandlerRecorder {
  const file = shownPath(group.file, trust.root, home);
  return (handler, { honoured, why, wantsTrust, origin = "workspace" }) =>
    report.values.push({
      key: "hooks",
      value: describeHandler(group, handler),
      file,
      origin,
      honoured,
      ...(why ? { why } : {}),
      ...(wantsTrust ? { wantsTrust } : {}),
    });
}

/** A command handler with its workspace scripts pinned, or refused when trust does not cover one. */
function pinHandler(
  handler: HandlerConfig,
  group: HookGroup,
  userOwned: boolean,
  trust: WorkspaceTrust,
  home: string,
  record: HandlerRecorder,
): HandlerConfig {
  if (handler.kind !== "command") return handler;
  const pins: { file: string; digest: string }[] = [];
  const code = workspaceCodeOf(handler.command, trust.root, { home });
  const refuse = (why: string, wantsTrust: boolean): HandlerConfig => {
    record(handler, { honoured: false, why, wantsTrust, origin: userOwned ? "home" : "workspace" });
    return { ...handler, refusal: `the hook ${JSON.stringify(handler.command)} was not run: ${why}` };
  };
  for (const script of code.scripts) {
    const scriptShown = shownPath(script, trust.root, home);
    const status = trust.file(script);
    const digest = status.trusted ? status.digest : undefined;
    if (digest === undefined) {
      const reason = status.trusted ? "is unreadable" : status.why;
      const why = userOwned
        ? `it runs ${scriptShown}, a file of this workspace: ${reason}; or change the hook in ${shownPath(group.file, trust.root, home)} so it runs no file of the workspace`
        : `its script ${scriptShown} ${reason}`;
      return refuse(why, !status.trusted);
    }
    pins.push({ file: script, digest });
  }
  // code the workspace's files define (`npm test`, `make`, `git status` with a core.fsmonitor) is
  // the folder's to run once it is trusted; it is not pinned, since what it runs (the tests) changes
  const defined = code.defined[0];
  if (defined && trust.decision !== "trusted") {
    const status = trust.file(defined.file);
    const reason = status.trusted ? "this folder is not trusted" : status.why;
    const runs = defined.why.replace("{}", shownPath(defined.file, trust.root, home));
    return refuse(
      `it runs code of this workspace (${runs}): ${reason}; or change the hook in ${shownPath(group.file, trust.root, home)} so it runs none of the workspace's code`,
      true,
    );
  }
  if (!userOwned) record(handler, { honoured: true });
  return pins.length > 0 ? { ...handler, scripts: pins } : handler;
}

function handlersOf(group: HookGroup): HandlerConfig[] {
  return group.rules.flatMap((rule) => rule.handlers);
}

/** `PreToolUse "Bash": python3 .claude/hooks/check.py` — what a trust question shows verbatim. */
export function describeHandler(group: HookGroup, handler: HandlerConfig): string {
  const rule = group.rules.find((candidate) => candidate.handlers.includes(handler));
  const where = rule ? `${rule.event} ${JSON.stringify(rule.matcher.pattern)}: ` : "";
  if (handler.kind === "function") return `${where}function ${handler.name}`;
  if (handler.kind === "prompt") return `${where}prompt ${JSON.stringify(handler.prompt)}`;
  if (handler.kind === "command") return `${where}${handler.command}`;
  const headers = shownPairs(handler.headers, (name, value) => `${name}: ${value}`);
  return `${where}POST ${handler.url}${headers.length > 0 ? ` (headers ${headers.join("; ")})` : ""}`;
}
