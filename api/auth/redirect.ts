/** Only same-origin paths may be a redirect target; anything else falls back to /. */
export function safeRedirect(target: unknown): string {
  if (typeof target !== 'string' || !target.startsWith('/') || target.startsWith('//') || target.startsWith('/\\')) return '/';
  try {
    const url = new URL(target, 'http://x');
    return url.origin === 'http://x' ? url.pathname + url.search + url.hash : '/';
  } catch {
    return '/';
  }
}
