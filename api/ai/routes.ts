import { Elysia } from 'elysia';
import { z } from 'zod';
import { readPage } from '../checks/read-page.ts';
import type { Renderer } from '../fetching/browser.ts';
import type { AppContext } from '../context.ts';
import { authentication } from '../auth/plugin.ts';
import { DomainError } from '../../events/decider.ts';
import { idOf } from '../http/ids.ts';
import { answerWithin, perUserLimit, type TimeoutAnswer } from '../http/long-work.ts';
import { fetchPage, type Fetcher } from '../fetching/fetcher.ts';
import { fetchOptionsFor } from '../checks/check.ts';
import { effectivePlan } from '../products/limit.ts';
import { readSettings } from '../settings/routes.ts';
import { assertCheckableUrl, isWebUrl } from '../products/schemas.ts';
import { DetailTimeFilter, rangeStart } from '../history/series.ts';
import { PRODUCT_NOT_FOUND } from '../../events/product.ts';
import { detectPriceSelectors, type SelectorSuggestion } from './detect.ts';
import { addressVariantFirst, detectVariants, type DetectedVariant } from './variants.ts';
import { createLanguageModel, rankSelectors, rewriteSuggestions, type LanguageModel } from './model.ts';
import { readCatalogue } from '../catalogue/read-model.ts';
import { readRecommendations } from '../pricing/read-model.ts';
import {
  figureSheet,
  keepOwnerSide,
  MAX_OWNER_SIDES,
  notEnoughHistory,
  ownerSuggestions,
  priceFigures,
  RANGE_LABELS,
  suggestPricing,
  type OwnerSide,
  type PricingSuggestion,
} from './pricing.ts';

export const DetectSelectorBody = z.object({
  url: z
    .string({ error: 'Please enter a product URL first.' })
    .trim()
    .min(1, 'Please enter a product URL first.')
    .refine(isWebUrl, 'Please enter a valid URL.'),
});

export const PriceSuggestionsBody = z.object({
  productId: z.string({ error: 'productId is required' }).trim().min(1, 'productId is required').max(200),
  timeFilter: z.enum(DetailTimeFilter.options, { error: `timeFilter must be one of ${DetailTimeFilter.options.join(', ')}` }),
});

export const AI_DETECTION_NOT_IN_PLAN =
  'AI price detection is not part of the Free plan. Start a free trial or upgrade to any paid plan to detect price selectors automatically.';

/**
 * The selectors, best first, and the page's variants when it offers several: picking one puts its
 * address in the form, and `variantSelector`, which reads the variant an address selects.
 */
export type DetectSelectorAnswer =
  | { success: true; selectors: SelectorSuggestion[]; variants: DetectedVariant[]; variantSelector: string | null }
  | TimeoutAnswer;

/** AI Detects one user may have running at once (each may render a page in the browser). */
export const DETECTS_PER_USER = 2;
const detectLimit = perUserLimit(DETECTS_PER_USER, (limit) => `You have ${limit} detections running already. Wait for one of them to finish, then try again.`);

export const detectionTooSlow = (ms: number): TimeoutAnswer => ({
  success: false,
  error: 'timeout',
  message: `The page did not give a price within ${Math.round(ms / 1000)} seconds. Enter the price selector yourself, or try again later.`,
});
export type PriceSuggestionsAnswer = { suggestions: PricingSuggestion[] };

/**
 * POST /api/ai/detect-selector and POST /api/price-suggestions (docs/product.md#ai-help). The heuristics
 * always answer; a configured language model only reorders and rewords what they found.
 */
