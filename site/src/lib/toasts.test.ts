import { describe, expect, test } from 'bun:test';
import { toastClearance } from './toasts';

const rect = (top: number, bottom: number) => ({ top, bottom });

describe('toastClearance', () => {
  test('nothing to keep clear: the toasts sit at the bottom edge', () => {
    expect(toastClearance(844, [])).toBe(0);
  });

  test('a bar at the bottom of the window: the toasts sit above it', () => {
    expect(toastClearance(900, [rect(820, 884)])).toBe(80);
  });

  test('the highest of several, and only those in the lower half of the window', () => {
    expect(toastClearance(844, [rect(700, 828), rect(760, 828), rect(100, 160)])).toBe(144);
  });

  test('hidden or scrolled out of view: nothing to avoid', () => {
    expect(toastClearance(844, [rect(0, 0), rect(900, 960), rect(-200, -100)])).toBe(0);
  });
});
