import { createIngressClient } from "../../durable/ingress.js";
import { type GlobalOptions, UsageError } from "../options.js";
import { ingressOption } from "./ingress-option.js";

/** `gantry cancel --ingress URL <id>`: cancels the session's running prompt (running tools are aborted). */
export async function run(args: string[], options: GlobalOptions): Promise<number> {
  const ingress = ingressOption(options, "cancel");
  const [id, ...extra] = args;
  if (!id || extra.length > 0) throw new UsageError("gantry cancel needs --ingress URL <session-id>");
  const outcome = await createIngressClient(ingress).cancel(id);
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
  return outcome.cancelled ? 0 : 1;
}
