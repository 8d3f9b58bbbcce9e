/** Rows as aligned columns under their headers, one line each (for `gantry agents`, `skills`, `tools`). */
export function formatTable<K extends string>(
  headers: Record<K, string>,
  rows: readonly Record<K, string>[],
): string[] {
  const keys = Object.keys(headers) as K[];
  const widths = keys.map((key) => Math.max(headers[key].length, ...rows.map((row) => row[key].length)));
  return [headers, ...rows].map((row) =>
    keys
      .map((key, i) => row[key].padEnd(widths[i] as number))
      .join("  ")
      .trimEnd(),
  );
}
