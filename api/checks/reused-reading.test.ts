/**
 * A check reuses its last reading of a page that has not changed, and only then. The contract,
 * on every labelled page (the corpus's real pages, the platform pages, every variant address and
 * every kind of page), with the selector AI Detect suggests: the page served again with new
 * per-request tokens is not read, and what the check records is exactly what reading it would
 * have recorded (price, currency, availability, source, text, variant, identifiers, image, page
 * version); a page that changed is read again.
 */
import { describe, expect, test } from 'bun:test';
import { checkPage, type CheckOutcome, type CheckTarget } from './check.ts';
import { loadConfig } from '../config.ts';
import type { Fetcher } from '../fetching/fetcher.ts';
import type { Renderer } from '../fetching/browser.ts';
import { detectPriceSelectors } from '../ai/detect.ts';
import { parsePage } from '../reading/page.ts';
import { checkedPages } from '../../bench/checks/pages.ts';
import { servedAgain } from '../../bench/checks/per-request.ts';
import type { ReadingMemory } from './queue.ts';

const config = loadConfig({ NODE_ENV: 'test' });
const serving = (html: string): Fetcher => ({
  fetchPage: async (url) => ({ ok: true, url, status: 200, contentType: 'text/html', headers: {}, body: html, bytes: html.length, elapsedMs: 1 }),
});
// The browser is not what is tested here: a page that asks for it is left to its static reading.
const noBrowser = { render: async () => ({ ok: false, code: 'render-failed', reason: 'No browser in this test.' }) } as unknown as Renderer;

async function check(target: CheckTarget, html: string): Promise<CheckOutcome> {
  const [outcome] = await checkPage(config, target.url, [target], serving(html), { renderer: noBrowser });
  return outcome!;
}

const remembered = (outcome: CheckOutcome): ReadingMemory | null =>
  outcome.reading && outcome.event.type === 'PriceObserved'
    ? { ...outcome.reading, observation: outcome.event.data, selectorFailure: outcome.selectorFailure ?? null }
    : null;

/** What a check records, less the moment it was made. */
const recorded = (outcome: CheckOutcome) => {
  const { observedAt: _, attemptedAt: __, ...data } = outcome.event.data as Record<string, unknown>;
  return { type: outcome.event.type, data, selectorFailure: outcome.selectorFailure ?? null };
};

describe('an unchanged page reads as last time without being read', () => {
  const pages = checkedPages();

  test(`every labelled page (${pages.length}), with AI Detect's selector`, async () => {
    let reused = 0;
    for (const page of pages) {
      const selector = detectPriceSelectors(parsePage(page.html), { url: page.url })[0]?.selector ?? '';
      const target: CheckTarget = { productId: 'p1', userId: 'u1', url: page.url, selector, lease: null, render: null, reading: null };
      const first = await check(target, servedAgain(page.html, 1));
      const again = servedAgain(page.html, 2);
      const read = await check(target, again);
      const memory = remembered(first);
      const fast = await check({ ...target, reading: memory }, again);
      expect({ page: page.name, ...recorded(fast) }).toEqual({ page: page.name, ...recorded(read) });
      if (memory) {
        expect({ page: page.name, reused: fast.reused }).toEqual({ page: page.name, reused: true });
        reused++;
        // Any change to what the page holds is read.
        const changed = await check({ ...target, reading: memory }, again.replace(/<\/body>/i, '<p>Now 1 left</p></body>'));
        expect({ page: page.name, reused: changed.reused }).toEqual({ page: page.name, reused: undefined });
      }
    }
    // Pages without a price, or whose selector left the browser in question, are read every time.
    expect(reused).toBeGreaterThan(pages.length * 0.8);
  }, 180_000);

  test('a reading is not reused under another selector, address, final address, charset or version of the page', async () => {
    const url = 'https://shop.example/kettle';
    const html = (price: string) =>
      `<html><head><title>Kettle</title></head><body><h1>Kettle</h1><p class="price">£${price}</p><p class="was">£49.99</p><button>Add to basket</button></body></html>`;
    const target: CheckTarget = { productId: 'p1', userId: 'u1', url, selector: '.price', lease: null, render: null, reading: null };
    const first = await check(target, html('39.99'));
    const memory = remembered(first);
    expect(memory).not.toBeNull();
    expect((await check({ ...target, reading: memory }, html('39.99'))).reused).toBe(true);
    const changed = await check({ ...target, reading: memory }, html('34.99'));
    expect(changed.reused).toBeUndefined();
    expect(changed.event.data).toMatchObject({ price: 34.99 });
    expect((await check({ ...target, selector: '.was', reading: memory }, html('39.99'))).event.data).toMatchObject({ price: 49.99 });
    expect((await check({ ...target, url: `${url}?colour=red`, reading: memory }, html('39.99'))).reused).toBeUndefined();
    const [moved] = await checkPage(config, url, [{ ...target, reading: memory }], {
      fetchPage: async () => ({ ok: true, url: `${url}-2`, status: 200, contentType: 'text/html', headers: {}, body: html('39.99'), bytes: 1, elapsedMs: 1 }),
    });
    expect(moved!.reused).toBeUndefined();
    // The same bytes in another charset are another text.
    const [recoded] = await checkPage(config, url, [{ ...target, reading: memory }], {
      fetchPage: async () => ({
        ok: true,
        url,
        status: 200,
        contentType: 'text/html; charset=windows-1252',
        headers: {},
        body: html('39.99'),
        bytes: 1,
        elapsedMs: 1,
      }),
    });
    expect(recoded!.reused).toBeUndefined();
    // A page remembered as needing the browser is not read statically at all, let alone reused.
    const rendering = { rendersSinceStatic: 0, staticCheckedAt: new Date() };
    const [rendered] = await checkPage(config, url, [{ ...target, render: rendering, reading: memory }], serving(html('39.99')), { renderer: noBrowser });
    expect(rendered!.reused).toBeUndefined();
  });
});
