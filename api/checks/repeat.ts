/**
 * Whether a new observation only repeats the product's last one: the same price, currency, text,
 * source, selector, address, status, image, availability and fetcher, so that only the time and
 * the page version (`observedAt`, `pageHash`) are new. Such a check is kept as a repeat of that
 * observation (price_checks, docs/decisions/0007-compact-log.md), and reads back the same. Pure.
 */
const PER_CHECK = new Set(['observedAt', 'pageHash']);

/** JSON with object keys in one order: jsonb gives an object back with its keys reordered. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, v) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );

export function repeatsObservation(last: Record<string, unknown>, next: Record<string, unknown>): boolean {
  const keys = new Set([...Object.keys(last), ...Object.keys(next)]);
  for (const key of keys) {
    if (PER_CHECK.has(key)) continue;
    const a = last[key],
      b = next[key];
    if (a === b) continue;
    if (a === undefined || b === undefined || typeof a !== 'object' || typeof b !== 'object' || canonical(a) !== canonical(b)) return false;
  }
  return true;
}
