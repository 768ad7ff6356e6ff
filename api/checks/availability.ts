/**
 * Whether a product page offers its product now: what its structured data states, else what
 * its buy button and the words next to the product say. Null when the page does not say.
 */
import type { Availability } from './extract.ts';
import type { Document } from './page.ts';

export function pageAvailability(_document: Document, _opts: { url?: string } = {}): Availability | null {
  return null;
}
