import { atom, computed } from 'nanostores';

export type Theme = 'light' | 'dark' | 'system';

/** The key BaseHead reads before first paint; keep the two in step. */
export const THEME_STORAGE_KEY = 'vite-ui-theme';

const browser = typeof window !== 'undefined';
const darkQuery = browser ? window.matchMedia('(prefers-color-scheme: dark)') : null;

function parse(value: string | null | undefined): Theme {
  return value === 'light' || value === 'dark' ? value : 'system';
}

function readStored(): Theme {
  try {
    return parse(localStorage.getItem(THEME_STORAGE_KEY));
  } catch {
    return 'system'; // storage blocked (private mode, policies)
  }
}

export const $theme = atom<Theme>(browser ? readStored() : 'system');
const $systemDark = atom(darkQuery?.matches ?? false);

/** What is on screen: 'system' resolved through the OS preference. */
export const $resolvedTheme = computed([$theme, $systemDark], (theme, systemDark) => (theme === 'system' ? (systemDark ? 'dark' : 'light') : theme));

export function setTheme(theme: Theme): void {
  try {
    localStorage.setItem(THEME_STORAGE_KEY, theme);
  } catch {
    // Not persisted; the choice still holds for this page.
  }
  $theme.set(theme);
}

/** The header toggle: always to an explicit light or dark, away from what is shown. */
export function toggleTheme(): void {
  setTheme($resolvedTheme.get() === 'dark' ? 'light' : 'dark');
}

if (browser) {
  darkQuery?.addEventListener('change', (event) => $systemDark.set(event.matches));
  // Another tab changed the theme.
  window.addEventListener('storage', (event) => {
    if (event.key === THEME_STORAGE_KEY) $theme.set(parse(event.newValue));
  });
  $resolvedTheme.subscribe((resolved) => {
    document.documentElement.classList.toggle('dark', resolved === 'dark');
  });
}
