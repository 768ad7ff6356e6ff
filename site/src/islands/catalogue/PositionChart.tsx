import { useCallback, useMemo } from 'react';
import type uPlot from 'uplot';
import type { PositionPoint } from '../../lib/api';
import { formatDateTime, formatPrice } from '../../lib/format';
import { LineChart, tooltipPlugin, type ChartColors } from '../charts/LineChart';
import { priceOverTime } from '../charts/priceOverTime';

/** Each line has its own dash as well as its own colour, so the legend reads without colour too. */
const LINES = [
  { key: 'price', label: 'Your price', colour: '--brand', dash: [] as number[], width: 2.5 },
  { key: 'cheapest', label: 'Cheapest competitor', colour: '--success', dash: [6, 4], width: 2 },
  { key: 'average', label: 'Market average', colour: '--muted-foreground', dash: [2, 3], width: 2 },
] as const;

/** A theme colour as the canvas takes it; read when the chart is (re)built, so it follows the theme. */
const themeColour = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || 'currentColor';

/** The owner's price against the cheapest counted competitor and the average, over time. */
export function PositionChart({ points, currency, height = 280 }: { points: PositionPoint[]; currency: string; height?: number }) {
  const data = useMemo(
    () =>
      [
        points.map((p) => Date.parse(p.at) / 1000),
        points.map((p) => p.price),
        points.map((p) => p.cheapest),
        points.map((p) => p.average),
      ] as uPlot.AlignedData,
    [points],
  );

  const options = useCallback(
    (colors: ChartColors): Omit<uPlot.Options, 'width' | 'height'> => ({
      legend: { show: false },
      ...priceOverTime(colors, currency),
      cursor: { y: false, drag: { x: true, y: false }, points: { size: 7, stroke: colors.background } },
      series: [
        {},
        ...LINES.map((line) => ({
          label: line.label,
          stroke: themeColour(line.colour),
          width: line.width,
          dash: [...line.dash],
          spanGaps: false,
          points: { show: points.length <= 40, size: 4, fill: themeColour(line.colour), stroke: themeColour(line.colour) },
        })),
      ],
      plugins: [
        tooltipPlugin((_u, idx) => {
          const p = points[idx];
          if (!p) return null;
          const parts = [`You ${formatPrice(p.price, currency)}`];
          if (p.cheapest !== null) parts.push(`cheapest ${formatPrice(p.cheapest, currency)}`);
          if (p.average !== null) parts.push(`average ${formatPrice(p.average, currency)}`);
          return { title: formatDateTime(p.at), value: parts.join(' · ') };
        }),
      ],
    }),
    [points, currency],
  );

  return (
    <div className="grid grid-cols-1 gap-3">
      <LineChart data={data} options={options} height={height} label="Your price, the cheapest competitor and the market average over time" />
      <ul className="flex flex-wrap gap-x-5 gap-y-1 text-xs text-muted-foreground" aria-label="Chart legend">
        {LINES.map((line) => (
          <li key={line.key} className="flex items-center gap-2">
            <svg aria-hidden="true" width="24" height="8" viewBox="0 0 24 8" style={{ color: `var(${line.colour})` }}>
              <line x1="0" y1="4" x2="24" y2="4" stroke="currentColor" strokeWidth={line.width} strokeDasharray={line.dash.join(' ') || undefined} />
            </svg>
            {line.label}
          </li>
        ))}
      </ul>
    </div>
  );
}
