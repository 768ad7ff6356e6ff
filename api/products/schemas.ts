import { z } from 'zod';
import { compileSelector } from '../reading/page.ts';
import { uncheckableUrlReason } from '../fetching/address-guard.ts';
import { fetchOptionsFor } from '../checks/check.ts';
import type { Config } from '../config.ts';
import { DomainError } from '../../events/decider.ts';
import type { AlertRule } from '../../events/catalogue.ts';
import { parseManualPrice } from './manual-price.ts';

/**
 * Request bodies of the products API, with the messages of docs/product.md#form-messages. Every rule that the
 * add and edit dialogs check is checked here again, and a few the browser cannot check
 * (the selector must be one the price checker can run, lengths are capped).
 */

export const MAX_NAME = 200;
export const MAX_URL = 2048;
export const MAX_SELECTOR = 500;

export function isRunnableSelector(selector: string): boolean {
  if (selector.length > MAX_SELECTOR) return false;
  // A selector the price checker cannot run would fail every check.
  try {
    compileSelector(selector);
    return true;
  } catch {
    return false;
  }
}

export function isWebUrl(text: string): boolean {
  if (text.length > MAX_URL) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Refuses (400, naming the field url) an address no check could ever fetch: credentials, a
 * private or internal IP, a port shops do not use. It depends on the configuration, as fetching
 * does (CHECK_ALLOW_PRIVATE, the demo shop), so it runs in the route rather than in the schema.
 */
export function assertCheckableUrl(config: Config, url: string): void {
  const reason = uncheckableUrlReason(url, fetchOptionsFor(config, url));
  if (reason) throw new DomainError(`url: ${reason}`, 400, 'url');
}

const name = z
  .string({ error: 'Product name is required' })
  .trim()
  .min(1, 'Product name is required')
  .max(MAX_NAME, `Product name must be at most ${MAX_NAME} characters`);

const url = z.string({ error: 'Please enter a valid URL' }).trim().refine(isWebUrl, 'Please enter a valid URL');

const selector = z
  .string({ error: 'CSS selector is required' })
  .trim()
  .min(1, 'CSS selector is required')
  .max(MAX_SELECTOR, `CSS selector must be at most ${MAX_SELECTOR} characters`)
  .refine(isRunnableSelector, 'CSS selector is not valid');

const NONE: AlertRule = { kind: 'none' };
const ANY: AlertRule = { kind: 'any' };

/** The add dialog's choices: none, any, or a drop of 5, 10, 15 or 20 percent. */
export const ADD_THRESHOLDS = ['none', 'any', '-5', '-10', '-15', '-20'] as const;
const ADD_THRESHOLD_MESSAGE = 'Threshold must be one of none, any, -5, -10, -15 or -20';

function addDialogRule(value: string | number | null | undefined): AlertRule | null {
  if (value === null || value === undefined || value === '' || value === 'none') return NONE;
  if (value === 'any') return ANY;
  const percent = -Number(value);
  return (typeof value === 'number' || (ADD_THRESHOLDS as readonly string[]).includes(value)) && [5, 10, 15, 20].includes(percent)
    ? { kind: 'drop', percent }
    : null;
}

const addThreshold = z
  .union([z.string(), z.number()], { error: ADD_THRESHOLD_MESSAGE })
  .nullish()
  .transform((value, ctx) => {
    const rule = addDialogRule(value);
    if (rule) return rule;
    ctx.addIssue({ code: 'custom', message: ADD_THRESHOLD_MESSAGE });
    return z.NEVER;
  });

const EDIT_THRESHOLD_MESSAGE = 'Threshold must be a positive number';

/**
 * The edit dialog sends a number >= 0 (alert on a drop of that percent or more) or null (no
 * alerts). 'any' and 'none' are accepted too, and leaving the field out keeps the current rule,
 * so editing a product that alerts on any change does not silently turn its alerts off.
 */
export const editThreshold = z
  .union([z.number(), z.enum(['any', 'none'])], { error: EDIT_THRESHOLD_MESSAGE })
  .nullable()
  .optional()
  .transform((value, ctx): AlertRule | undefined => {
    if (value === undefined) return undefined;
    if (value === null || value === 'none') return NONE;
    if (value === 'any') return ANY;
    if (!(value >= 0)) ctx.addIssue({ code: 'custom', message: EDIT_THRESHOLD_MESSAGE });
    else if (value > 100) ctx.addIssue({ code: 'custom', message: 'Threshold must be at most 100' });
    else return { kind: 'drop', percent: value };
    return z.NEVER;
  });

/** Alerts when the product goes out of stock or comes back; left out: on for a new product, unchanged on an edit. */
const stockAlerts = z.boolean({ error: 'Stock alerts must be true or false' }).optional();

export const AddProductBody = z.object({ name, url, selector, threshold: addThreshold, stockAlerts });
export type AddProductBody = z.output<typeof AddProductBody>;

export const EditProductBody = z.object({ name, url, selector, threshold: editThreshold, stockAlerts });
export type EditProductBody = z.output<typeof EditProductBody>;

/** A price as the dialog sends it ("12.99"; a number is taken too), by the rule the dialog checks too. */
const price = z.unknown().transform((value, ctx) => {
  const parsed = parseManualPrice(value);
  if ('price' in parsed) return parsed.price;
  ctx.addIssue({ code: 'custom', message: parsed.error });
  return z.NEVER;
});

export const UpdatePriceBody = z.object({ price });
export type UpdatePriceBody = z.output<typeof UpdatePriceBody>;
