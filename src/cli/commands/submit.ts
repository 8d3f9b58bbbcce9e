import path from "node:path";
import { createIngressClient } from "../../durable/ingress.js";
import type { PromptInput } from "../../durable/prompt-input.js";
import { approvalModeOption, maxTurnsOption } from "../agent-session.js";
import { type GlobalOptions, UsageError } from "../options.js";
import { ingressOption } from "./ingress-option.js";

/**
 * `gantry submit --ingress URL -p "..." --repo URL-or-path [--ref REF] [--model … --base-url …
 * --approval-mode … --max-turns N] [--trust]`: starts a durable session and prints its id. The repository
 * is untrusted on the worker unless `--trust` says the submitter vouches for its configuration.
 */
export async function run(args: string[], options: GlobalOptions): Promise<number> {
  if (args.length > 0) throw new UsageError(`unexpected arguments to gantry submit: ${args.join(" ")}`);
  const ingress = ingressOption(options, "submit");
  const prompt = options.prompt ?? "";
  if (prompt.trim() === "") throw new UsageError('gantry submit needs -p "<prompt>"');
  if (!options.repo)
    throw new UsageError("gantry submit needs --repo URL-or-path (the repository the session works on)");
  const approvalMode = approvalModeOption(options);
  const maxTurns = maxTurnsOption(options);
  const input: PromptInput = {
    prompt,
    repo: localPathOrUrl(options.repo),
    ...(options.ref ? { ref: options.ref } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options["base-url"] ? { baseUrl: options["base-url"] } : {}),
    ...(approvalMode ? { approvalMode } : {}),
    ...(maxTurns ? { maxTurns } : {}),
    ...(options.trust ? { trust: true } : {}),
  };
  const { sessionId } = await createIngressClient(ingress).submit(input);
  process.stdout.write(`${sessionId}\n`);
  return 0;
}

/** A path is made absolute here: the worker resolves nothing against the submitter's folder. */
function localPathOrUrl(repo: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(repo) || /^[\w.-]+@[\w.-]+:/.test(repo)) return repo;
  return path.resolve(repo);
}
