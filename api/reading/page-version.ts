/**
 * The version of a page as its reading sees it: a SHA-256 of the page with the parts that change on
 * every load and that no reading looks at left out. Two fetches of an unchanged product page then
 * have the same version, though each carries a new CSP nonce, CSRF token or "generated at" comment,
 * so a check can tell that nothing it reads has changed without reading anything (see
 * docs/decisions/0016-checks-at-native-speed.md).
 *
 * Left out, and nothing else:
 * - comments (not the text of scripts that look like comments: the parser knows where scripts are);
 * - the `nonce` and `integrity` attributes of scripts, links and styles, and Cloudflare's
 *   per-request `data-cf-beacon`;
 * - the value of a hidden input, and the content of a meta tag, named as a token (csrf-token,
 *   authenticity_token, form_key, _wpnonce, __RequestVerificationToken);
 * - in inline scripts, a value given to a key whose name ends as a token's or a moment's does
 *   ("nonce", "csrfToken", "formKey", "requestId", "timestamp", "serverTime", "signature").
 *
 * One pass of the native, streaming HTMLRewriter (lol-html): no tree is built.
 */
import { createHash } from 'node:crypto';

const TOKEN_NAME = /nonce|token|csrf|xsrf|form_?key|authenticity|verification/i;
/**
 * A key named as a token or a moment (the name ends with the word: "csrfToken", "_wpnonce"), then
 * `:` or `=`, then a quoted or numeric value. Every part is bounded, so a long run of letters (a
 * base64 blob in a script) costs no backtracking.
 */
const TOKEN_VALUE =
  /(nonce|token|csrf|xsrf|form_?key|request_?id|timestamp|server_?time|signature)(["']?\s{0,20}[:=]\s{0,20})(?:"(?:[^"\\\r\n]|\\.){0,512}"|'(?:[^'\\\r\n]|\\.){0,512}'|\d{6,20})/gi;
/** Cheap first look before the masking regex runs over a chunk of script. */
const MENTIONS_TOKEN = /nonce|token|csrf|xsrf|form_?key|request_?id|timestamp|server_?time|signature/i;

const rewriter = new HTMLRewriter()
  .onDocument({
    comments(comment) {
      comment.remove();
    },
  })
  // Named with their elements: an attribute alone would be looked for on every element.
  .on('script[nonce], script[integrity], script[data-cf-beacon], link[nonce], link[integrity], style[nonce]', {
    element(element) {
      element.removeAttribute('nonce');
      element.removeAttribute('integrity');
      element.removeAttribute('data-cf-beacon');
    },
  })
  .on('input[type="hidden" i][name], meta[name][content]', {
    element(element) {
      if (!TOKEN_NAME.test(element.getAttribute('name') ?? '')) return;
      element.removeAttribute('value');
      element.removeAttribute('content');
    },
  })
  .on('script:not([src])', {
    text(chunk) {
      if (!MENTIONS_TOKEN.test(chunk.text)) return;
      const masked = chunk.text.replace(TOKEN_VALUE, '$1$2""');
      if (masked !== chunk.text) chunk.replace(masked);
    },
  });

/** The page's version as a hex SHA-256 (of the page itself when the rewriter cannot read it). */
export function pageVersion(page: string | Uint8Array): string {
  const bytes = typeof page === 'string' ? Buffer.from(page) : page;
  let kept: Uint8Array;
  try {
    // Bytes in, bytes out: the page is never turned into a string and back.
    kept = new Uint8Array(rewriter.transform(bytes));
  } catch {
    kept = bytes;
  }
  return createHash('sha256').update(kept).digest('hex');
}
