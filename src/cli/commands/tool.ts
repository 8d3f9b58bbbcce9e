import { createGantrySession } from "../../gantry.js";
import { configureHookRunner } from "../../hooks/hook-runner.js";
import { cliPermissionOptions } from "../../policy/cli.js";
import { nameRunForCodeCache } from "../code-cache-run.js";
import { parseWithoutCompiling } from "../one-shot.js";
import { type GlobalOptions, UsageError } from "../options.js";
import { cliTrustOption, reportConfigNotices } from "../trust-option.js";
import { writeStdoutSync } from "../write-sync.js";

/** `gantry tool <name> '<json args>'`: one call through the full pipeline; the result JSON on stdout. */
export async function run(args: string[], options: GlobalOptions): Promise<number> {
  const [name, json, ...extra] = args;
  if (name === undefined) throw new UsageError("gantry tool needs a tool name");
  if (extra.length > 0) throw new UsageError(`unexpected arguments after the JSON: ${extra.join(" ")}`);
  parseWithoutCompiling();
  let toolArgs: unknown = {};
  if (json !== undefined) {
    try {
      toolArgs = JSON.parse(json);
    } catch (cause) {
      throw new UsageError(`the arguments are not valid JSON: ${(cause as Error).message}`);
    }
  }
  let approvals: ReturnType<typeof cliPermissionOptions>;
  try {
    approvals = cliPermissionOptions(options["approval-mode"]);
  } catch (cause) {
    throw new UsageError((cause as Error).message);
  }
  // one call's hooks start from here: a hook runner process would start for at most two of them
  configureHookRunner({ entry: false });
  // one call, no earlier turn: edits check the file against their own read (ToolEnvironment)
  const session = createGantrySession({
    workspace: options.workspace,
    approvalMode: approvals.approvalMode,
    defaultApprovalMode: approvals.defaultApprovalMode,
    asker: approvals.asker,
    requireReadBeforeEdit: false,
    trust: cliTrustOption(options.trust),
    ...(options.sandbox ? { sandbox: true } : {}),
    // the conversation's model, for search_web's "model" backend
    ...(options.model ? { model: options.model } : {}),
    ...(options["base-url"] ? { baseUrl: options["base-url"] } : {}),
  });
  reportConfigNotices(session);
  const controller = new AbortController();
  const abort = () => controller.abort();
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  try {
    // an MCP tool exists once its server has started
    if (name.startsWith("mcp__"))
      for (const failure of await session.mcp.startFor([name])) process.stderr.write(`gantry: ${failure}\n`);
    const result = await session.pipeline.run({ name, args: toolArgs }, { signal: controller.signal });
    writeStdoutSync(`${JSON.stringify(result, null, 2)}\n`);
    // a call that ran: the code caches may keep its tool's functions (an unknown tool or bad arguments ran none)
    if (!result.error)
      nameRunForCodeCache(
        name.startsWith("mcp__") ? "tool mcp" : `tool ${session.registry.lookup(name)?.spec.name}`,
      );
    return 0;
  } finally {
    approvals.close();
    await session.dispose();
    process.off("SIGINT", abort);
    process.off("SIGTERM", abort);
  }
}
