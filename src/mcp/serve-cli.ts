import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { GlobalOptions } from "../cli/options.js";
import { UsageError } from "../cli/options.js";
import { cliTrustOption, reportConfigNotices } from "../cli/trust-option.js";
import { createGantrySession } from "../gantry.js";
import { parseApprovalMode } from "../policy/modes.js";
import { createGantryMcpServer, createMcpAsker } from "./serve.js";

/**
 * `gantry mcp serve`: the session of this folder (its guard, rules, hooks and `--approval-mode`,
 * default "default") served over stdio until the client closes the connection.
 */
export async function serve(args: string[], options: GlobalOptions): Promise<number> {
  if (args.length > 0) throw new UsageError(`gantry mcp serve takes no arguments (got ${args.join(" ")})`);
  const flag = options["approval-mode"];
  const approvalMode = flag === undefined ? undefined : parseApprovalMode(flag);
  if (flag !== undefined && !approvalMode)
    throw new UsageError(`--approval-mode must be default, auto-edit, yolo or plan, not "${flag}"`);
  const session = createGantrySession({
    workspace: options.workspace,
    defaultApprovalMode: "default",
    ...(approvalMode ? { approvalMode } : {}),
    asker: createMcpAsker(),
    trust: cliTrustOption(options.trust),
    ...(options.sandbox ? { sandbox: true } : {}),
  });
  reportConfigNotices(session);
  // the SDK picks the era from the client's opening (2026-07-28 discover, or the 2025 initialize)
  const served = serveStdio(() => createGantryMcpServer(session), {
    onerror: (error) => process.stderr.write(`gantry: mcp serve: ${error.message}\n`),
  });
  await new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
  });
  await served.close().catch(() => undefined);
  await session.dispose();
  return 0;
}
