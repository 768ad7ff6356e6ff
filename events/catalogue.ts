import { z } from 'zod';

/**
 * The event catalogue: every event type with its zod schema and schema version.
 * Events are validated on append and on read; older schema versions are read through upcasters,
 * so an old event always replays into today's projections.
 */
export type EventDefinition<T extends string = string, S extends z.ZodType = z.ZodType> = {
  type: T;
  version: number;
  schema: S;
  /** upcasters[v] turns data of schema version v into version v + 1. */
  upcasters?: Record<number, (data: any) => unknown>;
};

function define<T extends string, S extends z.ZodType>(type: T, version: number, schema: S, upcasters?: EventDefinition['upcasters']) {
  return { type, version, schema, upcasters } satisfies EventDefinition<T, S>;
}

const userId = z.string().min(1);
const nullableText = z.string().nullable();

export const Settings = z.object({
  emailNotifications: z.boolean(),
  priceDropAlerts: z.boolean(),
  weeklyReports: z.boolean(),
  checkFrequency: z.enum(['hourly', 'daily', 'weekly']),
  currency: z.enum(['GBP', 'USD', 'EUR']),
  timezone: z.enum(['Europe/London', 'America/New_York', 'Europe/Paris', 'Asia/Tokyo']),
});
export type Settings = z.infer<typeof Settings>;

export const DEFAULT_SETTINGS: Settings = {
  emailNotifications: true,
  priceDropAlerts: true,
  weeklyReports: false,
  checkFrequency: 'daily',
  currency: 'GBP',
  timezone: 'Europe/London',
};

const Profile = z.object({
  email: z.string().email(),
  firstName: nullableText,
  lastName: nullableText,
  profileImageUrl: nullableText,
});

export const events = {
  UserSignedUp: define('UserSignedUp', 1, Profile.extend({
    userId,
    provider: z.enum(['google', 'demo']),
    subject: z.string().min(1),
  })),
  UserProfileUpdated: define('UserProfileUpdated', 1, Profile.extend({ userId })),
  SettingsChanged: define('SettingsChanged', 1, z.object({ userId, settings: Settings })),
} as const;

export type EventType = keyof typeof events;
export type EventData<T extends EventType> = z.infer<(typeof events)[T]['schema']>;
/** A domain event as deciders produce it. */
export type DomainEvent = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];
export type EventOf<T extends EventType> = Extract<DomainEvent, { type: T }>;

export class EventValidationError extends Error {
  constructor(readonly eventType: string, readonly issues: string) {
    super(`Invalid ${eventType} event: ${issues}`);
    this.name = 'EventValidationError';
  }
}

function definitionOf(type: string): EventDefinition {
  const def = (events as Record<string, EventDefinition>)[type];
  if (!def) throw new EventValidationError(type, 'unknown event type');
  return def;
}

function parse(def: EventDefinition, data: unknown) {
  const result = def.schema.safeParse(data);
  if (!result.success) {
    throw new EventValidationError(def.type, result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '));
  }
  return result.data;
}

/** Validates data about to be appended; returns it with the current schema version. */
export function validateForAppend(type: string, data: unknown): { data: unknown; schemaVersion: number } {
  const def = definitionOf(type);
  return { data: parse(def, data), schemaVersion: def.version };
}

/** Validates a stored event, upcasting older schema versions to the current one. */
export function upcastAndValidate(type: string, schemaVersion: number, data: unknown): unknown {
  const def = definitionOf(type);
  let current = data;
  for (let v = schemaVersion; v < def.version; v++) {
    const up = def.upcasters?.[v];
    if (!up) throw new EventValidationError(type, `no upcaster from schema version ${v}`);
    current = up(current);
  }
  return parse(def, current);
}
