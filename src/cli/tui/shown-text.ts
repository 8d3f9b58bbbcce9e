import { showControls } from "../../tools/exec/ansi.js";

/**
 * `value` with every string in it (deeply: arrays, plain objects, an Error's message) passed through
 * showControls, for drawing. What the model, a file or a hook wrote reaches the screen as text: the
 * UI's own styling is added after, so an escape in the content can neither erase nor overwrite a line
 * (the real command in the approval dialog), nor set the clipboard.
 */
export function withControlsShown<T>(value: T): T {
  return shown(value) as T;
}

function shown(value: unknown): unknown {
  if (typeof value === "string") return showControls(value);
  if (Array.isArray(value)) return value.map(shown);
  if (value instanceof Error) {
    const copy = new Error(showControls(value.message));
    copy.name = value.name;
    return copy;
  }
  if (value === null || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype)
    return value;
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, shown(entry)]));
}
