import { useCallback, useMemo } from 'react';
import type uPlot from 'uplot';
import type { BacktestDay } from '../../lib/api';
import { formatDate, formatPrice } from '../../lib/format';
import { LineChart, tooltipPlugin, type ChartColors } from '../charts/LineChart';
import { priceOverTime } from '../charts/priceOverTime';

/** Each line has its own dash as well as its own colour, so the legend reads without colour too (as PositionChart). */
const LINES = [
  { key: 'recommended', label: "The rule's price", colour: '--brand', dash: [] as number[], width: 2.5 },
  { key: 'actual', label: 'Your actual price', colour: '--muted-foreground', dash: [2, 3], width: 2 },
  { key: 'cheapest', label: 'Cheapest competitor', colour: '--success', dash: [6, 4], width: 2 },
] as const;

const themeColour = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || 'currentColor';
/** A day's close, placed at noon UTC so it sits mid-day in any zone near it. */
const dayTime = (date: string) => Date.parse(`${date}T12:00:00Z`) / 1000;

/** What the rule would have priced each day, against the owner's actual price and the cheapest counted competitor. */
export function BacktestChart({ days, currency, height = 240 }: { days: readonly BacktestDay[]; currency: string; height?: number }) {
  const data = useMemo(
    () => [days.map((d) => dayTime(d.date)), days.map((d) => d.recommended), days.map((d) => d.actual), days.map((d) => d.cheapest)] as uPlot.AlignedData,
    [days],
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
          points: { show: days.length <= 31, size: 4, fill: themeColour(line.colour), stroke: themeColour(line.colour) },
        })),
      ],
      plugins: [
        tooltipPlugin((_u, idx) => {
          const d = days[idx];
          if (!d) return null;
          const parts = [`Rule ${formatPrice(d.recommended, currency)}`, `you ${formatPrice(d.actual, currency)}`];
          if (d.cheapest !== null) parts.push(`cheapest ${formatPrice(d.cheapest, currency)}`);
          return { title: formatDate(`${d.date}T12:00:00Z`), value: parts.join(' · ') };
        }),
      ],
    }),
    [days, currency],
  );

  return (
    <div className="grid grid-cols-1 gap-3">
      <LineChart data={data} options={options} height={height} label="The rule's price, your actual price and the cheapest competitor, day by day" />
      <ul className="flex flex-wrap gap-x-5 gap-y-1 text-xs text-muted-foreground" aria-label="Backtest chart legend">
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
