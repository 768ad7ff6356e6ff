import { Elysia } from 'elysia';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { DEMO_SHOP_PATH } from './address.ts';
import { findDemoProduct } from './shop.ts';
import { indexPage, productImage, productPage } from './pages.ts';
import { MY_STORE_PATH, myStoreIndexPage, myStoreListing, myStoreMeta, myStoreProductPage } from './my-store.ts';
import { queryParam, textUpTo } from '../http/validation.ts';

const html = (body: string, status = 200) =>
  new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });

/**
 * A product page's `?at=` and `?price=`, capped in length. Whether they make sense is answered
 * by the page itself, in HTML, once the product is known.
 */
const ProductPageQuery = z.object({ at: queryParam(textUpTo(40)).optional(), price: queryParam(textUpTo(20)).optional() });
/** The listing's paging, read as leniently as Shopify reads it (see myStoreListing). */
const ListingQuery = z.object({ limit: queryParam(textUpTo(20)).optional(), page: queryParam(textUpTo(20)).optional() });

const json = (body: unknown) =>
  new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } });
const storePath = MY_STORE_PATH.slice(DEMO_SHOP_PATH.length);

/**
 * The built-in demo shop, and the demo owner's own store under it, served in demo mode only.
 * `?price=12.34` forces a product page's selling price and `?at=<ISO date>` shows the page as it
 * was at that moment (tests and seeding).
 */
export function demoShopRoutes(ctx: AppContext) {
  const shop = new Elysia({ prefix: DEMO_SHOP_PATH });
  if (!ctx.config.demo) return shop;
  const origin = ctx.config.publicUrl;
  return shop
    .get('/', () => html(indexPage(origin, new Date())))
    .get(
      '/products/:slug',
      ({ params, query }) => {
        const product = findDemoProduct(params.slug);
        if (!product) return html('<!doctype html><title>Not found</title><h1>This product is not in the demo shop.</h1>', 404);
        const at = query.at ? new Date(query.at) : new Date();
        const price = query.price === undefined ? undefined : Number(query.price);
        if (Number.isNaN(at.getTime()) || (price !== undefined && !(price > 0 && price < 1e7))) {
          return html('<!doctype html><title>Bad request</title><h1>price must be a positive number and at a date.</h1>', 400);
        }
        return html(productPage(origin, product, { at, price }));
      },
      { query: ProductPageQuery },
    )
    .get(storePath, () => html(myStoreIndexPage(origin)))
    .get(`${storePath}/products.json`, ({ query }) => json(myStoreListing(origin, query)), { query: ListingQuery })
    .get(`${storePath}/meta.json`, () => json(myStoreMeta(origin)))
    .get(`${storePath}/products/:handle`, ({ params }) => {
      const page = myStoreProductPage(origin, params.handle ?? '');
      return page ? html(page) : html('<!doctype html><title>Not found</title><h1>This product is not in the store.</h1>', 404);
    })
    .get('/images/:file', ({ params }) => {
      const file = params.file ?? ''; // null when the name cannot be decoded
      const product = findDemoProduct(file.replace(/\.svg$/, ''));
      if (!product || !file.endsWith('.svg')) return new Response('Not found', { status: 404 });
      return new Response(productImage(product), {
        headers: {
          'content-type': 'image/svg+xml',
          'cache-control': 'public, max-age=86400',
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
        },
      });
    });
}
