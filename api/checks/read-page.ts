import type { ExtractionResult } from '../reading/extract.ts';
import { sharedFetcher, type Fetcher, type FetchFailure, type FetchOptions } from '../fetching/fetcher.ts';
import { sharedRenderer, type RenderFailure, type Renderer } from '../fetching/browser.ts';
import { parsePage, tooDeep, type Document } from '../reading/page.ts';
import { hasScripts, looksScriptRendered } from '../reading/script-rendered.ts';

/**
 * A page read once for a person (AI Detect, `bun run extract`) rather than by the queue: static
 * first, rendered in the browser when the static HTML does not give what is wanted and the page
 * has scripts that could change that, or when asked to.
 */
export type ReadPage = { ok: true; url: string; status: number; body: string; document: Document; fetcher: 'static' | 'browser' };

export type ReadPageOptions = {
  fetchOptions?: FetchOptions;
  fetcher?: Fetcher;
  renderer?: Renderer;
  /** 'always': straight to the browser (`--render`); 'auto': only when the static page falls short. */
  render?: 'auto' | 'always';
  /** Whether a page gives what the caller needs (a price, a suggestion). */
  satisfied: (document: Document) => boolean;
  /** Whose reading this is, for the browser's turns between users. */
  owner?: string;
};

export async function readPage(url: string, opts: ReadPageOptions): Promise<ReadPage | FetchFailure | RenderFailure> {
  const fetcher = opts.fetcher ?? sharedFetcher;
  const renderer = opts.renderer ?? sharedRenderer();
  const rendered = async (): Promise<ReadPage | FetchFailure | RenderFailure> => {
    const page = await renderer.render({
      url,
      fetchOptions: opts.fetchOptions,
      fetcher: fetcher.fetchResource ? fetcher : sharedFetcher,
      owner: opts.owner,
      isReady: (html) => opts.satisfied(parsePage(html)),
    });
    if (!page.ok) return page;
    const document = parsePage(page.html);
    return tooDeep(document) ?? { ok: true, url: page.url, status: page.status, body: page.html, document, fetcher: 'browser' };
  };
  if (opts.render === 'always') return rendered();

  const page = await fetcher.fetchPage(url, opts.fetchOptions);
  if (!page.ok) return page;
  const document = parsePage(page.body);
  // A page nested too deeply is refused, not rendered: the browser would build all of it.
  const refused = tooDeep(document);
  if (refused) return refused;
  const statically: ReadPage = { ok: true, url: page.url, status: page.status, body: page.body, document, fetcher: 'static' };
  if (!hasScripts(document) || (opts.satisfied(document) && !looksScriptRendered(document))) return statically;
  const browser = await rendered();
  // The static reading stands when the browser could not do better.
  if (!browser.ok) return opts.satisfied(document) ? statically : browser;
  return opts.satisfied(browser.document) || !opts.satisfied(document) ? browser : statically;
}

/**
 * The rule checks follow: the user's selector gave no price and nothing stated one, or the page is
 * a shell and the selector did not find it. A price block read in place of a selector that matched
 * nothing does not settle it: on a page with scripts, the selector may name what they write.
 */
export function needsRendering(found: ExtractionResult, shell: boolean): boolean {
  if (!found.ok)
    return found.code === 'selector-no-match' || found.code === 'no-price-in-text' || found.code === 'no-price' || (shell && found.code !== 'invalid-selector');
  if (found.source === 'page' && found.selectorFailure === 'selector-no-match') return true;
  return shell && found.source !== 'selector';
}

/**
 * Whether the rendered page gave what the static one did not: a price where it had none, the
 * selector's own price where it only had the price block, or a shell's built page. Only then is
 * the page remembered as needing the browser; otherwise the static reading stands.
 */
export function renderHelped(statically: ExtractionResult, rendered: ExtractionResult, shell: boolean): boolean {
  if (!rendered.ok) return false;
  return !statically.ok || shell || rendered.source === 'selector';
}
