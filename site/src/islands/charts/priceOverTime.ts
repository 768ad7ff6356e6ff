import type uPlot from 'uplot';
import { priceRange, priceTick, timeAxisLabels, timeRange } from '../../lib/charts';
import { zonedDate } from '../../lib/format';
import { currencySymbol } from '../../../../domain/money.ts';
import type { ChartColors } from './LineChart';

/** The scales and axes of a chart of prices over time: dates along the bottom, prices in `currency` up the side. */
export function priceOverTime(
  colors: ChartColors,
  currency: string,
  { dateLabel }: { dateLabel?: string } = {},
): Pick<uPlot.Options, 'tzDate' | 'scales' | 'axes'> {
  return {
    // Ticks fall on the user's hours and midnights, not the browser's.
    tzDate: zonedDate,
    scales: {
      // A single point or checks seconds apart are not squeezed into a range of next to nothing.
      x: { time: true, range: (_u, min, max) => timeRange(min, max) },
      y: { range: (_u, min, max) => priceRange(min, max) },
    },
    axes: [
      {
        ...(dateLabel ? { label: dateLabel, labelFont: colors.labelFont, labelSize: 20 } : {}),
        stroke: colors.text,
        font: colors.font,
        space: 80,
        grid: { show: false },
        ticks: { stroke: colors.grid },
        values: (u, splits) => timeAxisLabels(splits, (u.scales.x!.max ?? 0) - (u.scales.x!.min ?? 0)),
      },
      {
        label: `Price (${currencySymbol(currency)})`,
        labelFont: colors.labelFont,
        labelSize: 20,
        stroke: colors.text,
        font: colors.font,
        size: 64,
        grid: { stroke: colors.grid, width: 1 },
        ticks: { show: false },
        values: (_u, values) => values.map((v) => priceTick(v, currency)),
      },
    ],
  };
}
