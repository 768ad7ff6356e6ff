import { expect, test } from 'bun:test';
import { Settings } from '../../../events/catalogue';
import { CHECK_FREQUENCIES, CURRENCIES, TIMEZONES } from './settings';

test('the screen offers exactly the values the server accepts', () => {
  const values = (choices: { value: string }[]) => choices.map((c) => c.value);
  expect(values(CHECK_FREQUENCIES)).toEqual(Settings.shape.checkFrequency.options);
  expect(values(CURRENCIES)).toEqual(Settings.shape.currency.options);
  expect(values(TIMEZONES)).toEqual(Settings.shape.timezone.options);
});
