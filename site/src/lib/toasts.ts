/** Where toasts go on screen: along the bottom edge, clear of what must stay in view there. */

/** Marks an element toasts must never cover (the bulk-action bar): they sit above it. */
export const TOASTS_KEEP_CLEAR = 'data-toasts-keep-clear';

type Box = { top: number; bottom: number };

/**
 * How far above the window's bottom edge the toasts sit, in pixels: above the highest of the
 * `keepClear` boxes (window coordinates) shown in the lower half of the window; 0 when none is.
 * A box in the upper half is left alone: moving the toasts over the page's middle would cover
 * more than it spares.
 */
export function toastClearance(windowHeight: number, keepClear: readonly Box[]): number {
  let clearance = 0;
  for (const { top, bottom } of keepClear) {
    const shown = bottom > top && bottom > 0 && top < windowHeight;
    if (shown && top >= windowHeight / 2) clearance = Math.max(clearance, windowHeight - top);
  }
  return clearance;
}
