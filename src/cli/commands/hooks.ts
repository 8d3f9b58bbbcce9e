import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { findMissingScripts } from "../../hooks/check.js";
import { formatProblem, hookSources, loadHookConfig } from "../../hooks/config.js";
import type { ConfiguredEvent, HandlerConfig, HookGroup } from "../../hooks/rules.js";
import { originOf } from "../../trust/origin.js";
import { sessionTrust } from "../../trust/session-trust.js";
import { printable } from "../../trust/shown-value.js";
import { type GlobalOptions, UsageError } from "../options.js";
import { cliTrustOption } from "../trust-option.js";

/** `gantry hooks check`: every group, event, matcher and handler, and every problem; exit 1 when any. */
export async function run(args: string[], options: GlobalOptions): Promise<number> {
  const [sub, ...extra] = args;
  if (sub !== "check")
    throw new UsageError(`gantry hooks needs a subcommand: check (got ${sub ?? "nothing"})`);
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
  const root = realpathSync(path.resolve(options.workspace ?? process.cwd()));
  const home = homedir();
  const config = loadHookConfig(root, home);
  const trust = sessionTrust(root, home, cliTrustOption(options.trust));
  // judged on the bytes the hooks listed below were parsed from, as a session judges them
  const fileTrust = (file: string) =>
    originOf(file, home, root) === "home" ? undefined : trust.file(file, config.contents?.[file]);
  const problems = [...config.problems, ...findMissingScripts(config, root)];
  const out: string[] = [];
  out.push(`Hook sources (in the order they run):`);
  for (const source of hookSources(root, home)) {
    const found = config.files.includes(source.file);
    const status = found ? fileTrust(source.file) : undefined;
    const ignored = status && !status.trusted ? `  IGNORED: ${status.why}` : "";
    out.push(
      `  ${found ? "found  " : "absent "} ${source.file} (${source.dialect})${ignored} [${source.scope}]`,
    );
  }
  out.push("", ...describeEvents(config.events));
  for (const group of config.groups) out.push("", ...describeGroup(group));
  out.push("");
  if (problems.length === 0) {
    out.push(`No problems found in ${config.groups.length} group(s).`);
  } else {
    out.push(`${problems.length} problem(s):`);
    for (const problem of problems) out.push(`  ${problem.severity}: ${formatProblem(problem)}`);
  }
  process.stdout.write(`${out.join("\n")}\n`);
  return problems.length === 0 ? 0 : 1;
}

/** Every event the files configure, once per file, and whether Gantry fires it. */
function describeEvents(events: ConfiguredEvent[]): string[] {
  if (events.length === 0) return ["No events configured."];
  const seen = new Set<string>();
  const lines = ["Events configured:"];
  for (const event of events) {
    const key = `${event.file}\0${event.key}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const native = event.event && event.event !== event.key ? ` (${event.event})` : "";
    const fires = event.fires ? "fires" : "does NOT fire in Gantry; its hooks are ignored";
    lines.push(`  ${event.key}${native}: ${fires}  [${event.file}]`);
  }
  return lines;
}

function describeGroup(group: HookGroup): string[] {
  const flags = [group.enabled ? "enabled" : "DISABLED", group.failClosed ? "failClosed" : "fail-open"];
  const lines = [`Group "${group.name}" (${group.dialect}, ${flags.join(", ")}) from ${group.file}`];
  if (group.rules.length === 0) lines.push("  (no rules)");
  for (const rule of group.rules) {
    const only = `${rule.only ? `, after ${rule.only} only` : ""}${rule.sequential ? ", sequential" : ""}`;
    const invalid = rule.matcher.problem ? "  <- INVALID, matches nothing" : "";
    const key = rule.key !== rule.event ? ` (${rule.key})` : "";
    lines.push(`  ${rule.event}${key}  matcher ${JSON.stringify(rule.matcher.pattern)}${only}${invalid}`);
    for (const handler of rule.handlers) {
      const condition = handler.condition === undefined ? "" : `  if ${handler.condition}`;
      lines.push(`    - ${printable(`${describeHandler(handler)}${condition}`)}`);
    }
  }
  return lines;
}

function describeHandler(handler: HandlerConfig): string {
  const timeout = `timeout ${handler.timeoutMs / 1000} s`;
  if (handler.kind === "command") {
    const env = handler.env ? `, env ${Object.keys(handler.env).join(", ")}` : "";
    return `command: ${handler.command} (${timeout}${handler.background ? ", async: in the background" : ""}${env})`;
  }
  if (handler.kind === "function") return `function: ${handler.name} (${timeout})`;
  if (handler.kind === "prompt")
    return `${handler.agent ? "agent" : "prompt"}: ${JSON.stringify(handler.prompt)} (${timeout})`;
  const headers = Object.keys(handler.headers);
  return `http POST ${handler.url}${headers.length ? ` headers: ${headers.join(", ")}` : ""} (${timeout})`;
}
