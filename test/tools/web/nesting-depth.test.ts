import { describe, expect, it } from "vitest";
import { convertHtml } from "../../../src/tools/web/html-markdown.js";
import { MAX_CONVERTIBLE_DEPTH, nestingDepth } from "../../../src/tools/web/nesting-depth.js";

describe("nestingDepth", () => {
  it("counts nested elements from their tags", () => {
    expect(nestingDepth("<div><section><span>x</span></section><div>y</div></div>")).toBe(3);
    expect(nestingDepth(`${"<div>".repeat(50)}x${"</div>".repeat(50)}`)).toBe(50);
  });

  it("does not count what a parser closes or never opens: optional end tags, void and self-closed elements", () => {
    const sloppy = `<ul>${"<li><p>item<br><img src=a.png>".repeat(5_000)}</ul><svg><path d="M0"/></svg>`;
    expect(nestingDepth(sloppy)).toBe(1);
  });

  it("skips comments and the text of script, style and textarea", () => {
    const tags = "<div>".repeat(5_000);
    expect(
      nestingDepth(
        `<!-- ${tags} --><script>let s = "${tags}";</script><style>/*${tags}*/</style><textarea>${tags}</textarea><b>x</b>`,
      ),
    ).toBe(1);
  });

  it("stays below the depth turndown can convert for a page it converts", async () => {
    const depth = MAX_CONVERTIBLE_DEPTH;
    const page = `${"<div>".repeat(depth)}deep${"</div>".repeat(depth)}`;
    expect(nestingDepth(page)).toBe(depth);
    expect((await convertHtml(page, "http://127.0.0.1/")).markdown).toBe("deep");
  });
});
