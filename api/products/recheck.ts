/** What a price check reads of a product: its page and the selector on it. */
export type ReadFrom = { url: string; selector: string };

/**
 * Whether an edit changes what a check reads, so the product is checked at once as a new one is:
 * a price read with the old address or selector says nothing of the new ones. Pure; the products
 * API queues the check, and the Products screen waits for it.
 */
export function editNeedsCheck(before: ReadFrom, after: ReadFrom): boolean {
  return before.url !== after.url || before.selector !== after.selector;
}
