import { isSection, type KeyRule, OWN_LOADER_KEYS, POLICY_KEYS, ruleFor } from "./key-rules.js";
import type { Origin, SettingValue } from "./provenance.js";

/** One settings file's parsed content, with where it came from and whether trust covers it. */
export interface SettingsLayer {
  file: string;
  origin: Origin;
  settings: Record<string, unknown>;
  /** Trust covers this file (always for the user's own files). */
  trusted: boolean;
  /** Why not, when it does not: "this folder is not trusted; run …". */
  untrustedWhy?: string;
  /** Keys as the file writes them, where they differ from Gantry's (`sandbox.network.allowedDomains`). */
  keyNames?: Readonly<Record<string, string>>;
}

interface Side {
  layer: SettingsLayer;
  value: unknown;
}

/**
 * The settings a session uses from the user's file and the workspace's files (SPEC §5a), key by key by
 * KEY_RULES, with a record of every value: honoured or not, and why. Each workspace file is judged
 * against the home on its own; where several count, lists add up, ranked keys take the strictest and
 * the others the last file's value (`.claude/settings.local.json` after `.claude/settings.json`).
 */
export function combineSettings(
  user: SettingsLayer | undefined,
  workspaces: readonly SettingsLayer[],
): { settings: Record<string, unknown>; values: SettingValue[] } {
  const values: SettingValue[] = [];
  const objects = workspaces.map((layer) => layer.settings);
  const settings = walk("", user, user?.settings ?? {}, workspaces, objects, values);
  return { settings, values };
}

function walk(
  prefix: string,
  user: SettingsLayer | undefined,
  userObject: Record<string, unknown>,
  workspaces: readonly SettingsLayer[],
  workspaceObjects: readonly Record<string, unknown>[],
  values: SettingValue[],
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const keys = new Set([...Object.keys(userObject), ...workspaceObjects.flatMap((o) => Object.keys(o))]);
  for (const name of keys) {
    const key = prefix ? `${prefix}.${name}` : name;
    const u = userObject[name];
    const ws = workspaceObjects.map((object) => object[name]);
    // the policy reads its own keys from every file (src/policy/load.ts); the caller's pass through
    if (prefix === "" && (POLICY_KEYS.has(name) || OWN_LOADER_KEYS.has(name))) {
      if (u !== undefined) result[name] = u;
      continue;
    }
    const rule = ruleFor(key);
    if (!rule && isSection(key) && (isPlainObject(u) || ws.some(isPlainObject))) {
      const inner = walk(key, user, asObject(u), workspaces, ws.map(asObject), values);
      if (Object.keys(inner).length > 0) result[name] = inner;
      continue;
    }
    const userSide = user && u !== undefined ? { layer: user, value: u } : undefined;
    const sides = workspaces.flatMap((layer, i) => (ws[i] === undefined ? [] : [{ layer, value: ws[i] }]));
    const chosen = decide(rule ?? { kind: "trusted" }, key, userSide, sides, values);
    if (chosen !== undefined) result[name] = chosen;
  }
  return result;
}

function decide(
  rule: KeyRule,
  key: string,
  user: Side | undefined,
  workspaces: readonly Side[],
  values: SettingValue[],
): unknown {
  const record = (side: Side, honoured: boolean, why?: string, wantsTrust?: boolean) =>
    values.push({
      key: side.layer.keyNames?.[key] ?? key,
      value: side.value,
      file: side.layer.file,
      origin: side.layer.origin,
      honoured,
      ...(why ? { why } : {}),
      ...(wantsTrust ? { wantsTrust } : {}),
    });
  const honoured: Extract<Outcome, { honoured: true }>[] = [];
  for (const side of workspaces) {
    const outcome = judgeWorkspaceValue(rule, user?.value, side.value, side.layer);
    if (outcome.honoured) honoured.push(outcome);
    record(side, outcome.honoured, outcome.why, outcome.honoured ? undefined : outcome.wantsTrust);
  }
  const last = honoured.at(-1);
  if (!last) {
    if (user) record(user, true);
    return user?.value;
  }
  if (user) record(user, last.userWhy === undefined || last.keepsUser === true, last.userWhy);
  return mergeHonoured(
    rule,
    honoured.map((outcome) => outcome.value),
  );
}

