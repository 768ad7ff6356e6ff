/**
 * How a product variant is named to people: its options' values ("XL · Red"), else its SKU; null
 * when the page names nothing that tells it from the others. The options are taken in the order
 * PostgreSQL's jsonb keeps them (shorter names first), so a variant read back from the log is named
 * as it was when it was picked.
 */
export function variantLabel(variant: { sku: string | null; options: Record<string, string> } | null | undefined): string | null {
  if (!variant) return null;
  const values = Object.entries(variant.options)
    .sort(([a], [b]) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0))
    .map(([, value]) => value)
    .filter((value) => value.trim());
  if (values.length) return values.join(' · ');
  return variant.sku ? `SKU ${variant.sku}` : null;
}
