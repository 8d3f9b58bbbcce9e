import { type GlobalOptions, UsageError } from "../options.js";

/** `--ingress URL`: Restate's ingress, which the durable-session commands talk to. */
export function ingressOption(options: GlobalOptions, command: string): string {
  const ingress = options.ingress;
  if (ingress === undefined)
    throw new UsageError(
      `gantry ${command} needs --ingress URL (Restate's ingress, e.g. http://127.0.0.1:8080)`,
    );
  if (!URL.canParse(ingress)) throw new UsageError(`--ingress must be a URL, not "${ingress}"`);
  return ingress;
}
