/** The last item per key, in first-seen key order: folding a batch of overwrites into one write per row. */
export function lastBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  const last = new Map<string, T>();
  for (const item of items) {
    const k = key(item);
    last.delete(k);
    last.set(k, item);
  }
  return [...last.values()];
}
