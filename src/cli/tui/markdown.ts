import { lexer, type Token, type Tokens } from "marked";
import { highlightCode } from "./highlight.js";
import type { Theme } from "./style.js";
import { expandTabs, padToWidth, visibleWidth, wrapLine, wrapText } from "./text-width.js";

/**
 * An answer's Markdown as terminal lines of a given width: headings, emphasis, code spans, links,
 * lists, quotes, tables and fenced code with syntax colours. marked's lexer does the parsing.
 */
export function renderMarkdown(markdown: string, width: number, theme: Theme): string[] {
  return renderBlocks(lexer(markdown), Math.max(10, width), theme);
}

/** The blocks of a text and the raw source of each, for streaming (answer-stream.ts). */
export function splitBlocks(markdown: string): Token[] {
  return lexer(markdown);
}

export function renderBlocks(tokens: readonly Token[], width: number, theme: Theme): string[] {
  const out: string[] = [];
  for (const token of tokens) {
    const lines = renderBlock(token, width, theme);
    if (lines.length === 0) continue;
    if (out.length > 0) out.push("");
    out.push(...lines);
  }
  return out;
}

function renderBlock(token: Token, width: number, theme: Theme): string[] {
  switch (token.type) {
    case "space":
    case "def":
      return [];
    case "heading":
      return heading(token as Tokens.Heading, width, theme);
    case "paragraph":
      return wrapText(inline((token as Tokens.Paragraph).tokens, theme), width);
    case "text":
      return wrapText(textToken(token as Tokens.Text, theme), width);
    case "code":
      return codeBlock(token as Tokens.Code, width, theme);
    case "blockquote": {
      const inner = renderBlocks((token as Tokens.Blockquote).tokens, width - 2, theme);
      return inner.map((line) => `${theme.paint("gray", "│")} ${theme.paint("italic", line)}`);
    }
    case "list":
      return list(token as Tokens.List, width, theme);
    case "table":
      return table(token as Tokens.Table, width, theme);
    case "hr":
      return [theme.paint("gray", "─".repeat(Math.min(width, 60)))];
    case "html":
      return wrapText((token as Tokens.HTML).text.replace(/\n$/, ""), width);
    default:
      return "raw" in token && typeof token.raw === "string" ? wrapText(token.raw.trimEnd(), width) : [];
  }
}

function heading(token: Tokens.Heading, width: number, theme: Theme): string[] {
  const text = inline(token.tokens, theme);
  const styles = token.depth === 1 ? (["bold", "underline", "cyan"] as const) : (["bold", "cyan"] as const);
  return wrapText(theme.paintAll(token.depth <= 2 ? styles : ["bold"], text), width);
}

function codeBlock(token: Tokens.Code, width: number, theme: Theme): string[] {
  const code = expandTabs(token.text.replace(/\n$/, ""));
  const label = token.lang ? [theme.paint("gray", `  ${token.lang}`)] : [];
  const lines = highlightCode(code, token.lang, theme);
  return [...label, ...lines.flatMap((line) => wrapLine(line, width - 2).map((part) => `  ${part}`))];
}

function list(token: Tokens.List, width: number, theme: Theme, depth = 0): string[] {
  const out: string[] = [];
  const start = typeof token.start === "number" ? token.start : 1;
  const numberWidth = String(start + token.items.length - 1).length;
  token.items.forEach((item, index) => {
    const bullet = token.ordered
      ? `${String(start + index).padStart(numberWidth)}.`
      : depth === 0
        ? "•"
        : "◦";
    const task = item.task ? (item.checked ? "☑ " : "☐ ") : "";
    const marker = `${bullet} ${task}`;
    const indent = " ".repeat(visibleWidth(marker));
    const body = listItemBody(item, width - marker.length, theme, depth);
    if (token.loose && index > 0) out.push("");
    body.forEach((line, at) => void out.push(`${at === 0 ? theme.paint("cyan", marker) : indent}${line}`));
  });
  return out;
}

