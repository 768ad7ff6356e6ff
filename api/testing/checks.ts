import { afterAll, beforeAll } from 'bun:test';
import { handleCommand } from '../../events/decider.ts';
import { checkpointOf } from '../../events/store.ts';
import { productDecider, productStream } from '../../events/product.ts';
import type { AlertRule } from '../../events/catalogue.ts';
import { createFetcher } from '../fetching/fetcher.ts';
import { runWorker } from '../checks/worker.ts';
import { nextCheckAt, type CheckFrequencySetting } from '../checks/schedule.ts';
import type { TestContext, useTestApp } from './app.ts';

/** `/p/<name>` pages carry JSON-LD; `/bare/<name>` pages have only the visible price, so a selector naming text without a price has no fallback. */
function productPage(name: string, price: string, structured: boolean): string {
  const jsonLd = `<script type="application/ld+json">{"@type":"Product","name":"${name}","offers":{"@type":"Offer","price":"${price.replace(/[^\d.]/g, '')}","priceCurrency":"GBP"}}</script>`;
  return `<!doctype html><html><head><title>${name}</title>
    <meta property="og:image" content="/images/${name}.jpg">
    ${structured ? jsonLd : ''}
    </head><body><h1>${name}</h1>
    <div class="buy"><span class="price">${price}</span> <s class="was">£999.00</s></div>
    <p class="note">No price here</p>
    <ul class="related"><li><span class="tile-price">£5.00</span></li><li><span class="tile-price">£7.50</span></li></ul>
    </body></html>`;
}

/** `/stock/<name>` pages: JSON-LD with the offer's availability, and no price at all when `stock` says so. */
function stockPage(name: string, stock: Map<string, { price: string | null; availability: string }>): string {
  const { price, availability } = stock.get(name) ?? { price: '10.00', availability: 'InStock' };
  const offer = { '@type': 'Offer', ...(price === null ? {} : { price, priceCurrency: 'GBP' }), availability: `https://schema.org/${availability}` };
  return `<!doctype html><html><head><title>${name}</title>
    <script type="application/ld+json">${JSON.stringify({ '@type': 'Product', name, offers: offer })}</script>
    </head><body><h1>${name}</h1>${price === null ? '<p>Currently unavailable.</p>' : `<span class="price">£${price}</span>`}</body></html>`;
}

/**
 * `/variants/<name>` pages: a Shopify-style product of two sizes in the theme's product JSON, S (in
 * stock, £49.99, was £59.99) and, as `?variant=2`, XL (£54.99, was £69.99, sold out unless `stock`
 * says otherwise). The price block shows the variant the address selects, as Shopify renders it.
 */
function variantsPage(name: string, stock: Map<string, { price: string | null; availability: string }>, selected: string | null): string {
  const xl = stock.get(name) ?? { price: '54.99', availability: 'OutOfStock' };
  const variants = [
    { id: 1, sku: 'TJ-S', option1: 'S', price: 4999, compare_at_price: 5999, available: true },
    {
      id: 2,
      sku: 'TJ-XL',
      option1: 'XL',
      price: Math.round(Number(xl.price ?? '54.99') * 100),
      compare_at_price: 6999,
      available: xl.availability === 'InStock',
    },
  ];
  const product = { id: 7, title: name, options: [{ name: 'Size' }], variants };
  return `<!doctype html><html><head><title>${name}</title><meta property="og:price:currency" content="GBP"></head>
    <body><h1>${name}</h1><div class="buy">${selected === '2' ? `<s>£69.99</s> <span class="price">£${xl.price}</span>` : '<s>£59.99</s> <span class="price">£49.99</span>'}</div>
    <script type="application/json" id="ProductJson-product-template">${JSON.stringify(product)}</script></body></html>`;
}

/**
 * A shop on loopback whose prices can be changed, counting the requests it serves, for the test
 * file that calls this: started in a beforeAll, stopped in an afterAll. Its pages: `/p/<name>`,
 * `/bare/<name>`, `/stock/<name>`, `/variants/<name>`, `/gone` (404) and `/challenge` (a Cloudflare challenge).
 */
