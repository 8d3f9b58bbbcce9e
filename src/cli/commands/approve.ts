import { createIngressClient } from "../../durable/ingress.js";
import { type GlobalOptions, UsageError } from "../options.js";
import { ingressOption } from "./ingress-option.js";

/**
 * `gantry approve --ingress URL <id> <ask-id> yes|session|no [why]` answers a permission ask; a question
 * ask takes one answer per question (a multi-select's options separated by commas).
 */
export async function run(args: string[], options: GlobalOptions): Promise<number> {
  const ingress = ingressOption(options, "approve");
  const [id, askId, ...words] = args;
  if (!id || !askId || words.length === 0)
    throw new UsageError(
      "gantry approve needs --ingress URL <session-id> <ask-id> yes|session|no (or the answers)",
    );
  const answered = await createIngressClient(ingress).answer(id, askId, words);
  process.stdout.write(`${JSON.stringify(answered)}\n`);
  return 0;
}