function listItemBody(item: Tokens.ListItem, width: number, theme: Theme, depth: number): string[] {
  const out: string[] = [];
  for (const child of item.tokens) {
    if (child.type === "list") out.push(...list(child as Tokens.List, width, theme, depth + 1));
    else if (child.type === "checkbox") continue;
    else {
      const lines = renderBlock(child, width, theme);
      if (item.loose && out.length > 0 && lines.length > 0) out.push("");
      out.push(...lines);
    }
  }
  return out.length > 0 ? out : [""];
}

function table(token: Tokens.Table, width: number, theme: Theme): string[] {
  const header = token.header.map((cell) => inline(cell.tokens, theme));
  const rows = token.rows.map((row) => row.map((cell) => inline(cell.tokens, theme)));
  const columns = header.length;
  const natural = header.map((_, c) =>
    Math.max(3, ...[header, ...rows].map((row) => visibleWidth(row[c] ?? ""))),
  );
  const widths = fitColumns(natural, width - (columns - 1) * 3);
  const line = (cells: string[], bold: boolean) => {
    const wrapped = cells.map((cell, c) => wrapLine(cell, widths[c] ?? 3));
    const height = Math.max(...wrapped.map((parts) => parts.length));
    return Array.from({ length: height }, (_, r) =>
      wrapped
        .map((parts, c) => align(parts[r] ?? "", widths[c] ?? 3, token.align[c] ?? null))
        .map((cell) => (bold ? theme.paint("bold", cell) : cell))
        .join(theme.paint("gray", " │ "))
        .trimEnd(),
    );
  };
  const rule = theme.paint("gray", widths.map((w) => "─".repeat(w)).join("─┼─"));
  return [...line(header, true), rule, ...rows.flatMap((row) => line(row, false))];
}

/** Shrinks the widest columns first until the table fits. */
function fitColumns(natural: number[], room: number): number[] {
  const widths = [...natural];
  let total = widths.reduce((sum, w) => sum + w, 0);
  while (total > room) {
    const widest = widths.indexOf(Math.max(...widths));
    if ((widths[widest] ?? 0) <= 6) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
    total--;
  }
  return widths;
}

function align(text: string, width: number, how: "left" | "right" | "center" | null): string {
  const missing = Math.max(0, width - visibleWidth(text));
  if (how === "right") return " ".repeat(missing) + text;
  if (how === "center")
    return " ".repeat(Math.floor(missing / 2)) + padToWidth(text, width - Math.floor(missing / 2));
  return padToWidth(text, width);
}

function textToken(token: Tokens.Text, theme: Theme): string {
  return token.tokens ? inline(token.tokens, theme) : decodeEntities(token.text);
}

/** Inline tokens to one styled string (newlines kept: wrapText splits on them). */
function inline(tokens: readonly Token[] | undefined, theme: Theme): string {
  let out = "";
  for (const token of tokens ?? []) out += inlineToken(token, theme);
  return out;
}

function inlineToken(token: Token, theme: Theme): string {
  switch (token.type) {
    case "strong":
      return theme.paint("bold", inline((token as Tokens.Strong).tokens, theme));
    case "em":
      return theme.paint("italic", inline((token as Tokens.Em).tokens, theme));
    case "del":
      return theme.paint("dim", inline((token as Tokens.Del).tokens, theme));
    case "codespan":
      return theme.paint("yellow", decodeEntities((token as Tokens.Codespan).text));
    case "br":
      return "\n";
    case "link": {
      const link = token as Tokens.Link;
      const text = inline(link.tokens, theme);
      const shown = theme.paintAll(["underline", "blue"], text);
      return link.href === link.text || link.href === `mailto:${link.text}`
        ? shown
        : `${shown} ${theme.paint("gray", `(${link.href})`)}`;
    }
    case "image": {
      const image = token as Tokens.Image;
      return theme.paint("gray", `[image: ${image.text || image.href}] (${image.href})`);
    }
    case "text":
      return textToken(token as Tokens.Text, theme);
    case "escape":
      return (token as Tokens.Escape).text;
    default:
      return "raw" in token && typeof token.raw === "string" ? token.raw : "";
  }
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", nbsp: " " };

function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (entity, name: string) => ENTITIES[name] ?? entity);
}
