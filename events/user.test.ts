import { describe, expect, test } from 'bun:test';
import { DEFAULT_SETTINGS } from './catalogue.ts';
import { DomainError } from './decider.ts';
import { deciderSpec } from './testing.ts';
import { userDecider, type UserEvent } from './user.ts';

const { given } = deciderSpec(userDecider);

const profile = { email: 'ann@shop.co.uk', firstName: 'Ann', lastName: 'Lee', profileImageUrl: null };
const signedUp: UserEvent = { type: 'UserSignedUp', data: { userId: 'u1', provider: 'google', subject: 'g-1', ...profile } };
/** Plans as the settings command sees them: a name and how often the plan checks. */
const starter = { name: 'Starter', checkIntervalMinutes: 1440 };
const growth = { name: 'Growth', checkIntervalMinutes: 60 };

describe('user decider', () => {
  test('first sign-in signs the user up', () => {
    expect(given([]).when({ type: 'SignIn', userId: 'u1', provider: 'google', subject: 'g-1', profile })).toEqual([signedUp]);
  });

  test('a returning user with the same profile records nothing', () => {
    expect(given([signedUp]).when({ type: 'SignIn', userId: 'u1', provider: 'google', subject: 'g-1', profile })).toEqual([]);
  });

  test('a returning user with a changed profile records the change', () => {
    const changed = { ...profile, lastName: 'Lee-Smith', profileImageUrl: 'https://img/x.png' };
    expect(given([signedUp]).when({ type: 'SignIn', userId: 'u1', provider: 'google', subject: 'g-1', profile: changed })).toEqual([
      { type: 'UserProfileUpdated', data: { userId: 'u1', ...changed } },
    ]);
  });

  test('settings saved the first time are recorded even when they equal the defaults', () => {
    expect(given([signedUp]).when({ type: 'ChangeSettings', userId: 'u1', settings: DEFAULT_SETTINGS, plan: starter })).toEqual([
      { type: 'SettingsChanged', data: { userId: 'u1', settings: DEFAULT_SETTINGS } },
    ]);
  });

  test('saving the same settings again records nothing; a change is recorded', () => {
    const saved: UserEvent = { type: 'SettingsChanged', data: { userId: 'u1', settings: DEFAULT_SETTINGS } };
    expect(given([signedUp, saved]).when({ type: 'ChangeSettings', userId: 'u1', settings: { ...DEFAULT_SETTINGS }, plan: starter })).toEqual([]);
    const weekly = { ...DEFAULT_SETTINGS, checkFrequency: 'weekly' as const };
    expect(given([signedUp, saved]).when({ type: 'ChangeSettings', userId: 'u1', settings: weekly, plan: starter })).toEqual([
      { type: 'SettingsChanged', data: { userId: 'u1', settings: weekly } },
    ]);
  });

  test('settings of a user who never signed up are refused', () => {
    expect(() => given([]).when({ type: 'ChangeSettings', userId: 'u1', settings: DEFAULT_SETTINGS, plan: starter })).toThrow();
  });

  test("a frequency faster than the plan checks is refused, naming the field and the plan's fastest", () => {
    const hourly = { ...DEFAULT_SETTINGS, checkFrequency: 'hourly' as const };
    let refusal: unknown;
    try {
      given([signedUp]).when({ type: 'ChangeSettings', userId: 'u1', settings: hourly, plan: starter });
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ status: 400, field: 'checkFrequency', message: 'Your Starter plan checks prices daily at most: choose daily or weekly.' });
  });

  test("the plan's own pace and slower ones are taken", () => {
    const hourly = { ...DEFAULT_SETTINGS, checkFrequency: 'hourly' as const };
    expect(given([signedUp]).when({ type: 'ChangeSettings', userId: 'u1', settings: hourly, plan: growth })).toEqual([
      { type: 'SettingsChanged', data: { userId: 'u1', settings: hourly } },
    ]);
    const weekly = { ...DEFAULT_SETTINGS, checkFrequency: 'weekly' as const };
    expect(given([signedUp]).when({ type: 'ChangeSettings', userId: 'u1', settings: weekly, plan: starter })).toEqual([
      { type: 'SettingsChanged', data: { userId: 'u1', settings: weekly } },
    ]);
  });
});
