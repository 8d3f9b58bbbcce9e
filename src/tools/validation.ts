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
