/** What a product page states about its product, as observations record it. */
import { z } from 'zod';

/** Whether the page offers the product (schema.org ItemAvailability); null when the page does not say. */
export const AVAILABILITIES = ['InStock', 'OutOfStock', 'PreOrder', 'BackOrder'] as const;
export type Availability = (typeof AVAILABILITIES)[number];
/** The variant of a page's product an observation read (docs/product.md#variants): its identity and options ({size: "XL"}). */
export const ObservedVariant = z.object({
  id: z.string().min(1).max(200).nullable(),
  sku: z.string().min(1).max(200).nullable(),
  gtin: z.string().min(1).max(20).nullable(),
  options: z.record(z.string().max(100), z.string().max(200)),
});
export type ObservedVariant = z.infer<typeof ObservedVariant>;

/**
 * How a product is known beyond its name: a GTIN as 14 digits (GTIN-8/12/13 padded with zeros),
 * a manufacturer part number with its brand, and the shop's own SKU.
 */
export const ProductIdentifiers = z.object({
  gtin: z
    .string()
    .regex(/^\d{14}$/)
    .nullable(),
  mpn: z.string().min(1).max(100).nullable(),
  sku: z.string().min(1).max(100).nullable(),
  brand: z.string().min(1).max(100).nullable(),
});
export type ProductIdentifiers = z.infer<typeof ProductIdentifiers>;
