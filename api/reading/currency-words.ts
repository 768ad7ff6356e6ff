/**
 * The currency words CLDR writes next to amounts (bench/detect/currency-words.ts derives them from
 * Bun's Intl into currency-words.json): symbols, abbreviations and one-word names in the world's
 * languages ("soʻm", "ден.", "人民币", "euros"), each with the currencies it names.
 */
import CLDR_WORDS from './currency-words.json';

const WORDS = new Map(Object.entries(CLDR_WORDS as Record<string, string>).map(([word, codes]) => [word, codes.split(' ')]));

/** Codes that are English words or units too ("ALL 20 ITEMS", "TOP 10", "5 CUP"): a currency only on a page that pays in it. */
export const WORD_CODES = new Set(['ALL', 'TOP', 'CUP', 'MOP', 'SOS']);

/**
 * Short Latin words ("L", "K", "FC", "sum", "bat"): in running text they are units, initials or
 * words far more often than money, so they name a currency only on a page that pays in it.
 */
export function localOnly(word: string): boolean {
  return /^[A-Za-z]{1,3}$/.test(word);
}

/** The currencies a CLDR word names, if it is one. */
export function cldrCurrencies(word: string): string[] | undefined {
  return WORDS.get(word);
}

export const CLDR_WORD_LIST: readonly string[] = [...WORDS.keys()];

const DIGITS = /\d+/g;
const EDGE_PUNCTUATION = /[.,:;!?()–-]+$|^[.,:;()]+/g;

function isWord(word: string): boolean {
  return word !== '' && (WORDS.has(word) || WORDS.has(word.replace(EDGE_PUNCTUATION, '')));
}

/** Whether a CLDR word stands next to a number (a local-only one too: the reader decides with the page's currency). */
export function cldrWordNearDigit(text: string): boolean {
  for (const match of text.matchAll(DIGITS)) {
    // The run of other characters before the number (one space allowed between), then after it.
    let end = match.index;
    if (text[end - 1] === ' ') end--;
    let start = end;
    while (start > 0 && end - start < 40 && !/[\s\d]/.test(text[start - 1]!)) start--;
    if (start < end && isWord(text.slice(start, end))) return true;
    let from = match.index + match[0].length;
    if (text[from] === ' ') from++;
    let to = from;
    while (to < text.length && to - from < 40 && !/[\s\d]/.test(text[to]!)) to++;
    if (to > from && isWord(text.slice(from, to))) return true;
  }
  return false;
}
