import { upcastAndValidate, type DomainEvent } from './catalogue.ts';
import { ConcurrencyError, type EventStore, type AppendResult, type Checkpoint } from './store.ts';
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

/**
 * Decides commands on many streams of one aggregate and appends every event in one statement in
 * the caller's transaction: all or nothing (an import of a thousand own products). Commands on
 * the same stream are decided in order, each after the events of the one before. The first
 * refusal throws before anything is written. Answers the checkpoint of the last event, or null
 * when nothing changed. `metadata` is stored with every event, as `handleCommand` does.
 */
export async function handleCommandsOnStreams<S, C, E extends DomainEvent>(
  store: EventStore,
  decider: Decider<S, C, E>,
  streamOf: (command: C) => string,
  commands: readonly C[],
  tx: Sql,
  metadata?: Record<string, unknown>,
): Promise<{ events: E[]; checkpoint: Checkpoint | null }> {
  const streamIds = [...new Set(commands.map(streamOf))];
  if (!streamIds.length) return { events: [], checkpoint: null };
  const rows = await tx<{ stream_id: string; version: string; type: string | null; schema_version: number | null; data: unknown }[]>`
    SELECT s.stream_id, s.version, e.type, e.schema_version, e.data
    FROM streams s LEFT JOIN events e ON e.stream_id = s.stream_id
    WHERE s.stream_id = ANY(${streamIds}::text[])
    ORDER BY s.stream_id, e.stream_version`;
  const streams = new Map<string, { version: number; state: S; decided: E[] }>();
  for (const r of rows) {
    const stream = streams.get(r.stream_id) ?? { version: Number(r.version), state: decider.initialState(), decided: [] };
    if (r.type) stream.state = decider.evolve(stream.state, { type: r.type, data: upcastAndValidate(r.type, r.schema_version!, r.data) } as E);
    streams.set(r.stream_id, stream);
  }
  for (const command of commands) {
    const id = streamOf(command);
    const stream = streams.get(id) ?? { version: 0, state: decider.initialState(), decided: [] };
    const events = decider.decide(command, stream.state);
    stream.state = events.reduce(decider.evolve, stream.state);
    stream.decided.push(...events);
    streams.set(id, stream);
  }
  const batch = [...streams].flatMap(([streamId, s]) =>
    s.decided.length
      ? [{ streamId, expected: s.version || ('no_stream' as const), events: metadata ? s.decided.map((e) => ({ ...e, metadata })) : s.decided }]
      : [],
  );
  if (!batch.length) return { events: [], checkpoint: null };
  return { events: batch.flatMap((b) => b.events), checkpoint: await store.appendToStreams(batch, tx) };
}