export function aiRoutes(ctx: AppContext, opts: { fetcher?: Fetcher; model?: LanguageModel | null; renderer?: Renderer } = {}) {
  const { answerWithinMs } = ctx.config;
  const model = opts.model !== undefined ? opts.model : createLanguageModel(ctx.config.ai);
  const fetcher = opts.fetcher ?? { fetchPage };

  async function detect(userId: string, url: string): Promise<DetectSelectorAnswer> {
    const plan = await effectivePlan(ctx.sql, userId);
    if (!plan.aiDetection) throw new DomainError(AI_DETECTION_NOT_IN_PLAN, 403);
    // A page whose static HTML yields no suggestion and has scripts is detected on its rendered HTML.
    const page = await readPage(url, {
      fetcher,
      fetchOptions: fetchOptionsFor(ctx.config, url),
      renderer: opts.renderer,
      owner: userId,
      satisfied: (document) => detectPriceSelectors(document, { url }).length > 0,
    });
    if (!page.ok) throw new DomainError(`The page could not be analysed: ${page.reason}`, 422, page.code === 'bad-url' ? 'url' : undefined);
    const detected = detectVariants(page.document, url);
    const verified = addressVariantFirst(detectPriceSelectors(page.document, { url }), detected);
    const { variants, selector: variantSelector } = detected;
    return { success: true, selectors: await rankSelectors(model, verified, { url }), variants, variantSelector };
  }

  /**
   * The owner's side of a competitor product: each of the user's own products it is linked to
   * (the first three linked), with the catalogue's position and the pricing rule's recommendation.
   */
  async function ownerSides(userId: string, productId: string): Promise<OwnerSide[]> {
    const links = await ctx.sql<{ own_product_id: string }[]>`
      SELECT own_product_id FROM own_product_links WHERE product_id = ${productId} AND user_id = ${userId}
      ORDER BY linked_at, own_product_id LIMIT ${MAX_OWNER_SIDES}`;
    const now = new Date();
    const sides = await Promise.all(
      links.map(async ({ own_product_id: id }): Promise<OwnerSide | null> => {
        const [[entry], [rule]] = await Promise.all([
          readCatalogue(ctx.sql, ctx.config, userId, { id, now }),
          readRecommendations(ctx.sql, ctx.config, userId, { ids: [id], now }),
        ]);
        const offer = entry?.competitors.find((c) => c.productId === productId);
        if (!entry || !offer) return null;
        const { position } = entry;
        const recommendation = rule?.recommendation;
        return {
          name: entry.variant ? `${entry.title} (${entry.variant})` : entry.title,
          price: entry.price,
          currency: entry.currency,
          competitor: {
            price: offer.price,
            currency: offer.currency,
            counted: offer.counted,
            reason: offer.reason,
            cheapest: position?.cheapest.productId === productId,
          },
          position: position && {
            rank: position.rank,
            of: position.of,
            band: position.band,
            cheapest: position.cheapest.price,
            gap: position.gap,
            gapPercent: position.gapPercent,
          },
          rule: recommendation
            ? { status: recommendation.status, price: recommendation.price, currentPrice: recommendation.currentPrice, explanation: recommendation.explanation }
            : null,
        };
      }),
    );
    return sides.filter((side) => side !== null);
  }

  async function suggest(userId: string, productId: string, timeFilter: z.infer<typeof DetailTimeFilter>): Promise<PriceSuggestionsAnswer> {
    const [product] = await ctx.sql<{ currency: string | null }[]>`
      SELECT currency FROM products WHERE id = ${productId} AND user_id = ${userId}`;
    if (!product) throw new DomainError(PRODUCT_NOT_FOUND, 404);
    const since = rangeStart(timeFilter, new Date()) ?? new Date(0);
    const rows = await ctx.sql<{ price: number; observed_at: Date; currency: string | null }[]>`
      SELECT price::float8 AS price, observed_at, currency FROM price_points
      WHERE product_id = ${productId} AND user_id = ${userId} AND observed_at >= ${since}
      ORDER BY observed_at`;
    const [settings, owners] = await Promise.all([readSettings(ctx.sql, userId), ownerSides(userId, productId)]);
    const currency = product.currency ?? rows.findLast((r) => r.currency)?.currency ?? settings.currency;
    const history = rows.map((r) => ({ price: r.price, at: r.observed_at }));
    const figures = priceFigures(history, { range: timeFilter, currency, timeZone: settings.timezone });
    // The owner's side needs no history of the competitor: their position is read from its price now.
    if (!figures) return { suggestions: [notEnoughHistory(history, RANGE_LABELS[timeFilter]), ...ownerSuggestions(owners)] };
    const suggestions = suggestPricing(figures, owners);
    return { suggestions: keepOwnerSide(await rewriteSuggestions(model, figureSheet(figures, owners), suggestions), owners) };
  }

  return new Elysia()
    .use(authentication(ctx))
    .post(
      '/api/ai/detect-selector',
      ({ userId, body }) => {
        assertCheckableUrl(ctx.config, body.url);
        const detection = detectLimit(userId, () => detect(userId, body.url));
        return answerWithin(answerWithinMs, detection, () => detectionTooSlow(answerWithinMs));
      },
      { signedIn: true, body: DetectSelectorBody },
    )
    .post('/api/price-suggestions', ({ userId, body }) => suggest(userId, idOf(body.productId, PRODUCT_NOT_FOUND), body.timeFilter), {
      signedIn: true,
      body: PriceSuggestionsBody,
    });
}
