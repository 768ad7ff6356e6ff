import { useCallback, useMemo } from 'react';
import type uPlot from 'uplot';
import { percentRange, tickIndexes, trendChartData, trendDayLabel, trendDayTitle, type DayOfChanges, type TrendRange } from '../../lib/charts';
import { formatSignedPercent } from '../../lib/format';
import { LineChart, tooltipPlugin, type ChartColors } from './LineChart';

type TrendChartProps = { days: DayOfChanges[]; range: TrendRange; height?: number };

/** Average change percent per day; days without changes are gaps, not zeros. */
/** Without a height it fills its positioned parent. */
export function TrendChart({ days, range, height }: TrendChartProps) {
  const data = useMemo(() => trendChartData(days) as uPlot.AlignedData, [days]);

  const options = useCallback(
    (colors: ChartColors): Omit<uPlot.Options, 'width' | 'height'> => {
      const labels = days.map((d) => trendDayLabel(d.date, range));
      // Weekday names are short; dates need more room.
      const labelSpace = range === '7D' ? 34 : 64;
      return {
        legend: { show: false },
        cursor: { y: false, drag: { x: false, y: false }, points: { size: 8, fill: colors.line, stroke: colors.background } },
        scales: {
          x: { time: false, range: () => [-0.4, Math.max(days.length - 0.6, 0.6)] },
          y: { range: (_u, min, max) => percentRange(min, max) },
        },
        series: [
          {},
          {
            stroke: colors.line,
            width: 2,
            fill: colors.fill,
            fillTo: 0,
            spanGaps: false,
            points: { show: true, size: range === '90D' ? 4 : 6, fill: colors.line, stroke: colors.line },
          },
        ],
        axes: [
          {
            stroke: colors.text,
            font: colors.font,
            grid: { show: false },
            ticks: { show: false },
            splits: (u) => tickIndexes(days.length, Math.max(2, Math.floor(u.bbox.width / devicePixelRatio / labelSpace))),
            values: (_u, splits) => splits.map((i) => labels[i] ?? ''),
          },
          {
            stroke: colors.text,
            font: colors.font,
            size: 56,
            grid: { stroke: colors.grid, width: 1 },
            ticks: { show: false },
            values: (_u, values) => values.map((v) => `${Number(v.toFixed(2))}%`),
          },
        ],
        plugins: [
          tooltipPlugin((_u, idx) => {
            const day = days[idx];
            if (!day) return null;
            return {
              title: trendDayTitle(day.date),
              value:
                day.averageChangePercent === null
                  ? 'No price changes'
                  : `${formatSignedPercent(day.averageChangePercent)} average · ${day.changes} ${day.changes === 1 ? 'change' : 'changes'}`,
            };
          }),
        ],
      };
    },
    [days, range],
  );

  return <LineChart data={data} options={options} height={height} label={`Average daily price change, ${range}`} />;
}
