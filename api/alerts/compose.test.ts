import { describe, expect, test } from 'bun:test';
import { composeAlertEmail, composeWeeklyEmail, signedPercent, type AlertMail } from './email.ts';
import { formatSignedMoney as signedMoney } from '../../domain/money.ts';
import { batchIdFor } from './outbox.ts';
import { alertIdFor } from './reactor.ts';
import { decideAlert } from '../../events/alert.ts';
import { formatPrice } from '../../site/src/lib/format.ts';
import { standingMessage, standingOf } from '../../domain/alerts.ts';

const alert = (over: Partial<AlertMail> = {}): AlertMail => ({
  alertId: 'a1',
  userId: 'u1',
  productId: 'p1',
  standing: null,
  type: 'price_drop',
  productName: 'Kettle',
  productUrl: 'https://shop.example/kettle',
  productImage: null,
  previousPrice: 20,
  currentPrice: 18,
  currency: 'GBP',
  changePercent: -10,
  thresholdPercent: null,
  message: 'Price dropped 10.0% from £20.00 to £18.00',
  trigger: { eventType: 'PriceObserved', position: 10, at: '2026-03-02T09:00:00.000Z' },
  ...over,
});

describe('formatting', () => {
  test('signed percent with one decimal, no signed zero', () => {
    expect(signedPercent(-10)).toBe('-10.0%');
    expect(signedPercent(5.25)).toBe('+5.3%');
    expect(signedPercent(0.04)).toBe('0.0%');
    expect(signedPercent(-0.04)).toBe('0.0%');
  });
  test('signed money in pounds with two decimals', () => {
    expect(signedMoney(-2, 'GBP')).toBe('-£2.00');
    expect(signedMoney(1.5, null)).toBe('+£1.50');
    expect(signedMoney(1234.5, 'GBP')).toBe('+£1,234.50');
    expect(signedMoney(0, 'GBP')).toBe('£0.00');
  });
});

describe('alert e-mail', () => {
  test('subject by type', () => {
    expect(composeAlertEmail([alert()], 'https://pw.example').subject).toBe('Price drop: Kettle is now £18.00 (-10.0%)');
    expect(composeAlertEmail([alert({ type: 'price_increase', currentPrice: 22, changePercent: 10 })], 'https://pw.example').subject).toBe(
      'Price increase: Kettle is now £22.00 (+10.0%)',
    );
    expect(composeAlertEmail([alert({ type: 'threshold_met', thresholdPercent: 5 })], 'https://pw.example').subject).toBe(
      'Price alert: Kettle is now £18.00 (-10.0%)',
    );
  });

  test('several alerts: one subject, every alert in order, the links absolute', () => {
    const mail = composeAlertEmail(
      [
        alert({ alertId: 'a2', productName: 'Toaster', trigger: { eventType: 'PriceObserved', position: 12, at: '2026-03-02T09:00:00.000Z' } }),
        alert(),
        alert({ alertId: 'a3', productName: 'Kettle', trigger: { eventType: 'PriceManuallySet', position: 14, at: '2026-03-02T09:00:00.000Z' } }),
      ],
      'https://pw.example',
    );
    expect(mail.subject).toBe('3 price alerts: Kettle and 1 more');
    expect(mail.text.indexOf('Kettle (Price Drop)')).toBeLessThan(mail.text.indexOf('Toaster (Price Drop)'));
    expect(mail.text).toContain('See all your alerts: https://pw.example/alerts');
    expect(mail.text).toContain('https://pw.example/settings');
    expect(mail.html).toContain('href="https://pw.example/alerts"');
  });

  test('HTML escapes what shops and users write', () => {
    const mail = composeAlertEmail([alert({ productName: '<script>x</script> & "Co"', productUrl: 'https://shop.example/?a=1&b="2"' })], 'https://pw.example');
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('&lt;script&gt;x&lt;/script&gt; &amp; &quot;Co&quot;');
    expect(mail.html).toContain('href="https://shop.example/?a=1&amp;b=&quot;2&quot;"');
  });

  test("prices in the shop's currency when known", () => {
    const mail = composeAlertEmail([alert({ currency: 'EUR' })], 'https://pw.example');
    expect(mail.text).toContain('Previous price: €20.00');
    expect(mail.text).toContain('Change:         -10.0% (-€2.00)');
  });
});

