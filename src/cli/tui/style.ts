/**
 * The terminal UI's styles. With colour off (NO_COLOR) the colours go and the text attributes
 * (bold, dim, italic, underline) stay, so emphasis and the selected choice remain visible; plain
 * output (a pipe) has neither.
 */
const COLOURS = {
  red: 31,
  green: 32,
  yellow: 33,
  blue: 34,
  magenta: 35,
  cyan: 36,
  gray: 90,
} as const;
const ATTRIBUTES = { bold: [1, 22], dim: [2, 22], italic: [3, 23], underline: [4, 24] } as const;

export type Colour = keyof typeof COLOURS;
export type Attribute = keyof typeof ATTRIBUTES;
export type StyleName = Colour | Attribute;

export type Paint = (text: string) => string;

export interface Theme {
  readonly color: boolean;
  paint(style: StyleName | undefined, text: string): string;
  /** Several styles at once, e.g. `["bold", "cyan"]`. */
  paintAll(styles: readonly StyleName[], text: string): string;
}

export function createTheme(color: boolean, attributes = color): Theme {
  // each style closes with its own code, not a reset, so styles nest (a link inside bold text)
  const codes = (style: StyleName): [string, string] | undefined => {
    if (style in ATTRIBUTES) {
      const [on, off] = ATTRIBUTES[style as Attribute];
      return attributes ? [`\x1b[${on}m`, `\x1b[${off}m`] : undefined;
    }
    return color ? [`\x1b[${COLOURS[style as Colour]}m`, "\x1b[39m"] : undefined;
  };
  const paintAll = (styles: readonly StyleName[], text: string): string => {
    const pairs = styles.map(codes).filter((pair): pair is [string, string] => pair !== undefined);
    if (pairs.length === 0 || text === "") return text;
    const opens = pairs.map((pair) => pair[0]).join("");
    // a nested style closing dim also closes bold (both use 22): open them again after every close
    const inner = text.replace(/\x1b\[(22|23|24|39)m/g, (close) => `${close}${opens}`);
    return `${opens}${inner}${pairs
      .map((pair) => pair[1])
      .reverse()
      .join("")}`;
  };
  return {
    color,
    paint: (style, text) => (style ? paintAll([style], text) : text),
    paintAll,
  };
}

/** Colours only when stdout is a terminal that can show them and NO_COLOR is unset (https://no-color.org). */
export function wantsColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === "") && env.TERM !== "dumb";
}
