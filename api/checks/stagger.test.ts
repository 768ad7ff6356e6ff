import { describe, expect, test } from 'bun:test';
import { staggerByHost } from './stagger.ts';

const now = new Date('2026-01-01T10:00:00Z');
const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
const product = (productId: string, url: string) => ({ productId, url });

describe('staggering checks per shop', () => {
  test("one shop's pages one second apart in the order given; other shops start at once; www. is the same shop", () => {
    const checks = staggerByHost(
      [
        product('a1', 'https://a.example/1'),
        product('b1', 'https://b.example/1'),
        product('a2', 'https://www.a.example/2'),
        product('a3', 'https://A.example/3'),
      ],
      now,
    );
    expect(checks.map((c) => [c.productId, c.host, c.runAt])).toEqual([
      ['a1', 'a.example', at(0)],
      ['b1', 'b.example', at(0)],
      ['a2', 'a.example', at(1)],
      ['a3', 'a.example', at(2)],
    ]);
  });

  test('after the checks a shop already has waiting; a wait in the past does not hold anything back', () => {
    const queued = new Map([
      ['a.example', at(30)],
      ['b.example', at(-30)],
    ]);
    const checks = staggerByHost([product('a1', 'https://a.example/1'), product('b1', 'https://b.example/1')], now, queued);
    expect(checks.map((c) => c.runAt)).toEqual([at(31), at(0)]);
  });

  test('1,000 pages of one shop spread over 1,000 seconds: never two due together', () => {
    const checks = staggerByHost(
      Array.from({ length: 1000 }, (_, i) => product(`p${i}`, `https://a.example/${i}`)),
      now,
    );
    expect(new Set(checks.map((c) => c.runAt.getTime())).size).toBe(1000);
    expect(checks.at(-1)!.runAt).toEqual(at(999));
  });
});