describe('money as the app shows it', () => {
  test('a yen price drop says ¥1,180 in the e-mail, as the app does; dinars keep their three decimals', () => {
    const decided = decideAlert({ kind: 'any' }, { price: 1280, currency: 'JPY' }, { price: 1180, currency: 'JPY' })!;
    const mail = composeAlertEmail(
      [alert({ currency: 'JPY', previousPrice: 1280, currentPrice: 1180, changePercent: decided.changePercent, message: decided.message })],
      'https://pw.example',
    );
    expect(formatPrice(1180, 'JPY')).toBe('JP¥1,180');
    expect(mail.subject).toBe(`Price drop: Kettle is now ${formatPrice(1180, 'JPY')} (-7.8%)`);
    expect(mail.text).toContain('Price dropped 7.8% from JP¥1,280 to JP¥1,180');
    expect(mail.text).toContain('Change:         -7.8% (-JP¥100)');
    expect(mail.html).toContain('JP¥1,180');
    expect(`${mail.text}${mail.html}`).not.toContain('1,180.00');
    const dinars = composeAlertEmail([alert({ currency: 'KWD', previousPrice: 1.5, currentPrice: 1.234 })], 'https://pw.example');
    expect(dinars.subject).toContain(formatPrice(1.234, 'KWD'));
    expect(dinars.subject).toContain('KWD');
    expect(dinars.subject).toContain('1.234');
  });
});

describe('stock alert e-mail', () => {
  const outOfStock = alert({
    type: 'out_of_stock',
    message: 'Out of stock',
    previousPrice: 24.99,
    currentPrice: null,
    changePercent: null,
    trigger: { eventType: 'PriceCheckFailed', position: 10, at: '2026-03-02T09:00:00.000Z' },
  });
  const backInStock = alert({ type: 'back_in_stock', message: 'Back in stock at £22.00', previousPrice: 24.99, currentPrice: 22, changePercent: -11.9648 });

  test('out of stock: the subject and the last known price, no change without a current price', () => {
    const mail = composeAlertEmail([outOfStock], 'https://pw.example');
    expect(mail.subject).toBe('Out of stock: Kettle');
    expect(mail.text).toContain('A product you monitor has gone out of stock.');
    expect(mail.text).toContain('Kettle (Out of Stock)\n  Out of stock\n  Last known price: £24.99\n  Product page:   https://shop.example/kettle');
    expect(mail.text).not.toContain('Change:');
    expect(mail.html).toContain('Out of Stock');
  });

  test('back in stock: the price on the page', () => {
    const mail = composeAlertEmail([backInStock], 'https://pw.example');
    expect(mail.subject).toBe('Back in stock: Kettle at £22.00');
    expect(mail.text).toContain('Back in stock at £22.00');
    expect(mail.text).toContain('Price on the page: £22.00');
    expect(composeAlertEmail([{ ...backInStock, currentPrice: null, previousPrice: null }], 'https://pw.example').subject).toBe('Back in stock: Kettle');
  });

  test('mixed with price alerts: one e-mail', () => {
    const mail = composeAlertEmail(
      [alert({ alertId: 'a2', trigger: { eventType: 'PriceObserved', position: 9, at: '2026-03-02T09:00:00.000Z' } }), outOfStock],
      'https://pw.example',
    );
    expect(mail.subject).toBe('2 alerts: Kettle');
    expect(mail.text).toContain('2 products you monitor have changed.');
    expect(mail.text.indexOf('(Price Drop)')).toBeLessThan(mail.text.indexOf('(Out of Stock)'));
  });
});

