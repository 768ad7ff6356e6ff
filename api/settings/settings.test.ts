import { describe, expect, test } from 'bun:test';
import { DEFAULT_SETTINGS } from '../../events/catalogue.ts';
import { endSubscription, startTrial } from '../testing/plans.ts';
import { useTestApp } from '../testing/app.ts';

const ORIGIN = 'http://localhost:3000';

const api = useTestApp({ PUBLIC_URL: ORIGIN });
/** signedIn(): a fresh user per test, so each starts without saved settings. */
const { request, signedIn } = api;

const getSettings = (cookie: string) => request('/api/settings', { headers: { cookie } });
const putSettings = (cookie: string, body: string, contentType = 'application/json') =>
  request('/api/settings', { method: 'PUT', headers: { cookie, origin: ORIGIN, 'content-type': contentType }, body });

const settingsEvents = async (userId: string) => (await api.ctx.store.readStream(`user-${userId}`)).events.filter((e) => e.type === 'SettingsChanged');

describe('/api/settings', () => {
  test('signed out: 401', async () => {
    expect((await request('/api/settings')).status).toBe(401);
    const res = await request('/api/settings', {
      method: 'PUT',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify(DEFAULT_SETTINGS),
    });
    expect(res.status).toBe(401);
  });

  test('GET answers the defaults until the user saves once', async () => {
    const { cookie, userId } = await signedIn();
    const res = await getSettings(cookie);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(DEFAULT_SETTINGS);
    expect(await settingsEvents(userId)).toHaveLength(0);
  });

  test('PUT saves, GET returns what was saved', async () => {
    const { cookie, userId } = await signedIn();
    const settings = { ...DEFAULT_SETTINGS, weeklyReports: true, checkFrequency: 'weekly', currency: 'USD', timezone: 'Asia/Tokyo' };
    const put = await putSettings(cookie, JSON.stringify(settings));
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual(settings);
    expect(await (await getSettings(cookie)).json()).toEqual(settings);
    expect(await settingsEvents(userId)).toHaveLength(1);
  });

  test('two identical PUTs record SettingsChanged once; a change records another', async () => {
    const { cookie, userId } = await signedIn();
    const body = JSON.stringify({ ...DEFAULT_SETTINGS, currency: 'EUR' });
    expect((await putSettings(cookie, body)).status).toBe(200);
    expect((await putSettings(cookie, body)).status).toBe(200);
    expect(await settingsEvents(userId)).toHaveLength(1);
    expect((await putSettings(cookie, JSON.stringify({ ...DEFAULT_SETTINGS, currency: 'GBP' }))).status).toBe(200);
    expect(await settingsEvents(userId)).toHaveLength(2);
  });

  const { currency: _, ...withoutCurrency } = DEFAULT_SETTINGS;
  const invalid: [string, string, string][] = [
    ['checkFrequency yearly', JSON.stringify({ ...DEFAULT_SETTINGS, checkFrequency: 'yearly' }), 'checkFrequency'],
    ['currency JPY', JSON.stringify({ ...DEFAULT_SETTINGS, currency: 'JPY' }), 'currency'],
    ['timezone Mars/Base', JSON.stringify({ ...DEFAULT_SETTINGS, timezone: 'Mars/Base' }), 'timezone'],
    ['a missing field', JSON.stringify(withoutCurrency), 'currency'],
    ['a string for a boolean', JSON.stringify({ ...DEFAULT_SETTINGS, emailNotifications: 'yes' }), 'emailNotifications'],
  ];
  for (const [name, body, field] of invalid) {
    test(`${name}: 400 naming the field, nothing recorded`, async () => {
      const { cookie, userId } = await signedIn();
      const res = await putSettings(cookie, body);
      expect(res.status).toBe(400);
      const error = await res.json();
      expect(error.field).toBe(field);
      expect(error.message).toStartWith(`${field}: `);
      expect(await settingsEvents(userId)).toHaveLength(0);
      expect(await (await getSettings(cookie)).json()).toEqual(DEFAULT_SETTINGS);
    });
  }

  test('a body that is not JSON: 400 (415 when sent as another type), nothing recorded', async () => {
    const { cookie, userId } = await signedIn();
    for (const [body, type, status] of [
      ['{"emailNotifications": tru', 'application/json', 400],
      ['currency=GBP', 'application/x-www-form-urlencoded', 415],
      ['hello', 'text/plain', 415],
      ['', 'application/json', 400],
    ] as const) {
      const res = await putSettings(cookie, body, type);
      expect(res.status).toBe(status);
      expect((await res.json()).message).toBeString();
    }
    expect(await settingsEvents(userId)).toHaveLength(0);
  });

  test('an invalid PUT leaves earlier settings untouched', async () => {
    const { cookie, userId } = await signedIn();
    const saved = { ...DEFAULT_SETTINGS, currency: 'EUR' };
    await putSettings(cookie, JSON.stringify(saved));
    expect((await putSettings(cookie, JSON.stringify({ ...saved, currency: 'JPY' }))).status).toBe(400);
    expect(await (await getSettings(cookie)).json()).toEqual(saved);
    expect(await settingsEvents(userId)).toHaveLength(1);
  });

  test("a frequency faster than the plan checks: 400 naming checkFrequency and the plan's fastest, nothing recorded", async () => {
    const { cookie, userId } = await signedIn();
    const res = await putSettings(cookie, JSON.stringify({ ...DEFAULT_SETTINGS, checkFrequency: 'hourly' }));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ field: 'checkFrequency', message: 'Your Free plan checks prices daily at most: choose daily or weekly.' });
    expect(await settingsEvents(userId)).toHaveLength(0);
    await startTrial(api.ctx, userId, 'starter');
    expect((await putSettings(cookie, JSON.stringify({ ...DEFAULT_SETTINGS, checkFrequency: 'hourly' }))).status).toBe(400);
  });

  test('hourly on Growth is saved; after the plan ends the saved settings still read back', async () => {
    const { cookie, userId } = await signedIn();
    const subscriptionId = await startTrial(api.ctx, userId, 'growth');
    const hourly = { ...DEFAULT_SETTINGS, checkFrequency: 'hourly' };
    expect((await putSettings(cookie, JSON.stringify(hourly))).status).toBe(200);
    await endSubscription(api.ctx, userId, subscriptionId);
    const res = await getSettings(cookie);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(hourly);
    // Saving them again as they were is refused; the plan's pace is taken.
    expect((await putSettings(cookie, JSON.stringify(hourly))).status).toBe(400);
    expect((await putSettings(cookie, JSON.stringify({ ...hourly, checkFrequency: 'daily' }))).status).toBe(200);
  });
});
