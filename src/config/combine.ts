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
}

interface Pair {
  key: string;
  user: { layer: SettingsLayer; value: unknown } | undefined;
  workspace: { layer: SettingsLayer; value: unknown } | undefined;
}

/**
 * The settings a session uses from the user's file and the workspace's (SPEC §5a), key by key by
 * KEY_RULES, with a record of every value: honoured or not, and why.
 */
export function combineSettings(
  user: SettingsLayer | undefined,
  workspace: SettingsLayer | undefined,
): { settings: Record<string, unknown>; values: SettingValue[] } {
  const values: SettingValue[] = [];
  const settings = walk("", user, user?.settings ?? {}, workspace, workspace?.settings ?? {}, values);
  return { settings, values };
}

function walk(
  prefix: string,
  user: SettingsLayer | undefined,
  userObject: Record<string, unknown>,
  workspace: SettingsLayer | undefined,
  workspaceObject: Record<string, unknown>,
  values: SettingValue[],
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const keys = new Set([...Object.keys(userObject), ...Object.keys(workspaceObject)]);
  for (const name of keys) {
    const key = prefix ? `${prefix}.${name}` : name;
    const u = userObject[name];
    const w = workspaceObject[name];
    // the policy reads its own keys from every file (src/policy/load.ts); the caller's pass through
    if (prefix === "" && (POLICY_KEYS.has(name) || OWN_LOADER_KEYS.has(name))) {
      if (u !== undefined) result[name] = u;
      continue;
    }
    const rule = ruleFor(key);
    if (!rule && isSection(key) && (isPlainObject(u) || isPlainObject(w))) {
      const inner = walk(key, user, asObject(u), workspace, asObject(w), values);
      if (Object.keys(inner).length > 0) result[name] = inner;
      continue;
    }
    const pair: Pair = {
      key,
      user: user && u !== undefined ? { layer: user, value: u } : undefined,
      workspace: workspace && w !== undefined ? { layer: workspace, value: w } : undefined,
    };
    const chosen = decide(rule ?? { kind: "trusted" }, pair, values);
    if (chosen !== undefined) result[name] = chosen;
  }
  return result;
}

function decide(rule: KeyRule, pair: Pair, values: SettingValue[]): unknown {
  const { user, workspace } = pair;
  const record = (side: NonNullable<Pair["user"]>, honoured: boolean, why?: string, wantsTrust?: boolean) =>
    values.push({
      key: pair.key,
      value: side.value,
      file: side.layer.file,
      origin: side.layer.origin,
      honoured,
      ...(why ? { why } : {}),
      ...(wantsTrust ? { wantsTrust } : {}),
    });
  if (!workspace) {
    if (user) record(user, true);
    return user?.value;
  }
  const outcome = judgeWorkspaceValue(rule, user?.value, workspace.value, workspace.layer);
  if (outcome.honoured) {
    record(workspace, true, outcome.why);
    if (user) record(user, outcome.userWhy === undefined || outcome.keepsUser === true, outcome.userWhy);
  } else {
    record(workspace, false, outcome.why, outcome.wantsTrust);
    if (user) record(user, true);
  }
  return outcome.honoured ? outcome.value : user?.value;
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
      if (w !== rule.strict && !layer.trusted) return { honoured: false, why: untrusted, wantsTrust: true };
      return judgeOrdered((v) => (v === rule.strict ? 0 : 1), u, w, layer, untrusted, rule.fallback);
    case "ordered":
      return judgeOrdered((v) => rule.order.indexOf(String(v)), u, w, layer, untrusted, rule.fallback);
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
