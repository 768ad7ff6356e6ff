import { useCallback, useMemo } from 'react';
import type { BacktestDay } from '../../lib/api';
import { formatDate, formatPrice } from '../../lib/format';
import { PriceLinesChart, type PriceLine } from '../charts/PriceLinesChart';

const LINES: readonly PriceLine[] = [
  { key: 'recommended', label: "The rule's price", colour: '--brand', dash: [], width: 2.5 },
  { key: 'actual', label: 'Your actual price', colour: '--muted-foreground', dash: [2, 3], width: 2 },
  { key: 'cheapest', label: 'Cheapest competitor', colour: '--success', dash: [6, 4], width: 2 },
];

/** A day's close, placed at noon UTC so it sits mid-day in any zone near it. */
const dayTime = (date: string) => Date.parse(`${date}T12:00:00Z`) / 1000;

/** What the rule would have priced each day, against the owner's actual price and the cheapest counted competitor. */
export function BacktestChart({ days, currency, height = 240 }: { days: readonly BacktestDay[]; currency: string; height?: number }) {
  const times = useMemo(() => days.map((d) => dayTime(d.date)), [days]);
  const values = useMemo(() => [days.map((d) => d.recommended), days.map((d) => d.actual), days.map((d) => d.cheapest)], [days]);
  const tooltip = useCallback(
    (idx: number) => {
      const d = days[idx];
      if (!d) return null;
      const parts = [`Rule ${formatPrice(d.recommended, currency)}`, `you ${formatPrice(d.actual, currency)}`];
      if (d.cheapest !== null) parts.push(`cheapest ${formatPrice(d.cheapest, currency)}`);
      return { title: formatDate(`${d.date}T12:00:00Z`), value: parts.join(' · ') };
    },
    [days, currency],
  );
  return (
    <PriceLinesChart
      lines={LINES}
      times={times}
      values={values}
      currency={currency}
      height={height}
      label="The rule's price, your actual price and the cheapest competitor, day by day"
      legendLabel="Backtest chart legend"
      showPoints={days.length <= 31}
      tooltip={tooltip}
    />
  );
}
