import type { z } from "zod";

/** One readable line per problem, naming the field and what was expected, so the model can fix its call. */
export function describeValidationError(toolName: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.map(String).join(".") : "(arguments)";
    return `- ${field}: ${issue.message}`;
  });
  return `Invalid arguments for ${toolName}:\n${lines.join("\n")}`;
}

export function parseArgsObject(raw: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  if (typeof raw !== "string") return { ok: true, value: raw ?? {} };
  if (raw.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (cause) {
    return { ok: false, message: `arguments are not valid JSON: ${(cause as Error).message}` };
  }
}

/** The most one tool call's arguments may take, as JSON: a model streaming more is cut off (models/client.ts). */
export const MAX_TOOL_ARGUMENT_BYTES = 10 * 1024 * 1024;

/**
 * What the model is told about arguments past MAX_TOOL_ARGUMENT_BYTES; `what` says how big they were
 * (`this write_to_file call's arguments are 11000000 bytes`).
 */
export function oversizedArgumentsMessage(what: string): string {
  return (
    `${what}, over the limit of ${MAX_TOOL_ARGUMENT_BYTES} bytes for one tool call, so nothing of it ran. ` +
    "Make smaller calls: for a big file, write its first part with write_to_file and add the rest in further edits."
  );
}

/** The size of a call's arguments as JSON when it is over MAX_TOOL_ARGUMENT_BYTES, else undefined. */
export function oversizedArgumentBytes(raw: unknown): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === "string") {
    const bytes = Buffer.byteLength(raw);
    return bytes > MAX_TOOL_ARGUMENT_BYTES ? bytes : undefined;
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(raw);
  } catch {
    return undefined; // not serialisable: validation says what is wrong with it
  }
  return json !== undefined ? oversizedArgumentBytes(json) : undefined;
}
