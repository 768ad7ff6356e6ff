import { useCallback, useMemo } from 'react';
import type uPlot from 'uplot';
import { LineChart, tooltipPlugin, type ChartColors, type TooltipText } from './LineChart';
import { priceOverTime } from './priceOverTime';

/** One price line: each has its own dash as well as its own colour, so the legend reads without colour too. */
export type PriceLine = { key: string; label: string; colour: string; dash: readonly number[]; width: number };

/** A theme colour as the canvas takes it; read when the chart is (re)built, so it follows the theme. */
const themeColour = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || 'currentColor';

/**
 * A few price lines over time with their legend below: the catalogue's position over time and a
 * pricing rule's backtest. `values[k]` are the prices of `lines[k]` at `times` (Unix seconds).
 */
export function PriceLinesChart({
  lines,
  times,
  values,
  currency,
  height,
  label,
  legendLabel,
  showPoints,
  tooltip,
}: {
  lines: readonly PriceLine[];
  times: readonly number[];
  values: readonly (readonly (number | null)[])[];
  currency: string;
  height: number;
  label: string;
  legendLabel: string;
  showPoints: boolean;
  tooltip: (idx: number) => TooltipText | null;
}) {
  const data = useMemo(() => [times, ...values] as uPlot.AlignedData, [times, values]);
  const options = useCallback(
    (colors: ChartColors): Omit<uPlot.Options, 'width' | 'height'> => ({
      legend: { show: false },
      ...priceOverTime(colors, currency),
      cursor: { y: false, drag: { x: true, y: false }, points: { size: 7, stroke: colors.background } },
      series: [
        {},
        ...lines.map((line) => ({
          label: line.label,
          stroke: themeColour(line.colour),
          width: line.width,
          dash: [...line.dash],
          spanGaps: false,
          points: { show: showPoints, size: 4, fill: themeColour(line.colour), stroke: themeColour(line.colour) },
        })),
      ],
      plugins: [tooltipPlugin((_u, idx) => tooltip(idx))],
    }),
    [lines, currency, showPoints, tooltip],
  );

  return (
    <div className="grid grid-cols-1 gap-3">
      <LineChart data={data} options={options} height={height} label={label} />
      <ul className="flex flex-wrap gap-x-5 gap-y-1 text-xs text-muted-foreground" aria-label={legendLabel}>
        {lines.map((line) => (
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