export function useLoopbackShop() {
  const prices = new Map<string, string>();
  const requests = new Map<string, number>();
  const stock = new Map<string, { price: string | null; availability: string }>();
  let server: ReturnType<typeof Bun.serve> | undefined;
  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch(req) {
        const { pathname, searchParams } = new URL(req.url);
        requests.set(pathname, (requests.get(pathname) ?? 0) + 1);
        const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
          new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8', ...headers } });
        if (pathname === '/gone') return html('<h1>Not found</h1>', 404);
        if (pathname === '/challenge')
          return html('<title>Just a moment...</title><div id="cf-browser-verification"></div>', 403, { 'cf-mitigated': 'challenge' });
        const [, kind, name = ''] = pathname.split('/');
        if (kind === 'stock') return html(stockPage(name, stock));
        if (kind === 'variants') return html(variantsPage(name, stock, searchParams.get('variant')));
        return html(productPage(name, prices.get(name) ?? '£10.00', kind !== 'bare'));
      },
    });
  });
  afterAll(() => {
    server?.stop(true);
  });
  return {
    prices,
    stock,
    requestsFor: (path: string) => requests.get(path) ?? 0,
    get url() {
      return `http://127.0.0.1:${server!.port}`;
    },
  };
}

// Tests reach loopback without the shared fetcher's politeness delays.
export const fastFetcher = () => createFetcher({ hostSpacingMs: 0, maxConcurrentPerHost: 64, retryBaseDelayMs: 5 });

// On a shared PostgreSQL server another database's open transaction can hold catch-up readers
// back for a while: wait for the read models rather than assume they are current.
export const SETTLE_MS = 30_000;

export const minuteFrom = (at: Date, minutes: number) => new Date(at.getTime() + minutes * 60_000);

/** Products, the check queue and its workers, on the app of useTestApp(). */
export function checkHelpers(api: ReturnType<typeof useTestApp>) {
  async function addProduct(
    c: Pick<TestContext, 'store' | 'projections'>,
    userId: string,
    url: string,
    selector = '.buy .price',
    alertRule: AlertRule = { kind: 'none' },
  ) {
    const productId = crypto.randomUUID();
    const { appended } = await handleCommand(c.store, productStream(productId), productDecider, {
      type: 'Add',
      productId,
      userId,
      details: { name: 'Product', url, selector, alertRule },
    });
    await c.projections.waitFor(checkpointOf({ transactionId: appended!.transactionId, position: appended!.lastPosition }), SETTLE_MS);
    return productId;
  }

  async function removeProduct(productId: string, userId: string) {
    const { appended } = await handleCommand(api.ctx.store, productStream(productId), productDecider, { type: 'Remove', productId, userId });
    await api.ctx.projections.waitFor(checkpointOf({ transactionId: appended!.transactionId, position: appended!.lastPosition }), SETTLE_MS);
  }

  /** Runs workers until the queue is empty, then brings the read models up to date. */
  async function drain(contexts: TestContext[] = [api.ctx], opts: { concurrency?: number } = {}) {
    const stop = new AbortController();
    const workers = contexts.map((c, i) =>
      runWorker(c, { signal: stop.signal, idleMs: 10, concurrency: opts.concurrency ?? 8, fetcher: fastFetcher(), workerId: `test-${i}` }),
    );
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const [{ n }] = await api.ctx.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM check_jobs`;
      if (n === 0) break;
      await Bun.sleep(20);
    }
    stop.abort();
    await Promise.all(workers);
    await settled();
  }

  /** Waits until the read models have every event appended so far. */
  async function settled() {
    const last = await api.ctx.store.head();
    if (last.position) await api.ctx.projections.waitFor(last, SETTLE_MS);
  }

  const checkEvents = async (productId: string) =>
    (await api.ctx.store.readStream(productStream(productId))).events.filter((e) => e.type === 'PriceObserved' || e.type === 'PriceCheckFailed');

  const productRow = async (productId: string) => {
    await settled();
    return (
      await api.ctx
        .sql`SELECT current_price, last_check_at, last_check_status, last_check_error, consecutive_failures, is_active, image_url FROM products WHERE id = ${productId}`
    )[0]!;
  };

  const queued = async (productId: string) => (await api.ctx.sql`SELECT 1 FROM check_jobs WHERE product_id = ${productId}`).length > 0;

  /** When the schedule makes a product (of a free-plan user) due next: from its slot, with backoff. */
  async function dueAt(productId: string, checkFrequency: CheckFrequencySetting | null = null): Promise<Date> {
    const row = await productRow(productId);
    return nextCheckAt(
      {
        productId,
        plan: 'free',
        checkFrequency,
        demoShop: false,
        lastCheckAt: new Date(row.last_check_at),
        consecutiveFailures: row.consecutive_failures,
        editedAt: null,
      },
      { demoCheckMinutes: api.ctx.config.demoCheckMinutes },
    );
  }

  return { addProduct, removeProduct, drain, settled, checkEvents, productRow, queued, dueAt };
}
