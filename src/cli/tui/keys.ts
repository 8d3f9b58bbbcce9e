/**
 * Raw terminal input to key presses. Understands the legacy encodings (VT100/xterm), xterm's
 * modifyOtherKeys (`CSI 27;mod;code ~`), the kitty keyboard protocol (`CSI code;mod u`, which is
 * how Shift-Enter reaches us) and bracketed paste (`CSI 200~ … CSI 201~`, one key holding the text).
 * Pure: the terminal feeds chunks and, after a short pause, `flush` (a lone ESC is the Escape key).
 */
export interface Key {
  /** `char` (with `text`), `paste` (with `text`), `enter`, `tab`, `backspace`, `delete`, `escape`,
   * `up`, `down`, `left`, `right`, `home`, `end`, `pageup`, `pagedown`, or a letter with `ctrl`. */
  name: string;
  text?: string;
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
}

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
const CSI = /^\x1b\[([0-9;:?<>=]*)([ -/]*)([@-~])/;
const SS3 = /^\x1bO([A-Za-z])/;
const LETTERS: Record<string, string> = {
  A: "up",
  B: "down",
  C: "right",
  D: "left",
  H: "home",
  F: "end",
  P: "f1",
  Q: "f2",
  R: "f3",
  S: "f4",
  Z: "tab",
};
const TILDE: Record<string, string> = {
  "1": "home",
  "2": "insert",
  "3": "delete",
  "4": "end",
  "5": "pageup",
  "6": "pagedown",
  "7": "home",
  "8": "end",
};
const KITTY_CODES: Record<number, string> = {
  9: "tab",
  13: "enter",
  27: "escape",
  127: "backspace",
  57414: "enter", // keypad enter
};

function key(name: string, extra: Partial<Key> = {}): Key {
  return { name, ctrl: false, alt: false, shift: false, ...extra };
}

/** xterm and kitty modifier numbers: 1 + shift(1) + alt(2) + ctrl(4). */
function modifiers(value: number | undefined): Pick<Key, "ctrl" | "alt" | "shift"> {
  const bits = Math.max(0, (value ?? 1) - 1);
  return { shift: (bits & 1) !== 0, alt: (bits & 2) !== 0, ctrl: (bits & 4) !== 0 };
}

/** A key given by its Unicode code point and modifiers (kitty and modifyOtherKeys). */
function codeKey(code: number, mods: Pick<Key, "ctrl" | "alt" | "shift">): Key {
  const named = KITTY_CODES[code];
  if (named) return key(named, mods);
  const char = String.fromCodePoint(code);
  if (mods.ctrl && /^[a-z]$/i.test(char)) return key(char.toLowerCase(), { ...mods, shift: false });
  return key("char", { ...mods, text: mods.shift ? char.toUpperCase() : char });
}

function controlKey(code: number): Key {
  switch (code) {
    case 0x0d:
      return key("enter");
    case 0x0a:
      return key("enter", { ctrl: true }); // Ctrl-J: a new line in the editor
    case 0x09:
      return key("tab");
    case 0x08:
    case 0x7f:
      return key("backspace");
    case 0x1b:
      return key("escape");
    case 0x00:
      return key("space", { ctrl: true });
    default:
      return key(String.fromCharCode(code + 0x60), { ctrl: true });
  }
}

function csiKey(params: string, final: string): Key | undefined {
  const numbers = params.split(";").map((part) => Number.parseInt(part.split(":")[0] ?? "", 10));
  if (final === "u") return codeKey(numbers[0] ?? 0, modifiers(numbers[1]));
  if (final === "~") {
    if (numbers[0] === 27) return codeKey(numbers[2] ?? 0, modifiers(numbers[1]));
    const name = TILDE[String(numbers[0])];
    return name ? key(name, modifiers(numbers[1])) : undefined;
  }
  const name = LETTERS[final];
  if (!name) return undefined;
  if (final === "Z") return key("tab", { shift: true });
  return key(name, modifiers(numbers[1]));
}

export interface KeyParser {
  /** Parses a chunk; an incomplete sequence at its end waits for the next chunk or `flush`. */
  feed(data: string): Key[];
  /** True when input waits (a lone ESC); the caller calls `flush` after a short pause. */
  readonly pending: boolean;
  flush(): Key[];
}

export function createKeyParser(): KeyParser {
  let buffer = "";
  let paste: string | undefined;

  function takePaste(keys: Key[]): void {
    const end = buffer.indexOf(PASTE_END);
    if (end < 0) {
      paste = (paste ?? "") + buffer;
      buffer = "";
      return;
    }
    const text = (paste ?? "") + buffer.slice(0, end);
    buffer = buffer.slice(end + PASTE_END.length);
    paste = undefined;
    keys.push(key("paste", { text: text.replace(/\r\n?/g, "\n") }));
  }

  /** One key from the front of the buffer; undefined when the buffer holds an incomplete sequence. */
  function takeEscape(keys: Key[]): boolean {
    if (buffer.startsWith(PASTE_START)) {
      buffer = buffer.slice(PASTE_START.length);
      paste = "";
      return true;
    }
    const csi = CSI.exec(buffer);
    if (csi) {
      buffer = buffer.slice(csi[0].length);
      const parsed = csiKey(csi[1] ?? "", csi[3] ?? "");
      if (parsed) keys.push(parsed);
      return true;
    }
    const ss3 = SS3.exec(buffer);
    if (ss3) {
      buffer = buffer.slice(ss3[0].length);
      const name = LETTERS[ss3[1] ?? ""];
      if (name) keys.push(key(name));
      return true;
    }
    if (buffer.length === 1 || buffer === "\x1b[" || buffer === "\x1bO") return false;
    // ESC + a key: Alt (Meta) + that key
    const next = String.fromCodePoint(buffer.codePointAt(1) ?? 0);
    buffer = buffer.slice(1 + next.length);
    const inner = next.charCodeAt(0) < 0x20 || next === "\x7f" ? controlKey(next.charCodeAt(0)) : undefined;
    keys.push(inner ? { ...inner, alt: true } : key("char", { alt: true, text: next }));
    return true;
  }

  function parse(keys: Key[]): void {
    while (buffer.length > 0) {
      if (paste !== undefined) {
        takePaste(keys);
        continue;
      }
      const code = buffer.charCodeAt(0);
      if (code === 0x1b) {
        if (!takeEscape(keys)) return;
        continue;
      }
      const char = String.fromCodePoint(buffer.codePointAt(0) ?? 0);
      buffer = buffer.slice(char.length);
      keys.push(code < 0x20 || code === 0x7f ? controlKey(code) : key("char", { text: char }));
    }
  }

  return {
    feed(data) {
      buffer += data;
      const keys: Key[] = [];
      parse(keys);
      return keys;
    },
    get pending() {
      return buffer.length > 0 && paste === undefined;
    },
    flush() {
      const keys: Key[] = [];
      if (buffer.startsWith("\x1b")) {
        buffer = buffer.slice(1);
        keys.push(key("escape"));
      }
      parse(keys);
      if (buffer.startsWith("\x1b")) buffer = "";
      return keys;
    },
  };
}

/** `ctrl+r`, `shift+tab`, `alt+enter`: a key's name with its modifiers, for key tables. */
export function keyId(pressed: Key): string {
  const parts = [pressed.ctrl ? "ctrl" : "", pressed.alt ? "alt" : "", pressed.shift ? "shift" : ""];
  const name = pressed.name === "char" ? (pressed.text ?? "") : pressed.name;
  return [...parts.filter((part) => part), name].join("+");
}
