import { describe, expect, test } from 'bun:test';
import { DEFAULT_SETTINGS } from './catalogue.ts';
import { fold } from './decider.ts';
import { userDecider, type UserCommand, type UserEvent } from './user.ts';

/** given(events).when(command) -> the events the decider emits. */
const given = (events: UserEvent[]) => ({ when: (command: UserCommand) => userDecider.decide(command, fold(userDecider, events)) });

const profile = { email: 'ann@shop.co.uk', firstName: 'Ann', lastName: 'Lee', profileImageUrl: null };
const signedUp: UserEvent = { type: 'UserSignedUp', data: { userId: 'u1', provider: 'google', subject: 'g-1', ...profile } };

describe('user decider', () => {
  test('first sign-in signs the user up', () => {
    expect(given([]).when({ type: 'SignIn', userId: 'u1', provider: 'google', subject: 'g-1', profile })).toEqual([signedUp]);
  });

  test('a returning user with the same profile records nothing', () => {
    expect(given([signedUp]).when({ type: 'SignIn', userId: 'u1', provider: 'google', subject: 'g-1', profile })).toEqual([]);
  });

  test('a returning user with a changed profile records the change', () => {
    const changed = { ...profile, lastName: 'Lee-Smith', profileImageUrl: 'https://img/x.png' };
    expect(given([signedUp]).when({ type: 'SignIn', userId: 'u1', provider: 'google', subject: 'g-1', profile: changed }))
      .toEqual([{ type: 'UserProfileUpdated', data: { userId: 'u1', ...changed } }]);
  });

  test('settings saved the first time are recorded even when they equal the defaults', () => {
    expect(given([signedUp]).when({ type: 'ChangeSettings', userId: 'u1', settings: DEFAULT_SETTINGS }))
      .toEqual([{ type: 'SettingsChanged', data: { userId: 'u1', settings: DEFAULT_SETTINGS } }]);
  });

  test('saving the same settings again records nothing; a change is recorded', () => {
    const saved: UserEvent = { type: 'SettingsChanged', data: { userId: 'u1', settings: DEFAULT_SETTINGS } };
    expect(given([signedUp, saved]).when({ type: 'ChangeSettings', userId: 'u1', settings: { ...DEFAULT_SETTINGS } })).toEqual([]);
    const weekly = { ...DEFAULT_SETTINGS, checkFrequency: 'weekly' as const };
    expect(given([signedUp, saved]).when({ type: 'ChangeSettings', userId: 'u1', settings: weekly }))
      .toEqual([{ type: 'SettingsChanged', data: { userId: 'u1', settings: weekly } }]);
  });

  test('settings of a user who never signed up are refused', () => {
    expect(() => given([]).when({ type: 'ChangeSettings', userId: 'u1', settings: DEFAULT_SETTINGS })).toThrow();
  });
});
