/**
 * How deeply a page's elements nest, from its tags alone (no parse): turndown walks the tree
 * recursively and overflows the stack beyond 1,000–2,000 levels, after seconds of work that grow faster
 * than the page (20,000 levels: ~25 s). Counting first lets such a page be named at once.
 *
 * The count never exceeds the depth a parser builds for the common sloppy cases: elements whose end
 * tag is optional (`<p>`, `<li>`, `<td>`, ...) and void elements are not counted, and the contents of
 * comments, `<script>`, `<style>` and `<textarea>` are skipped.
 */
export function nestingDepth(html: string): number {
  const text = html.replace(SKIPPED, "");
  let depth = 0;
  let deepest = 0;
  for (const match of text.matchAll(TAG)) {
    const name = (match[2] as string).toLowerCase();
    if (UNCOUNTED.has(name)) continue;
    if (match[1] === "/") depth = Math.max(0, depth - 1);
    else if (!match[0].endsWith("/>")) deepest = Math.max(deepest, ++depth);
  }
  return deepest;
}

/**
 * Deeper than this, the page is not converted: turndown's and its DOM's recursion end somewhere between
 * 1,000 and 2,000 levels, depending on the thread's stack. Real pages nest a few dozen levels.
 */
export const MAX_CONVERTIBLE_DEPTH = 1_000;

const SKIPPED = /<!--[\s\S]*?-->|<(script|style|textarea)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)\b[^>]*>/g;
const UNCOUNTED = new Set([
  // void elements
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
  // end tag optional: a parser closes them for you
  "p",
  "li",
  "dt",
  "dd",
  "tr",
  "td",
  "th",
  "thead",
  "tbody",
  "tfoot",
  "option",
  "optgroup",
  "rb",
  "rt",
  "rp",
  "rtc",
  "colgroup",
  "caption",
  "html",
  "head",
  "body",
]);
