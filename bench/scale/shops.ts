/**
 * The shops of the scale simulation, in a process of their own: `bun bench/scale/shops.ts` prints
 * its port, then serves product pages on 250 loopback hosts (127.0.0.1-250, one shop each) until
 * it is ended. GET /stats on any host answers what was served and the most requests one shop had
 * in flight at once.
 *
 * - Pages are the realistic ~100 KB theme page of the extraction benchmark, grown to the sizes of
 *   the real pages in bench/corpus (median about 440 KB), product by product.
 * - Prices move as shops' do: most products every one to seven days, one in twenty (dynamic
 *   pricing) every hour.
 * - A few shops are slow (SLOW_MS per page) and a few fail (503), so backoff and politeness show.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { productPage } from '../extract/product-page.ts';

export const HOSTS = 250;
export const SLOW_MS = 3000;
// Shops of hourly (growth) users: 1 in 50 shops is slow, 1 in 125 fails.
export const isSlowHost = (host: number) => host % 50 === 38;
export const isFailingHost = (host: number) => host % 125 === 87;

/** Where the `j`th product of user `user` is sold: each user watches five shops. */
export function pageUrl(port: number, user: number, j: number, n: number): string {
  const host = 1 + ((user * 5 + (j % 5)) % HOSTS);
  return `http://127.0.0.${host}:${port}/products/${n}`;
}

const HOUR = 3_600_000;

/** The price of product `i` at time `t`: a base price plus a step that moves with the product's own clock. */
export function priceAt(i: number, t: number): number {
  const period = i % 20 === 0 ? HOUR : (1 + (i % 7)) * 24 * HOUR;
  const phase = (((i * 2654435761) % 1000) / 1000) * period;
  const step = Math.floor((t + phase) / period);
  return 10 + (i % 25) + (step % 3) * 2 + 0.99;
}

/** Sizes of the real product pages, in bytes: each product's page is grown to one of them. */
export function corpusPageSizes(): number[] {
  const dir = new URL('../corpus/real-product-pages/html/', import.meta.url).pathname;
  return readdirSync(dir)
    .filter((f) => f.endsWith('.html.gz'))
    .sort()
    .map((f) => gunzipSync(readFileSync(dir + f)).length);
}

const WORDS = 'kettle steel boil litre cordless filter window handle quiet warm control energy design kitchen review delivery'.split(' ');

/** Markup that adds bulk without prices: the reviews and recommendations long pages are made of. */
function filler(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let n = 0; size < bytes; n++) {
    const text = Array.from({ length: 24 }, (_, w) => WORDS[(n * 7 + w * 3) % WORDS.length]).join(' ');
    const block = `<div class="review-card review-card--${n % 9}" data-review-id="r${n}"><div class="review-card__stars" aria-label="${1 + (n % 5)} stars"></div><h4 class="review-card__title">${text.slice(0, 40)}</h4><p class="review-card__body">${text}</p><a class="review-card__link" href="/reviews/${n}">Read more</a></div>\n`;
    parts.push(block);
    size += block.length;
  }
  return `<section class="reviews-more">${parts.join('')}</section>`;
}

/** The page of a product: the template at its price, grown to its size. Pieces are cached. */
export function pageMaker(sizes: number[]) {
  const template = productPage();
  const end = template.lastIndexOf('</body>');
  const byPrice = new Map<number, [string, string]>();
  const bySize = new Map<number, string>();
  return (i: number, price: number) => {
    let halves = byPrice.get(price);
    if (!halves) {
      const page = template.replaceAll('29.99', price.toFixed(2));
      halves = [page.slice(0, end), page.slice(end)];
      byPrice.set(price, halves);
    }
    const size = sizes[i % sizes.length]!;
    let extra = bySize.get(size);
    if (extra === undefined) bySize.set(size, (extra = filler(size - template.length)));
    return halves[0] + extra + halves[1];
  };
}

function serve() {
  const page = pageMaker(corpusPageSizes());
  const inFlight = new Map<string, number>();
  const stats = { requests: 0, bytes: 0, maxPerHost: 0, maxPerHostAt: '' };
  const server = Bun.serve({
    port: 0,
    hostname: '0.0.0.0',
    idleTimeout: 60,
    async fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === '/stats') return Response.json(stats);
      const host = url.hostname;
      const now = (inFlight.get(host) ?? 0) + 1;
      inFlight.set(host, now);
      if (now > stats.maxPerHost) Object.assign(stats, { maxPerHost: now, maxPerHostAt: host });
      try {
        const hostNumber = Number(host.split('.')[3]);
        if (isSlowHost(hostNumber)) await Bun.sleep(SLOW_MS);
        stats.requests++;
        if (isFailingHost(hostNumber)) return new Response('Service unavailable', { status: 503 });
        const i = Number(url.pathname.split('/')[2]);
        const body = page(i, priceAt(i, Date.now()));
        stats.bytes += body.length;
        return new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } });
      } finally {
        inFlight.set(host, inFlight.get(host)! - 1);
      }
    },
  });
  console.log(`port ${server.port}`);
}

if (import.meta.main) serve();
