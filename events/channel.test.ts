import { describe, expect, test } from 'bun:test';
import { channelDecider, normaliseAlertTypes, type ChannelCommand, type ChannelEvent, type ChannelState } from './channel.ts';
import { fold } from './decider.ts';
import { deciderSpec } from './testing.ts';

const channelId = 'c1',
  owner = 'u1';
const added: ChannelEvent = {
  type: 'ChannelAdded',
  data: { channelId, userId: owner, type: 'slack', name: 'Slack', target: 'https://hooks.slack.com/…abcd', alertTypes: ['price_drop', 'out_of_stock'] },
};
const decide = (history: ChannelEvent[], command: ChannelCommand) => deciderSpec(channelDecider).given(history).when(command);
const stateAfter = (history: ChannelEvent[]) => fold(channelDecider, history) as Extract<ChannelState, { status: 'active' }>;

describe('channel decider', () => {
  test('adding records the channel with its alert types in canonical order, once', () => {
    const [event] = decide([], {
      type: 'AddChannel',
      channelId,
      userId: owner,
      channelType: 'webhook',
      name: 'Hook',
      target: 'https://x',
      alertTypes: ['back_in_stock', 'price_drop', 'price_drop'],
    });
    expect(event).toEqual({
      type: 'ChannelAdded',
      data: { channelId, userId: owner, type: 'webhook', name: 'Hook', target: 'https://x', alertTypes: ['price_drop', 'back_in_stock'] },
    });
    expect(() => decide([added], { type: 'AddChannel', channelId, userId: owner, channelType: 'slack', name: 'x', target: 'x', alertTypes: [] })).toThrow(
      'already exists',
    );
  });

  test('changes record the whole new state; nothing when nothing changes', () => {
    const [changed] = decide([added], { type: 'ChangeChannel', userId: owner, name: 'Team', enabled: false });
    expect(changed).toEqual({
      type: 'ChannelChanged',
      data: { channelId, userId: owner, name: 'Team', enabled: false, alertTypes: ['price_drop', 'out_of_stock'], disabledReason: null },
    });
    expect(decide([added], { type: 'ChangeChannel', userId: owner, name: 'Slack', alertTypes: ['out_of_stock', 'price_drop'] })).toEqual([]);
  });

  test("another user's channel, or a removed one, is not found", () => {
    expect(() => decide([added], { type: 'ChangeChannel', userId: 'u2', enabled: false })).toThrow('Channel not found');
    expect(() => decide([added], { type: 'RemoveChannel', userId: 'u2' })).toThrow('Channel not found');
    const removed: ChannelEvent = { type: 'ChannelRemoved', data: { channelId, userId: owner } };
    expect(() => decide([added, removed], { type: 'ChangeChannel', userId: owner, enabled: true })).toThrow('Channel not found');
    expect(decide([added, removed], { type: 'DisableChannel', reason: 'x' })).toEqual([]);
  });

  test('Pricewatch turning a channel off keeps why until the user switches it on again', () => {
    const [off] = decide([added], { type: 'DisableChannel', reason: 'Turned off after 15 failed deliveries in a row.' });
    expect(off!.data).toMatchObject({ enabled: false, disabledReason: 'Turned off after 15 failed deliveries in a row.' });
    expect(decide([added, off!], { type: 'DisableChannel', reason: 'again' })).toEqual([]);
    expect(stateAfter([added, off!]).disabledReason).toContain('15 failed');
    // Renaming keeps the reason; switching on clears it.
    const [renamed] = decide([added, off!], { type: 'ChangeChannel', userId: owner, name: 'Renamed' });
    expect(renamed!.data).toMatchObject({ enabled: false, disabledReason: 'Turned off after 15 failed deliveries in a row.' });
    const [on] = decide([added, off!], { type: 'ChangeChannel', userId: owner, enabled: true });
    expect(on!.data).toMatchObject({ enabled: true, disabledReason: null });
  });

  test('alert types are kept in one order', () => {
    expect(normaliseAlertTypes(['back_in_stock', 'threshold_met', 'price_drop'])).toEqual(['price_drop', 'threshold_met', 'back_in_stock']);
  });
});
