import { describe, expect, test } from 'bun:test';
import { deciderSpec } from './testing.ts';
import { productDecider, type CheckFailure, type Observation, type ProductCommand, type ProductEvent } from './product.ts';

const { given } = deciderSpec(productDecider);
/** The DomainError a command is refused with. */
const refusal = (events: ProductEvent[], command: ProductCommand) => given(events).refuses(command);

const details = { name: 'Kettle', url: 'https://shop.example/kettle', selector: '.price', alertRule: { kind: 'drop' as const, percent: 10 } };
const added: ProductEvent = { type: 'ProductAdded', data: { productId: 'p1', userId: 'u1', ...details, stockAlerts: true, imageUrl: null } };
const removed: ProductEvent = { type: 'ProductRemoved', data: { productId: 'p1', userId: 'u1' } };

const observation = {
  identifiers: null,
  variant: { id: '40123456789', sku: 'TJ-XL-RED', gtin: null, options: { size: 'XL', colour: 'Red' } },
  regularPrice: 29.99,
  price: 24.99,
  currency: 'GBP',
  source: 'selector',
  selector: '.price',
  matchedText: '£24.99',
  url: details.url,
  httpStatus: 200,
  pageHash: 'abc',
  observedAt: '2026-01-02T10:00:00.000Z',
  availability: 'InStock',
  fetcher: 'static',
} satisfies Observation;
const failure: CheckFailure = {
  code: 'no-price',
  reason: 'No price found.',
  httpStatus: 200,
  url: details.url,
  attemptedAt: '2026-01-02T10:00:00.000Z',
  availability: 'OutOfStock',
};

