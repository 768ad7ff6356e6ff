import { isText } from 'domhandler';
import { attr, bodyOf, queryAll, textOf, type AnyNode, type Document } from './page.ts';

/**
 * Whether a page is a shell that its scripts fill in: an empty mount point of the usual
 * frameworks with little text around it, or a noscript notice asking for JavaScript on a page
 * that says little else. Such pages are rendered even when something in their HTML looks like a price.
 */
const MOUNT_POINTS = 'div#root, div#app, div#__next, div#__nuxt, div#___gatsby, div#svelte, div[data-reactroot], app-root';
const ASKS_FOR_JAVASCRIPT = /(enable|turn on|activate|allow)\s+javascript|javascript\s+(is\s+)?(required|disabled|needed)|requires?\s+javascript/i;
const SHELL_TEXT = 200;
const NOTICE_PAGE_TEXT = 1000;

export function looksScriptRendered(document: Document): boolean {
  const body = bodyOf(document);
  if (!body) return false;
  const text = visibleTextLength(body);
  if (text < SHELL_TEXT && queryAll(document, MOUNT_POINTS).some((mount) => visibleTextLength(mount) < 20)) return true;
  return text < NOTICE_PAGE_TEXT && queryAll(document, 'noscript').some((notice) => ASKS_FOR_JAVASCRIPT.test(textOf(notice)));
}

const DATA_SCRIPT_TYPES = /^(application\/(ld\+)?json|text\/template|text\/x-template|application\/x-template)$/i;

/** Whether the page has a script that runs (data islands such as JSON-LD do not). */
export function hasScripts(document: Document): boolean {
  return queryAll(document, 'script').some((script) => {
    const type = attr(script, 'type')?.trim() ?? '';
    return !DATA_SCRIPT_TYPES.test(type);
  });
}

/** Characters of text outside scripts, styles and noscript notices, spaces collapsed. */
function visibleTextLength(root: AnyNode): number {
  let length = 0;
  // A stack of its own: a call per level would overflow on deep pages.
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isText(node)) length += node.data.replace(/\s+/g, ' ').trim().length;
    else if (
      'children' in node &&
      !(node.type === 'script' || node.type === 'style' || ('name' in node && (node.name === 'noscript' || node.name === 'template')))
    ) {
      for (const child of node.children) stack.push(child);
    }
  }
  return length;
}
