import { describe, expect, test } from 'bun:test';
import { chooseJobs, type ClaimCandidate } from './fair-share.ts';

const T = Date.parse('2026-11-24T12:00:00Z');
const job = (userId: string, n: number, host = `shop-${n}.example`, url = `https://${host}/p/${userId}-${n}`, secondsAgo = 600): ClaimCandidate => ({
  productId: `${userId}-${n}`,
  userId,
  host,
  url,
  runAt: new Date(T - secondsAgo * 1000),
});
const rules = { limit: 8, perHost: 2, fetching: new Map<string, number>() };
const ids = (jobs: ClaimCandidate[]) => jobs.map((j) => j.productId);

describe('which jobs a claim takes', () => {
  test("users take turns: one user's backlog does not hold another's job back", () => {
    const heavy = Array.from({ length: 100 }, (_, i) => job('heavy', i, `shop-${i}.example`, undefined, 3600));
    const light = [job('light', 0, 'other.example', undefined, 60)];
    const chosen = chooseJobs([...heavy, ...light], rules);
    expect(chosen).toHaveLength(8);
    expect(ids(chosen)).toContain('light-0');
    // The heavy user still fills what the others leave.
    expect(chosen.filter((j) => j.userId === 'heavy')).toHaveLength(7);
  });

  test('within a turn the longest waiting goes first; each user keeps the order of its line', () => {
    const a = [job('a', 0, undefined, undefined, 100), job('a', 1, undefined, undefined, 50)];
    const b = [job('b', 0, undefined, undefined, 200), job('b', 1, undefined, undefined, 10)];
    expect(ids(chooseJobs([...a, ...b], { ...rules, limit: 3 }))).toEqual(['b-0', 'a-0', 'a-1']);
  });

  test('a shop gets no more pages than its limit, counting those being fetched elsewhere', () => {
    const same = Array.from({ length: 5 }, (_, i) => job('u', i, 'big.example'));
    expect(ids(chooseJobs(same, rules))).toEqual(['u-0', 'u-1']);
    expect(ids(chooseJobs(same, { ...rules, fetching: new Map([['big.example', 1]]) }))).toEqual(['u-0']);
    expect(chooseJobs(same, { ...rules, fetching: new Map([['big.example', 2]]) })).toEqual([]);
    // Other shops are not held up by a full one.
    expect(ids(chooseJobs([...same, job('u', 9, 'small.example')], rules))).toEqual(['u-0', 'u-1', 'u-9']);
  });

  test('products tracking a page already taken come with it: one fetch serves them', () => {
    const url = 'https://big.example/p/shared';
    const shared = ['a', 'b', 'c'].map((u) => job(u, 0, 'big.example', url));
    const others = [job('d', 0, 'big.example'), job('e', 0, 'big.example')];
    expect(ids(chooseJobs([...shared, ...others], rules))).toEqual(['a-0', 'b-0', 'c-0', 'd-0']);
  });

  test('stops at the limit; an address without a host is not a fetch and is never held', () => {
    const many = Array.from({ length: 20 }, (_, i) => job(`user-${i}`, i));
    expect(chooseJobs(many, rules)).toHaveLength(8);
    const broken = { ...job('x', 0), host: null, url: 'not a url' };
    expect(ids(chooseJobs([broken], { ...rules, perHost: 0 }))).toEqual(['x-0']);
  });
});
