import { DomainError, fold, type Decider } from './decider.ts';
import type { DomainEvent } from './catalogue.ts';

/**
 * A decider's specification in its own words: `given(events).when(command)` is what it decides
 * after those events, `given(events).refuses(command)` the DomainError it refuses the command with,
 * and `given(events).state` the state it folded them into.
 */
export function deciderSpec<State, Command, Event extends DomainEvent>(decider: Decider<State, Command, Event>) {
  return {
    given(events: readonly Event[]) {
      const state = fold(decider, events);
      return {
        state,
        when: (command: Command) => decider.decide(command, state),
        refuses(command: Command): DomainError {
          try {
            decider.decide(command, state);
          } catch (err) {
            if (err instanceof DomainError) return err;
            throw err;
          }
          throw new Error('the command was accepted');
        },
      };
    },
  };
}
