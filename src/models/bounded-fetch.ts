import { MAX_TOOL_ARGUMENT_BYTES } from "../tools/validation.js";

/**
 * The longest line a model's streamed response may hold. Streaming protocols send a call's arguments
 * in small deltas (counted per call in client.ts); Gemini sends a call whole in one line, which a JSON
 * encoding may make up to about twice the arguments' size. Past this a response is cut, so one endless
 * line cannot grow Gantry's memory without end.
 */
export const MAX_RESPONSE_LINE_BYTES = 3 * MAX_TOOL_ARGUMENT_BYTES;

/** The error a response stream fails with when one line of it passes MAX_RESPONSE_LINE_BYTES. */
export class ResponseLineTooLong extends Error {
  constructor() {
    super(`the model's response held a line longer than ${MAX_RESPONSE_LINE_BYTES} bytes and was cut there`);
    this.name = "ResponseLineTooLong";
  }
}

const NEWLINE = 0x0a;

/** `fetch` for the provider clients: a response body whose line runs past the limit fails with ResponseLineTooLong. */
export const boundedFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (!response.body) return response;
  let lineBytes = 0;
  const guard = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      const firstNewline = chunk.indexOf(NEWLINE);
      const endsLine = firstNewline < 0 ? chunk.byteLength : firstNewline;
      const longest = lineBytes + endsLine;
      lineBytes = firstNewline < 0 ? longest : chunk.byteLength - chunk.lastIndexOf(NEWLINE) - 1;
      if (Math.max(longest, lineBytes) > MAX_RESPONSE_LINE_BYTES) {
        controller.error(new ResponseLineTooLong());
        return;
      }
      controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(guard), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
};

/** Whether `error`, or an error it was caused by, is a ResponseLineTooLong. */
export function isResponseLineTooLong(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof ResponseLineTooLong) return true;
    current = (current as Error & { cause?: unknown }).cause;
  }
  return false;
}
