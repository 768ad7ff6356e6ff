import { describe, expect, test } from 'bun:test';
import { failureSummary, failureWords, hasTrouble, pausedLabel, successRate } from './check-health';

describe('check health in words', () => {
  test('failure codes read as reasons; old and unknown codes too', () => {
    expect(failureWords('blocked')).toBe('turned away by bot protection or a rate limit');
    expect(failureWords('bot-protection')).toBe(failureWords('blocked'));
    expect(failureWords('some-new-code')).toBe('some new code');
  });
  test('failures by reason, most frequent first', () => {
    expect(failureSummary({ timeout: 1, blocked: 3, dns: 0 })).toBe('3 turned away by bot protection or a rate limit, 1 no answer in time');
    expect(failureSummary({})).toBe('');
  });
  test('success rate', () => {
    expect(successRate({ checks: 4, successes: 3 })).toBe('75%');
    expect(successRate({ checks: 3, successes: 1 })).toBe('33%');
    expect(successRate({ checks: 0, successes: 0 })).toBe('–');
  });
  test('paused until a local time, with the day when not today', () => {
    const now = new Date(2026, 10, 24, 12, 0);
    expect(pausedLabel(new Date(2026, 10, 24, 14, 30).toISOString(), now)).toBe('Paused until 14:30');
    expect(pausedLabel(new Date(2026, 10, 25, 9, 5).toISOString(), now)).toBe('Paused until 25 Nov, 09:05');
    expect(pausedLabel(new Date(2026, 10, 24, 11, 0).toISOString(), now)).toBeNull();
    expect(pausedLabel(null, now)).toBeNull();
  });
  test('trouble: a failure or a pause', () => {
    const host = { host: 'a', checks: 1, successes: 1, failures: {}, lastError: null, browserNeeded: false, backedOffUntil: null };
    expect(hasTrouble([host])).toBe(false);
    expect(hasTrouble([{ ...host, failures: { timeout: 1 } }])).toBe(true);
    expect(hasTrouble([{ ...host, backedOffUntil: '2026-11-24T12:00:00Z' }])).toBe(true);
  });
});
