// Numeric settings read from the Worker's env (wrangler.toml vars, `.dev.vars`).

/** The setting as a positive whole number, else `fallback` (unset, empty, or not a positive safe integer). */
export function positiveIntegerSetting(value: string | undefined, fallback: number): number {
  const configured = Number(value);
  return Number.isSafeInteger(configured) && configured > 0 ? configured : fallback;
}
