import { closest, distance } from "fastest-levenshtein";

/** ` (did you mean "model"?)` when a known name is close to `name`, else nothing. */
export function didYouMean(
  name: string,
  known: readonly string[],
  quote = (text: string) => `"${text}"`,
): string {
  if (known.length === 0) return "";
  const best = closest(name, [...known]);
  const limit = Math.max(2, Math.floor(name.length / 3));
  return distance(name.toLowerCase(), best.toLowerCase()) <= limit ? ` (did you mean ${quote(best)}?)` : "";
}
