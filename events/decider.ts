import type { DomainEvent } from './catalogue.ts';
import { ConcurrencyError, type EventStore, type AppendResult } from './store.ts';
import type { Sql } from '../db/index.ts';

/** A pure aggregate: decide(command, state) -> events, evolve(state, event) -> state. */
export type Decider<State, Command, Event extends DomainEvent> = {
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  decide: (command: Command, state: State) => Event[];
};

/** Every status a refusal is answered with (api/http/errors.ts turns it into `{ message, field? }`). */
export type RefusalStatus = 400 | 401 | 402 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 502 | 503;

/**
 * A request or command refused, by the domain (the deciders) or at the HTTP boundary: `status`
 * is the HTTP status it is answered with, and `field`, for bad input, the field it is about.
 */
export class DomainError extends Error {
  constructor(
    message: string,
    readonly status: RefusalStatus = 400,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export function fold<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, events: readonly E[]): S {
  return events.reduce(decider.evolve, decider.initialState());
}

export type HandleResult<S> = { state: S; events: DomainEvent[]; appended: AppendResult | null };

/**
 * Loads the stream, decides, and appends with the version it read; on a race it reloads and
 * decides again (the decision may differ once the other writer's events are known).
 * `metadata` (where a command came from, e.g. a webhook's event id) is stored with every event.
 */
export async function handleCommand<S, C, E extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<S, C, E>,
  command: C,
  opts: { tx?: Sql; attempts?: number; metadata?: Record<string, unknown> } = {},
): Promise<HandleResult<S>> {
  const attempts = opts.attempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    const { version, events } = await store.readStream(streamId, opts.tx);
    const state = fold(decider, events as unknown as E[]);
    const decided = decider.decide(command, state);
    if (decided.length === 0) return { state, events: [], appended: null };
    try {
      const toAppend = opts.metadata ? decided.map((e) => ({ ...e, metadata: opts.metadata })) : decided;
      const appended = await store.append(streamId, version === 0 ? 'no_stream' : version, toAppend, opts.tx);
      return { state: decided.reduce(decider.evolve, state), events: decided, appended };
    } catch (err) {
      if (!(err instanceof ConcurrencyError) || attempt >= attempts || opts.tx) throw err;
    }
  }
}
