import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { approvalModeOption } from "../cli/agent-session.js";
import { type GlobalOptions, UsageError } from "../cli/options.js";
import { cliTrustOption } from "../cli/trust-option.js";
import { createAcpAgent } from "./agent.js";

/**
 * `gantry --acp`: the ACP agent on stdin/stdout (newline-delimited JSON-RPC), until the editor closes
 * the connection. Notices go to stderr; stdout carries nothing but the protocol.
 */
export async function run(positionals: string[], options: GlobalOptions): Promise<number> {
  if (positionals.length > 0)
    throw new UsageError(`unexpected arguments with --acp: ${positionals.join(" ")}`);
  if (options.prompt !== undefined) throw new UsageError("--acp and -p cannot be used together");
  const approvalMode = approvalModeOption(options);
  const acp = createAcpAgent({
    trust: cliTrustOption(options.trust),
    ...(options.model ? { model: options.model } : {}),
    ...(options["base-url"] ? { baseUrl: options["base-url"] } : {}),
    ...(approvalMode ? { approvalMode } : {}),
    log: (line) => void process.stderr.write(`gantry: ${line}\n`),
  });
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = acp.app.connect(stream);
  const stop = () => connection.close();
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  try {
    await connection.closed;
  } finally {
    await acp.closeAll();
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
  }
  return 0;
}
