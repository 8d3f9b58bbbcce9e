import type { HLJSApi } from "highlight.js";
import type { StyleName, Theme } from "./style.js";

/**
 * Syntax colours for code blocks, from highlight.js. Loaded in the background when the UI starts
 * (it is the largest module the UI uses); code that arrives before it is shown uncoloured.
 */
let loaded: HLJSApi | undefined;
let loading: Promise<void> | undefined;

export function preloadHighlighter(): Promise<void> {
  loading ??= import("highlight.js/lib/common").then(
    (module) => {
      loaded = module.default;
    },
    () => {
      // without highlighting code still shows, uncoloured
    },
  );
  return loading;
}

const CLASS_STYLES: Record<string, StyleName> = {
  keyword: "magenta",
  built_in: "cyan",
  type: "cyan",
  literal: "yellow",
  number: "yellow",
  string: "green",
  regexp: "red",
  comment: "gray",
  doctag: "gray",
  meta: "gray",
  title: "blue",
  "title.function": "blue",
  "title.class": "cyan",
  attr: "cyan",
  attribute: "cyan",
  property: "cyan",
  variable: "red",
  "template-variable": "red",
  params: "yellow",
  symbol: "yellow",
  selector: "magenta",
  "selector-tag": "magenta",
  "selector-class": "yellow",
  tag: "gray",
  name: "red",
  addition: "green",
  deletion: "red",
  section: "blue",
  bullet: "yellow",
  emphasis: "italic",
  strong: "bold",
};

const ENTITIES: Record<string, string> = {
  "&lt;": "<",
  "&gt;": ">",
  "&amp;": "&",
  "&quot;": '"',
  "&#x27;": "'",
};

/** Code coloured for the terminal, one string per line; plain lines when the language is unknown. */
export function highlightCode(code: string, language: string | undefined, theme: Theme): string[] {
  const hljs = loaded;
  const lang = language?.trim().split(/\s/)[0]?.toLowerCase();
  if (!theme.color || !hljs || !lang || !hljs.getLanguage(lang)) return code.split("\n");
  let html: string;
  try {
    html = hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
  } catch {
    return code.split("\n");
  }
  return htmlToLines(html, theme);
}

/** highlight.js output (nested spans with classes) to ANSI, a style per line so lines stand alone. */
function htmlToLines(html: string, theme: Theme): string[] {
  const stack: (StyleName | undefined)[] = [];
  const lines: string[] = [""];
  const pattern = /<span class="([^"]+)">|<\/span>|([^<]+)/g;
  for (let match = pattern.exec(html); match; match = pattern.exec(html)) {
    if (match[1] !== undefined) {
      const classes = match[1].split(" ").map((name) => name.replace(/^hljs-/, "").replace(/_$/, ""));
      stack.push(classes.map((name) => CLASS_STYLES[name]).find((style) => style) ?? stack.at(-1));
      continue;
    }
    if (match[2] === undefined) {
      stack.pop();
      continue;
    }
    const text = match[2].replace(/&(lt|gt|amp|quot|#x27);/g, (entity) => ENTITIES[entity] ?? entity);
    const style = stack.at(-1);
    text.split("\n").forEach((part, index) => {
      if (index > 0) lines.push("");
      lines[lines.length - 1] += theme.paint(style, part);
    });
  }
  return lines;
}
