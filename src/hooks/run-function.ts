import type { HandlerConfig } from "./rules.js";

type FunctionHandler = Extract<HandlerConfig, { kind: "function" }>;

/**
 * Runs a library caller's hook function with the event, bounded by its timeout and the call's signal.
 * Its answer is read like a command hook's stdout (the same decisions); a throw or a timeout is a
 * failure, fail-open unless the group is failClosed, exactly as for a command.
 */
export async function runFunctionHook(
  handler: FunctionHandler,
  event: Record<string, unknown>,
  signal: AbortSignal,
): Promise<{ ok: true; output: string } | { ok: false; failure: string }> {
  const controller = new AbortController();
  const stop = () => controller.abort(signal.reason);
  signal.addEventListener("abort", stop, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(new Error("timed out"));
      reject(new Error(`timed out after ${handler.timeoutMs} ms`));
    }, handler.timeoutMs);
  });
  try {
    const answer = await Promise.race([
      Promise.resolve(handler.run(structuredClone(event), controller.signal)),
      timedOut,
    ]);
    if (answer === undefined || answer === null) return { ok: true, output: "" };
    if (typeof answer === "string") return { ok: true, output: answer };
    return { ok: true, output: JSON.stringify(answer) };
  } catch (cause) {
    return { ok: false, failure: `the hook function threw: ${(cause as Error).message ?? String(cause)}` };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", stop);
  }
}
