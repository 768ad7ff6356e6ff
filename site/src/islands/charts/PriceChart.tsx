import { useCallback, useMemo } from 'react';
import type uPlot from 'uplot';
import type { PricePoint } from '../../lib/api';
import { priceChartData } from '../../lib/charts';
import { formatDateTime, formatPrice } from '../../lib/format';
import { currencySymbol } from '../../../../domain/money.ts';
import { LineChart, tooltipPlugin, type ChartColors } from './LineChart';
import { priceOverTime } from './priceOverTime';

/** A product's prices over time, in its currency and the user's time zone; drag across it to zoom in, double-click to zoom out. */
export function PriceChart({ points, currency, height = 320 }: { points: PricePoint[]; currency: string; height?: number }) {
  const data = useMemo(() => priceChartData(points) as uPlot.AlignedData, [points]);

  const options = useCallback(
    (colors: ChartColors): Omit<uPlot.Options, 'width' | 'height'> => ({
      legend: { show: false },
      ...priceOverTime(colors, currency, { dateLabel: 'Date' }),
      cursor: { y: false, drag: { x: true, y: false }, points: { size: 8, fill: colors.line, stroke: colors.background } },
      series: [
        {},
        {
          stroke: colors.line,
          width: 2,
          fill: colors.fill,
          points: { show: points.length <= 60, size: 5, fill: colors.line, stroke: colors.line },
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
