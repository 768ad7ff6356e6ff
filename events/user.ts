import { DEFAULT_SETTINGS, type EventOf, type Settings } from './catalogue.ts';
import { DomainError, type Decider } from './decider.ts';
import { frequenciesWithin } from './settings.ts';

/** The user aggregate: identity, profile and settings. Stream `user-<id>`. */
export type UserEvent = EventOf<'UserSignedUp'> | EventOf<'UserProfileUpdated'> | EventOf<'SettingsChanged'>;

export type Profile = { email: string; firstName: string | null; lastName: string | null; profileImageUrl: string | null };

export type UserState = { status: 'new' } | { status: 'registered'; userId: string; profile: Profile; settings: Settings | null };

export type UserCommand =
  | { type: 'SignIn'; userId: string; provider: 'google' | 'demo'; subject: string; profile: Profile }
  /** `plan`: the user's plan now; a check frequency faster than it checks is refused. */
  | { type: 'ChangeSettings'; userId: string; settings: Settings; plan: { name: string; checkIntervalMinutes: number } };

export const userStream = (userId: string) => `user-${userId}`;

const sameProfile = (a: Profile, b: Profile) =>
  a.email === b.email && a.firstName === b.firstName && a.lastName === b.lastName && a.profileImageUrl === b.profileImageUrl;

const sameSettings = (a: Settings, b: Settings) => (Object.keys(DEFAULT_SETTINGS) as (keyof Settings)[]).every((k) => a[k] === b[k]);

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({ status: 'new' }),

  evolve(state, event) {
    switch (event.type) {
      case 'UserSignedUp': {
        const { userId, email, firstName, lastName, profileImageUrl } = event.data;
        return { status: 'registered', userId, profile: { email, firstName, lastName, profileImageUrl }, settings: null };
      }
      case 'UserProfileUpdated': {
        if (state.status !== 'registered') return state;
        const { email, firstName, lastName, profileImageUrl } = event.data;
        return { ...state, profile: { email, firstName, lastName, profileImageUrl } };
      }
      case 'SettingsChanged':
        return state.status === 'registered' ? { ...state, settings: event.data.settings } : state;
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'SignIn': {
        const { userId, provider, subject, profile } = command;
        if (state.status === 'new') return [{ type: 'UserSignedUp', data: { userId, provider, subject, ...profile } }];
        // A returning user: record only a real change of the profile the provider gives us.
        return sameProfile(state.profile, profile) ? [] : [{ type: 'UserProfileUpdated', data: { userId, ...profile } }];
      }
      case 'ChangeSettings': {
        if (state.status !== 'registered') throw new Error(`Unknown user ${command.userId}`);
        const allowed = frequenciesWithin(command.plan.checkIntervalMinutes);
        if (!allowed.includes(command.settings.checkFrequency)) {
          throw new DomainError(`Your ${command.plan.name} plan checks prices ${allowed[0]} at most: choose ${allowed.join(' or ')}.`, 400, 'checkFrequency');
        }
        if (state.settings && sameSettings(state.settings, command.settings)) return [];
        return [{ type: 'SettingsChanged', data: { userId: command.userId, settings: command.settings } }];
      }
    }
  },
};
