import { titleOf } from "./page-text.js";

export interface PageMarkdown {
  markdown: string;
  title?: string;
}

/** HTML → Markdown with turndown (loaded only when a page needs it); links made absolute to `baseUrl`. */
export async function convertHtml(html: string, baseUrl: string): Promise<PageMarkdown> {
  const { default: TurndownService } = await import("turndown");
  const turndown = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
  });
  // turndown parses the page as a fragment, so <title> and other head content would land in the text
  turndown.remove(["script", "style", "noscript", "iframe", "head", "title", "template", "meta", "link"]);
  turndown.addRule("absoluteLinks", {
    filter: (node) => node.nodeName === "A" && Boolean(node.getAttribute("href")),
    replacement: (content, node) => {
      const href = absoluteUrl(node.getAttribute("href") ?? "", baseUrl);
      return `[${content.trim() || href}](${href})`;
    },
  });
  turndown.addRule("absoluteImages", {
    filter: (node) => node.nodeName === "IMG" && Boolean(node.getAttribute("src")),
    replacement: (_content, node) => {
      const alt = (node.getAttribute("alt") ?? "").replace(/[[\]\n]/g, " ").trim();
      return `![${alt}](${absoluteUrl(node.getAttribute("src") ?? "", baseUrl)})`;
    },
  });
  const markdown = turndown.turndown(html).trim();
  return { markdown, title: titleOf(html) };
}

function absoluteUrl(href: string, baseUrl: string): string {
  try {
    // parentheses would end a Markdown link early
    return new URL(href, baseUrl).href.replace(/\(/g, "%28").replace(/\)/g, "%29");
  } catch {
    return href;
  }
}
