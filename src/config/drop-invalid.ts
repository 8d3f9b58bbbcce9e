import type { z } from "zod";

/** Why an untrusted file's broken value is only a warning: said with each one, so the user knows it did not count. */
export const UNTRUSTED_BROKEN = "ignored (the file is not trusted, so it cannot stop the session)";

/**
 * `input` without the values the issues point at (a copy; `input` is not changed), with one warning per
 * value left out naming the file, the key and the problem. For a workspace file trust does not cover:
 * a repository must not be able to stop Gantry by writing a value of the wrong type, and leaving out
 * one of its values never widens anything (an untrusted file's keys only narrow). An element of a list
 * is left out alone (`tools.disabled.1`), so the rest of the list still narrows. `whole` when the file's
 * top is what is wrong: nothing of it can be used.
 */
export function dropInvalid(
  input: unknown,
  issues: readonly z.core.$ZodIssue[],
  file: string,
  section: readonly PropertyKey[] = [],
): { input: unknown; warnings: string[]; whole: boolean } {
  const copy = structuredClone(input);
  const warnings: string[] = [];
  const fromLists: { list: unknown[]; index: number }[] = [];
  for (const issue of issues) {
    const found = holderOf(copy, issue.path);
    const key = [...section, ...issue.path].map(String).join(".");
    if (!found) {
      warnings.push(
        `${file}: ${key ? `invalid setting "${key}"` : "invalid file"} (${issue.message}); ${UNTRUSTED_BROKEN}`,
      );
      return { input: undefined, warnings, whole: true };
    }
    warnings.push(`${file}: invalid setting "${key}" (${issue.message}); ${UNTRUSTED_BROKEN}`);
    if (Array.isArray(found.holder)) {
      const index = Number(found.key);
      if (!fromLists.some((entry) => entry.list === found.holder && entry.index === index))
        fromLists.push({ list: found.holder, index });
    } else delete (found.holder as Record<PropertyKey, unknown>)[found.key];
  }
  // the highest index first, so the others still point at their elements
  for (const { list, index } of fromLists.sort((a, b) => b.index - a.index)) list.splice(index, 1);
  return { input: copy, warnings, whole: false };
}

/**
 * The object or list holding the deepest value of `at` that exists in `root` (a preprocessed schema's
 * path may go below what the file wrote: `sandbox.enabled` of `"sandbox": "yes"` is the file's `sandbox`).
 * Below an element of a list it is that element, left out whole: a rule without one of its fields
 * could mean more than the rule as written (a hook without its `matcher` matches every tool).
 */
function holderOf(
  root: unknown,
  at: readonly PropertyKey[],
): { holder: object; key: PropertyKey } | undefined {
  let found: { holder: object; key: PropertyKey } | undefined;
  let element: { holder: object; key: PropertyKey } | undefined;
  let current = root;
  for (const key of at) {
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, key)) break;
    found = { holder: current, key };
    if (Array.isArray(current)) element = found;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return element ?? found;
}
