import { z } from "zod";

/**
 * The `Offset` argument of the tools whose results come in parts (list_dir, find_by_name, grep_search):
 * a cut result's last line gives the next call, these arguments with Offset advanced.
 */
export function offsetArgument(what: string) {
  return z.number().int().min(0).optional().describe(what);
}

/** The closing line's "Next call: {…}": the same arguments, from `offset` on. */
export function nextCall(args: object, offset: number): string {
  return `Next call: ${JSON.stringify({ ...args, Offset: offset })}`;
}
