/**
 * How a product variant is named to people: its options' values ("XL · Red"), else its SKU; null
 * when the page names nothing that tells it from the others.
 */
export function variantLabel(variant: { sku: string | null; options: Record<string, string> } | null | undefined): string | null {
  if (!variant) return null;
  const values = Object.values(variant.options).filter((value) => value.trim());
  if (values.length) return values.join(' · ');
  return variant.sku ? `SKU ${variant.sku}` : null;
}
