/**
 * The origin the static pages are built with. The address users reach the product at is known
 * only when it runs (PUBLIC_URL, else http://localhost:$PORT), so the build writes this stand-in
 * into absolute links (canonical, og:url, og:image) and the server puts the real origin in its
 * place when it serves a page (api/site.ts). `.invalid` can never be a real address.
 */
export const BUILD_ORIGIN = 'https://origin.pricewatch.invalid';
