import { useCallback, useMemo } from 'react';
import type { PositionPoint } from '../../lib/api';
import { formatDateTime, formatPrice } from '../../lib/format';
import { PriceLinesChart, type PriceLine } from '../charts/PriceLinesChart';

const LINES: readonly PriceLine[] = [
  { key: 'price', label: 'Your price', colour: '--brand', dash: [], width: 2.5 },
  { key: 'cheapest', label: 'Cheapest competitor', colour: '--success', dash: [6, 4], width: 2 },
  { key: 'average', label: 'Market average', colour: '--muted-foreground', dash: [2, 3], width: 2 },
];

/** The owner's price against the cheapest counted competitor and the average, over time. */
export function PositionChart({ points, currency, height = 280 }: { points: PositionPoint[]; currency: string; height?: number }) {
  const times = useMemo(() => points.map((p) => Date.parse(p.at) / 1000), [points]);
  const values = useMemo(() => [points.map((p) => p.price), points.map((p) => p.cheapest), points.map((p) => p.average)], [points]);
  const tooltip = useCallback(
    (idx: number) => {
      const p = points[idx];
      if (!p) return null;
      const parts = [`You ${formatPrice(p.price, currency)}`];
      if (p.cheapest !== null) parts.push(`cheapest ${formatPrice(p.cheapest, currency)}`);
      if (p.average !== null) parts.push(`average ${formatPrice(p.average, currency)}`);
      return { title: formatDateTime(p.at), value: parts.join(' · ') };
    },
    [points, currency],
  );
  return (
    <PriceLinesChart
      lines={LINES}
      times={times}
      values={values}
      currency={currency}
      height={height}
      label="Your price, the cheapest competitor and the market average over time"
      legendLabel="Chart legend"
      showPoints={points.length <= 40}
      tooltip={tooltip}
    />
  );
}
