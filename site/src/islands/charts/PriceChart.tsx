import { useCallback, useMemo } from 'react';
import type uPlot from 'uplot';
import type { PricePoint } from '../../lib/api';
import { priceChartData, priceRange, priceTick, timeAxisLabels, timeRange } from '../../lib/charts';
import { formatDateTime, formatPrice, zonedDate } from '../../lib/format';
import { currencySymbol } from '../../../../domain/money.ts';
import { LineChart, tooltipPlugin, type ChartColors } from './LineChart';

/** A product's prices over time, in its currency and the user's time zone; drag across it to zoom in, double-click to zoom out. */
export function PriceChart({ points, currency, height = 320 }: { points: PricePoint[]; currency: string; height?: number }) {
  const data = useMemo(() => priceChartData(points) as uPlot.AlignedData, [points]);

  const options = useCallback(
    (colors: ChartColors): Omit<uPlot.Options, 'width' | 'height'> => ({
      legend: { show: false },
      // Ticks fall on the user's hours and midnights, not the browser's.
      tzDate: zonedDate,
      cursor: { y: false, drag: { x: true, y: false }, points: { size: 8, fill: colors.line, stroke: colors.background } },
      scales: {
        // A single point or checks seconds apart are not squeezed into a range of next to nothing.
        x: { time: true, range: (_u, min, max) => timeRange(min, max) },
        y: { range: (_u, min, max) => priceRange(min, max) },
      },
      series: [
        {},
        {
          stroke: colors.line,
          width: 2,
          fill: colors.fill,
          points: { show: points.length <= 60, size: 5, fill: colors.line, stroke: colors.line },
        },
      ],
      axes: [
        {
          label: 'Date',
          labelFont: colors.labelFont,
          labelSize: 20,
          stroke: colors.text,
          font: colors.font,
          space: 80,
          grid: { show: false },
          ticks: { stroke: colors.grid },
          values: (u, splits) => {
            const span = (u.scales.x!.max ?? 0) - (u.scales.x!.min ?? 0);
            return timeAxisLabels(splits, span);
          },
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
      plugins: [
        tooltipPlugin((_u, idx) => {
          const point = points[idx];
          return point ? { title: formatDateTime(point.timestamp), value: `Price: ${formatPrice(point.price, currency)}` } : null;
        }),
      ],
    }),
    [points, currency],
  );

  return <LineChart data={data} options={options} height={height} label={`Price over time (${currencySymbol(currency)})`} />;
}
