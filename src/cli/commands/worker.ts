import { homedir } from "node:os";
import path from "node:path";
import { type GlobalOptions, UsageError } from "../options.js";

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}

/**
 * `gantry worker --port N [--admin URL] [--workdir DIR] [--host H] [--advertise URL] [--identity-key K]`:
 * serves durable sessions to a Restate cluster until SIGINT/SIGTERM. Restate's SDK loads only here.
 */
export async function run(args: string[], options: GlobalOptions): Promise<number> {
  if (args.length > 0) throw new UsageError(`gantry worker takes no arguments (got ${args.join(" ")})`);
  const port = Number(options.port);
  if (options.port === undefined || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`gantry worker needs --port N (0-65535), not ${options.port ?? "nothing"}`);
  for (const [flag, value] of [
    ["--admin", options.admin],
    ["--advertise", options.advertise],
  ] as const)
    if (value !== undefined && !URL.canParse(value))
      throw new UsageError(`${flag} must be a URL, not "${value}"`);
  const identityKeys = options["identity-key"] ?? [];
  for (const key of identityKeys)
    if (!key.startsWith("publickeyv1_"))
      throw new UsageError(`--identity-key must be a Restate public key (publickeyv1_...), not "${key}"`);
  const home = homedir();
  const workdir = path.resolve(options.workdir ?? path.join(home, ".gantry", "worker"));
  const { startWorker } = await import("../../durable/worker.js");
  const workerId = `${(await import("node:os")).hostname()}:${process.pid}`;
  const log = (line: string) => process.stderr.write(`gantry worker: ${line}\n`);
  const worker = await startWorker({
    port,
    host: options.host ?? "127.0.0.1",
    workdir,
    home,
    workerId,
    log,
    ...(options.admin ? { admin: options.admin } : {}),
    ...(options.advertise ? { advertise: options.advertise } : {}),
    identityKeys,
  });
  log(
    `${workerId} serving ${worker.url}${options.admin ? ` (registered with ${options.admin})` : ""}, workdir ${workdir}`,
  );
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await worker.close();
  return 0;
}