/** What several workspace files' honoured values come to: lists add up, ranked keys the strictest. */
function mergeHonoured(rule: KeyRule, chosen: readonly unknown[]): unknown {
  if (chosen.length === 1) return chosen[0];
  switch (rule.kind) {
    case "denials":
    case "allowance":
      return chosen.every(Array.isArray) ? [...new Set(chosen.flat())] : chosen.at(-1);
    case "limit":
      return strictest(chosen, limitRank(rule));
    case "switch":
      return strictest(chosen, (v) => (v === rule.strict ? 0 : 1));
    case "ordered":
      return strictest(chosen, (v) => rule.order.indexOf(String(v)));
    case "variables":
      return Object.assign({}, ...chosen);
    default:
      return chosen.at(-1);
  }
}

function strictest(chosen: readonly unknown[], rank: (value: unknown) => number): unknown {
  return chosen.reduce((best, value) => (rank(value) < rank(best) ? value : best));
}

type Outcome =
  | {
      honoured: true;
      value: unknown;
      why?: string;
      /** What became of the home's value: overridden, unless `keepsUser` (lists that add up). */
      userWhy?: string;
      keepsUser?: boolean;
    }
  | { honoured: false; why: string; wantsTrust?: boolean };

function judgeWorkspaceValue(rule: KeyRule, u: unknown, w: unknown, layer: SettingsLayer): Outcome {
  const untrusted = layer.untrustedWhy ?? "this folder is not trusted";
  const homeSets = (shown: unknown) =>
    `your home sets ${JSON.stringify(shown)}; a workspace may not loosen it`;
  switch (rule.kind) {
    case "neutral":
      return { honoured: true, value: w, userWhy: "the workspace's value wins" };
    case "trusted":
      return layer.trusted
        ? { honoured: true, value: w, userWhy: "the trusted workspace's value wins" }
        : { honoured: false, why: untrusted, wantsTrust: true };
    case "allowance":
      if (!layer.trusted) return { honoured: false, why: untrusted, wantsTrust: true };
      return u === undefined ? { honoured: true, value: w } : { honoured: false, why: homeSets(u) };
    case "scoped":
      if (!layer.trusted) return { honoured: false, why: untrusted, wantsTrust: true };
      return {
        honoured: true,
        value: u,
        why: "applies to the workspace's own patterns only",
        keepsUser: true,
        userWhy: "kept apart from the workspace's",
      };
    case "denials": {
      const merged = [...new Set([...asList(u), ...asList(w)])];
      return {
        honoured: true,
        value: merged,
        userWhy: "combined with the workspace's entries",
        keepsUser: true,
      };
    }
    case "limit":
      return judgeOrdered(limitRank(rule), u, w, layer, untrusted, rule.fallback);
    case "switch":
      // an untrusted workspace's loose value counts for nothing, even where it equals the default
      if (w !== rule.strict && rule.userOnly) return { honoured: false, why: rule.userOnly };
      if (w !== rule.strict && !layer.trusted) return { honoured: false, why: untrusted, wantsTrust: true };
      return judgeOrdered((v) => (v === rule.strict ? 0 : 1), u, w, layer, untrusted, rule.fallback);
    case "ordered":
      return judgeOrdered((v) => rule.order.indexOf(String(v)), u, w, layer, untrusted, rule.fallback);
    case "variables":
      if (!layer.trusted) return { honoured: false, why: untrusted, wantsTrust: true };
      return {
        honoured: true,
        value: { ...asObject(u), ...asObject(w) },
        userWhy: "a variable the trusted workspace also sets takes its value",
        keepsUser: true,
      };
  }
}

/**
 * A value with a strictness rank (lower is stricter): a stricter workspace value always counts; a looser
 * one only from a trusted workspace and only where the home leaves the key unset.
 */
function judgeOrdered(
  rank: (value: unknown) => number,
  u: unknown,
  w: unknown,
  layer: SettingsLayer,
  untrusted: string,
  fallback?: unknown,
): Outcome {
  const base = u ?? fallback;
  const stricterThanBase = base === undefined || rank(w) <= rank(base);
  if (u !== undefined) {
    if (rank(w) <= rank(u))
      return { honoured: true, value: w, userWhy: "the workspace's stricter value wins" };
    return { honoured: false, why: `your home sets ${JSON.stringify(u)}; a workspace may only tighten it` };
  }
  if (stricterThanBase || layer.trusted) return { honoured: true, value: w };
  return {
    honoured: false,
    why: `looser than the default ${JSON.stringify(base)}; ${untrusted}, so it may only tighten it`,
    wantsTrust: true,
  };
}

function limitRank(rule: Extract<KeyRule, { kind: "limit" }>): (value: unknown) => number {
  return (value) => {
    const n = typeof value === "number" ? value : Number.POSITIVE_INFINITY;
    return rule.zeroIsUnlimited && n === 0 ? Number.POSITIVE_INFINITY : n;
  };
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function asObject(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
