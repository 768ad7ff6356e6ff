/**
 * The address two products are the same page by. Pure: text in, text out.
 *
 * Scheme and host are lower-case and default ports dropped (the URL parser does both, and gives
 * the root its one trailing slash); the fragment never reaches the shop, and campaign tags
 * (utm_*, gclid, fbclid) name the link that was clicked, not the page. Every other query
 * parameter is kept as written and in its order: shops name variants with them. A trailing slash
 * on a longer path is kept: shops may serve different pages with and without it.
 */
const TRACKING_PARAMETER = /^(utm_.*|gclid|fbclid)$/i;

function parameterName(part: string): string {
  const name = part.split('=', 1)[0]!.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** The normalised address, or null for text that is no address. */
export function normaliseAddress(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return null;
  }
  url.hash = '';
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((part) => part !== '' && !TRACKING_PARAMETER.test(parameterName(part)));
  url.search = kept.length ? `?${kept.join('&')}` : '';
  return url.href;
}
