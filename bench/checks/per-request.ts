/**
 * A page as a shop serves it on another load: the same product, with the tokens real shops write
 * anew on every request (a CSP nonce on each script, a CSRF meta tag and hidden input, a comment
 * with the time it was generated, a request id and timestamp in an inline script). Used to show
 * that a check reads such a page once, and that nothing it reads depends on them.
 */
export function servedAgain(html: string, seed: number): string {
  const token = `${seed.toString(36)}Qx${(seed * 7919).toString(16)}z${'k'.repeat(seed % 5)}`;
  const inHead =
    `<meta name="csrf-token" content="${token}">` +
    `<!-- generated at ${new Date(1_790_000_000_000 + seed * 1000).toISOString()} by node ${seed % 7} -->` +
    `<script>window.__request = {"requestId":"${token}","csrfToken":"${token}","timestamp":${1_790_000_000_000 + seed}};</script>`;
  const rewriter = new HTMLRewriter()
    .onDocument({
      comments(comment) {
        comment.text = ` cache ${token} `;
      },
    })
    .on('script', {
      element(element) {
        element.setAttribute('nonce', token);
      },
    })
    .on('head', {
      element(element) {
        element.prepend(inHead, { html: true });
      },
    })
    .on('form', {
      element(element) {
        element.prepend(`<input type="hidden" name="authenticity_token" value="${token}">`, { html: true });
      },
    });
  return rewriter.transform(html);
}
