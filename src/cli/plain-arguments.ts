import type { ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

export interface ParsedArguments {
  values: Record<string, string | boolean | string[]>;
  positionals: string[];
}

/**
 * The command line as Node's parseArgs (strict, positionals allowed) reads it, for the plain lines a
 * command is run with: `--name`, `--name value`, `--name=value`, `-x`, `-x value`, words and `--`.
 * Node's parser is kept for everything else, so an unknown option, a missing or ambiguous value or a
 * group of short options gets its checks and its messages: undefined here means "ask parseArgs". Its
 * first call costs about 0.4 ms (its modules load and run cold), of the 17 or so a one-call `gantry
 * tool` spends after Node's own start.
 */
export function parsePlainArguments(argv: string[], options: Options): ParsedArguments | undefined {
  const shorts = new Map<string, string>();
  for (const [name, spec] of Object.entries(options)) {
    // parseArgs fills in defaults: none of Gantry's options has one, and this parser does not
    if (spec.default !== undefined) return undefined;
    if (spec.short) shorts.set(spec.short, name);
  }
  // null-prototype, as parseArgs' own values
  const values: ParsedArguments["values"] = Object.create(null);
  const positionals: string[] = [];
  const set = (name: string, value: string | boolean) => {
    const spec = options[name];
    if (spec?.multiple) ((values[name] ??= []) as (string | boolean)[]).push(value);
    else values[name] = value;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    let name: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith("--")) {
      const equals = arg.indexOf("=");
      name = equals === -1 ? arg.slice(2) : arg.slice(2, equals);
      if (equals !== -1) inline = arg.slice(equals + 1);
    } else if (arg.length === 2) name = shorts.get(arg[1] as string);
    const spec = name !== undefined && Object.hasOwn(options, name) ? options[name] : undefined;
    if (name === undefined || spec === undefined) return undefined;
    if (spec.type === "boolean") {
      if (inline !== undefined) return undefined;
      set(name, true);
      continue;
    }
    if (inline !== undefined) {
      set(name, inline);
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined || value.startsWith("-")) return undefined;
    set(name, value);
    i++;
  }
  return { values, positionals };
}
