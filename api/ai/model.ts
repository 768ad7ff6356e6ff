/**
 * The optional language model: it ranks and explains verified selectors and rewrites computed
 * pricing suggestions. It only ever works on what the heuristics found: a selector it names that
 * was not verified on the page is dropped, a suggestion that states a figure that was not computed
 * is refused, and any failure (network, timeout, refusal, an answer that does not parse) leaves
 * the heuristics' answer as it was.
 */
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from 'zod';
import type { AiConfig } from './config.ts';
import type { DetectedSelector, SelectorSuggestion } from './detect.ts';
import { allowedNumbers, statesOnlyFigures, type PricingSuggestion } from './pricing.ts';

export type LanguageModel = {
  /** The structured answer, or null on any failure. */
  ask<T>(schema: z.ZodType<T>, name: string, messages: ChatCompletionMessageParam[]): Promise<T | null>;
};

export function createLanguageModel(config: AiConfig | null): LanguageModel | null {
  if (!config) return null;
  const client = new OpenAI({
    apiKey: config.apiKey,
    baseURL: config.baseURL ?? 'https://api.openai.com/v1',
    timeout: config.timeoutMs,
    maxRetries: 0,
  });
  return {
    async ask(schema, name, messages) {
      try {
        const completion = await client.chat.completions.parse({
          model: config.model,
          messages,
          response_format: zodResponseFormat(schema, name),
        });
        const message = completion.choices[0]?.message;
        return message && !message.refusal && message.parsed ? (message.parsed as z.infer<typeof schema>) : null;
      } catch (error) {
        console.warn(
          `Language model (${config.model}) gave no usable answer: ${(error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').slice(0, 300)}`,
        );
        return null;
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Selectors

const SelectorRanking = z.object({
  ranking: z.array(
    z.object({
      selector: z.string().describe('One of the verified selectors, copied exactly'),
      description: z.string().describe('One sentence: what the selector matches on the page'),
      confidence: z.number().describe('0 to 100: how dependable the selector is for tracking this price'),
    }),
  ),
});

const SELECTOR_TASK = [
  "You help a shop owner track a competitor's selling price with a CSS selector.",
  'Every selector below was run on the product page and returns the selling price shown. Rank them from the most to the least dependable for tracking this price over time:',
  'selectors that name the price element itself (itemprop, data attributes, semantic classes) beat wide blocks and positions.',
  'For each, write one plain sentence saying what it matches (for example "Sale price £24.99 from the product form") and a confidence from 0 to 100.',
  'Use only selectors from the list, copied exactly; never invent or edit one.',
].join(' ');

/**
 * The verified suggestions in the model's order with its descriptions; selectors it names that
 * are not in the list are dropped, ones it leaves out follow in their own order.
 */
export async function rankSelectors(model: LanguageModel | null, verified: DetectedSelector[], page: { url: string }): Promise<SelectorSuggestion[]> {
  const plain = verified.map(({ selector, description, confidence }) => ({ selector, description, confidence }));
  if (!model || verified.length === 0) return plain;
  const answer = await model.ask(SelectorRanking, 'selector_ranking', [
    { role: 'system', content: SELECTOR_TASK },
    {
      role: 'user',
      content: JSON.stringify({
        page: page.url,
        verifiedSelectors: verified.map((s) => ({ selector: s.selector, returns: s.matchedText, found: s.description, heuristicConfidence: s.confidence })),
      }),
    },
  ]);
  if (!answer) return plain;
  const bySelector = new Map(plain.map((s) => [s.selector, s]));
  const ranked: SelectorSuggestion[] = [];
  for (const item of answer.ranking) {
    const known = bySelector.get(item.selector.trim());
    if (!known || ranked.some((s) => s.selector === known.selector)) continue;
    ranked.push({
      selector: known.selector,
      description: sentence(item.description) ?? known.description,
      confidence: Number.isFinite(item.confidence) ? Math.round(Math.min(100, Math.max(0, item.confidence))) : known.confidence,
    });
  }
  if (ranked.length === 0) return plain;
  return [...ranked, ...plain.filter((s) => !ranked.some((r) => r.selector === s.selector))];
}

/** A short single-line text, or null when the model's text is not one. */
function sentence(text: string, max = 240): string | null {
  const clean = text.replace(/\s+/g, ' ').trim();
  return clean.length > 0 && clean.length <= max ? clean : null;
}

// ---------------------------------------------------------------------------------------------
// Pricing suggestions

const PricingAnswer = z.object({
  suggestions: z.array(
    z.object({
      title: z.string(),
      description: z.string(),
      confidence: z.number().describe('0 to 1'),
      recommendedAction: z.string(),
    }),
  ),
});

const PRICING_TASK = [
  'You advise a shop owner on pricing against one competitor product.',
  "You get the figures computed from the competitor's real price history and suggestions made from them by rules.",
  'Rewrite the suggestions so they read clearly and rank them from the most to the least useful (at most five), each with a title, a description, a recommended action and a confidence from 0 to 1.',
  'Every number you write must be copied exactly as written from the figures or the suggestions: do not compute, round or invent any number, and do not add facts that are not in the figures.',
].join(' ');

/** The model's rewrite of the rule-made suggestions, or the rules' own when it states a figure that was not computed. */
export async function rewriteSuggestions(model: LanguageModel | null, sheet: string[], suggestions: PricingSuggestion[]): Promise<PricingSuggestion[]> {
  if (!model || suggestions.length === 0) return suggestions;
  const answer = await model.ask(PricingAnswer, 'pricing_suggestions', [
    { role: 'system', content: PRICING_TASK },
    { role: 'user', content: JSON.stringify({ figures: sheet, suggestions }) },
  ]);
  if (!answer || answer.suggestions.length === 0 || answer.suggestions.length > 5) return suggestions;
  const allowed = allowedNumbers(sheet, suggestions);
  const rewritten: PricingSuggestion[] = [];
  for (const item of answer.suggestions) {
    const title = sentence(item.title, 120);
    const description = sentence(item.description, 600);
    const recommendedAction = sentence(item.recommendedAction, 600);
    if (!title || !description || !recommendedAction || !Number.isFinite(item.confidence)) return suggestions;
    const suggestion = { title, description, recommendedAction, confidence: Math.round(Math.min(1, Math.max(0, item.confidence)) * 100) / 100 };
    if (!statesOnlyFigures(suggestion, allowed)) return suggestions;
    rewritten.push(suggestion);
  }
  return rewritten;
}