describe('undercut and cheapest e-mail', () => {
  const standing = (ownPrice: number, competitorPrice: number) =>
    standingOf({ ownProductId: 'o1', title: 'Trail Jacket', price: ownPrice }, { name: 'Acme', host: 'acme.example', price: competitorPrice });
  const position = (type: 'undercut' | 'cheapest', ownPrice: number, competitorPrice: number, over: Partial<AlertMail> = {}) => {
    const s = standing(ownPrice, competitorPrice);
    return alert({
      type,
      productName: 'Acme',
      productUrl: 'https://acme.example/jacket',
      previousPrice: ownPrice,
      currentPrice: competitorPrice,
      changePercent: null,
      message: standingMessage(type, s, 'GBP'),
      standing: s,
      trigger: { eventType: type === 'undercut' ? 'PriceObserved' : 'OwnPriceChanged', position: 10, at: '2026-03-02T09:00:00.000Z' },
      ...over,
    });
  };

  test('undercut: the competitor, both prices and the gap', () => {
    const mail = composeAlertEmail([position('undercut', 99, 95)], 'https://pw.example');
    expect(mail.subject).toBe('Undercut: Acme is at £95.00 for your Trail Jacket');
    expect(mail.text).toContain('A competitor went below your price.');
    expect(mail.text).toContain(
      [
        'Trail Jacket (Undercut)',
        '  Acme (acme.example) undercut your Trail Jacket: £95.00 against your £99.00 (£4.00, 4.2% below you).',
        '  Your price:     £99.00',
        '  Acme:           £95.00',
        '  Gap:            £4.00, 4.2% below you',
        '  Their page:     https://acme.example/jacket',
      ].join('\n'),
    );
    expect(mail.html).toContain('Undercut');
    expect(mail.html).toContain('View Acme’s page');
    expect(mail.html).not.toContain('>Change<');
  });

  test("cheapest: you're the cheapest again, the competitor's price beside yours", () => {
    const mail = composeAlertEmail([position('cheapest', 99, 101)], 'https://pw.example');
    expect(mail.subject).toBe("You're the cheapest for Trail Jacket again");
    expect(mail.text).toContain("You're the cheapest for Trail Jacket again: £99.00, Acme is at £101.00.");
    expect(mail.text).toContain('Gap:            £2.00, 2.0% above you');
    expect(mail.html).toContain('You&#39;re cheapest');
  });

  test('with other alerts: one e-mail, named by the own product', () => {
    const mail = composeAlertEmail(
      [position('undercut', 99, 95, { alertId: 'a2', trigger: { eventType: 'PriceObserved', position: 12, at: '2026-03-02T09:00:00.000Z' } }), alert()],
      'https://pw.example',
    );
    expect(mail.subject).toBe('2 alerts: Kettle and 1 more');
    expect(mail.text).toContain('2 products you monitor have changed.');
    expect(mail.text.indexOf('Kettle (Price Drop)')).toBeLessThan(mail.text.indexOf('Trail Jacket (Undercut)'));
  });
});

describe('weekly e-mail', () => {
  test('one line per product, the busiest first', () => {
    const mail = composeWeeklyEmail(
      {
        weekOf: '2026-03-02',
        products: [
          { name: 'Quiet', url: 'https://shop.example/q', currency: 'GBP', startPrice: 10, endPrice: 10, low: 10, high: 10, changes: 0 },
          { name: 'Busy', url: 'https://shop.example/b', currency: 'GBP', startPrice: 100, endPrice: 90, low: 85, high: 100, changes: 4 },
          { name: 'New', url: 'https://shop.example/n', currency: null, startPrice: null, endPrice: null, low: null, high: null, changes: 0 },
        ],
      },
      'https://pw.example',
    );
    expect(mail.subject).toBe('Your weekly price report, week of 2 March 2026');
    expect(mail.text).toContain('1 of your 3 products changed price in the last 7 days.');
    expect(mail.text.indexOf('Busy')).toBeLessThan(mail.text.indexOf('Quiet'));
    expect(mail.text).toContain('Busy\n  £100.00 -> £90.00 (-10.0%), 4 changes; low £85.00, high £100.00');
    expect(mail.text).toContain('New\n  — -> — (—), 0 changes; low —, high —');
  });

  test('no products', () => {
    expect(composeWeeklyEmail({ weekOf: '2026-03-02', products: [] }, 'https://pw.example').text).toContain('You are not monitoring any products yet.');
  });
});

describe('batching and retries', () => {
  test('a batch is named by its contents, whatever their order', () => {
    expect(batchIdFor('alerts', ['a', 'b', 'c'])).toBe(batchIdFor('alerts', ['c', 'a', 'b']));
    expect(batchIdFor('alerts', ['a', 'b'])).not.toBe(batchIdFor('alerts', ['a', 'b', 'c']));
    expect(batchIdFor('alerts', ['a'])).not.toBe(batchIdFor('weekly', ['a']));
  });

  test('an alert is named by the event that raised it', () => {
    expect(alertIdFor(42)).toBe(alertIdFor(42));
    expect(alertIdFor(42)).not.toBe(alertIdFor(43));
    expect(alertIdFor(42, 'stock')).not.toBe(alertIdFor(42));
    expect(alertIdFor(42)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });
});