describe('product decider', () => {
  test('Add records ProductAdded without an image, with stock alerts on unless turned off', () => {
    expect(given([]).when({ type: 'Add', productId: 'p1', userId: 'u1', details })).toEqual([added]);
    expect(given([]).when({ type: 'Add', productId: 'p1', userId: 'u1', details: { ...details, stockAlerts: false } })).toEqual([
      { type: 'ProductAdded', data: { ...added.data, stockAlerts: false } } as ProductEvent,
    ]);
  });

  test('an edit turns stock alerts off or on, and one that does not name them keeps them', () => {
    const off = given([added]).when({ type: 'Edit', productId: 'p1', userId: 'u1', details: { ...details, stockAlerts: false } });
    expect(off).toEqual([{ type: 'ProductEdited', data: { productId: 'p1', userId: 'u1', ...details, stockAlerts: false } }]);
    expect(given([added, ...off]).when({ type: 'Edit', productId: 'p1', userId: 'u1', details: { ...details, name: 'Steel kettle' } })).toEqual([
      { type: 'ProductEdited', data: { productId: 'p1', userId: 'u1', ...details, name: 'Steel kettle', stockAlerts: false } },
    ]);
    expect(given([added, ...off]).when({ type: 'Edit', productId: 'p1', userId: 'u1', details: { ...details, stockAlerts: false } })).toEqual([]);
  });

  test('adding the same product twice is a conflict', () => {
    expect(refusal([added], { type: 'Add', productId: 'p1', userId: 'u1', details }).status).toBe(409);
  });

  test('Edit records the new details; the same details record nothing', () => {
    const changed = { ...details, name: 'Steel kettle', alertRule: { kind: 'any' as const } };
    expect(given([added]).when({ type: 'Edit', productId: 'p1', userId: 'u1', details: changed })).toEqual([
      { type: 'ProductEdited', data: { productId: 'p1', userId: 'u1', ...changed, stockAlerts: true } },
    ]);
    expect(given([added]).when({ type: 'Edit', productId: 'p1', userId: 'u1', details: { ...details, alertRule: { kind: 'drop', percent: 10 } } })).toEqual([]);
  });

  test('an edit without an alert rule keeps the current one', () => {
    const { alertRule: _, ...renamed } = { ...details, name: 'Steel kettle' };
    expect(given([added]).when({ type: 'Edit', productId: 'p1', userId: 'u1', details: renamed })).toEqual([
      { type: 'ProductEdited', data: { productId: 'p1', userId: 'u1', ...details, name: 'Steel kettle', stockAlerts: true } },
    ]);
    const { alertRule: __, ...same } = details;
    expect(given([added]).when({ type: 'Edit', productId: 'p1', userId: 'u1', details: same })).toEqual([]);
  });

  test('a changed drop percent is an edit', () => {
    expect(given([added]).when({ type: 'Edit', productId: 'p1', userId: 'u1', details: { ...details, alertRule: { kind: 'drop', percent: 5 } } })).toHaveLength(
      1,
    );
  });

  test('Remove records ProductRemoved', () => {
    expect(given([added]).when({ type: 'Remove', productId: 'p1', userId: 'u1' })).toEqual([removed]);
  });

  test('SetPriceManually records the price in the currency it was typed in', () => {
    expect(given([added]).when({ type: 'SetPriceManually', productId: 'p1', userId: 'u1', price: 19.5, currency: 'USD' })).toEqual([
      { type: 'PriceManuallySet', data: { productId: 'p1', userId: 'u1', price: 19.5, currency: 'USD' } },
    ]);
  });

  test('a manual price of 0 or less is refused', () => {
    for (const price of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const err = refusal([added], { type: 'SetPriceManually', productId: 'p1', userId: 'u1', price, currency: 'GBP' });
      expect(err.status).toBe(400);
      expect(err.field).toBe('price');
    }
  });

  test('check results are recorded for the product owner, with what the page said about stock', () => {
    expect(given([added]).when({ type: 'RecordObservation', productId: 'p1', observation })).toEqual([
      { type: 'PriceObserved', data: { ...observation, productId: 'p1', userId: 'u1' } },
    ]);
    expect(given([added]).when({ type: 'RecordFailure', productId: 'p1', failure })).toEqual([
      { type: 'PriceCheckFailed', data: { ...failure, productId: 'p1', userId: 'u1' } },
    ]);
  });

  const userCommands: ProductCommand[] = [
    { type: 'Edit', productId: 'p1', userId: 'u1', details },
    { type: 'Remove', productId: 'p1', userId: 'u1' },
    { type: 'SetPriceManually', productId: 'p1', userId: 'u1', price: 10, currency: 'GBP' },
    { type: 'SetAlertRule', productId: 'p1', userId: 'u1', alertRule: { kind: 'any' } },
  ];
  const allCommands: ProductCommand[] = [
    ...userCommands,
    { type: 'RecordObservation', productId: 'p1', observation },
    { type: 'RecordFailure', productId: 'p1', failure },
  ];

  test('every change to a product that does not exist is not found', () => {
    for (const command of allCommands) expect(refusal([], command).status).toBe(404);
  });

  test('every change to a removed product is not found, check results included', () => {
    for (const command of allCommands) expect(refusal([added, removed], command).status).toBe(404);
  });

  test("another user's product is not found", () => {
    for (const command of userCommands) expect(refusal([added], { ...command, userId: 'u2' } as ProductCommand).status).toBe(404);
  });

  test('prices and failures do not change what may be decided', () => {
    const history: ProductEvent[] = [
      added,
      { type: 'PriceObserved', data: { ...observation, productId: 'p1', userId: 'u1' } },
      { type: 'PriceCheckFailed', data: { ...failure, productId: 'p1', userId: 'u1' } },
      { type: 'PriceManuallySet', data: { productId: 'p1', userId: 'u1', price: 20, currency: 'GBP' } },
    ];
    expect(given(history).when({ type: 'Remove', productId: 'p1', userId: 'u1' })).toEqual([removed]);
  });
});

describe('setting the alert rule (bulk)', () => {
  test('SetAlertRule edits the rule only, keeping the other details; the same rule records nothing', () => {
    expect(given([added]).when({ type: 'SetAlertRule', productId: 'p1', userId: 'u1', alertRule: { kind: 'any' } })).toEqual([
      { type: 'ProductEdited', data: { productId: 'p1', userId: 'u1', ...details, alertRule: { kind: 'any' }, stockAlerts: true } },
    ]);
    expect(given([added]).when({ type: 'SetAlertRule', productId: 'p1', userId: 'u1', alertRule: { kind: 'drop', percent: 10 } })).toEqual([]);
  });
});

describe('price corrections', () => {
  const correction = (price: number, previousPrice: number) => ({ correctsPosition: 7, price, previousPrice, reason: 'Re-read' });

  test('CorrectPrices records PriceCorrected for each real change only', () => {
    const command: ProductCommand = { type: 'CorrectPrices', productId: 'p1', corrections: [correction(1299, 1.299), correction(20, 20), correction(0, 5)] };
    expect(given([added]).when(command)).toEqual([{ type: 'PriceCorrected', data: { productId: 'p1', userId: 'u1', ...correction(1299, 1.299) } }]);
  });

  test('a removed product takes no corrections', () => {
    expect(refusal([added, removed], { type: 'CorrectPrices', productId: 'p1', corrections: [correction(2, 1)] }).status).toBe(404);
  });
});
