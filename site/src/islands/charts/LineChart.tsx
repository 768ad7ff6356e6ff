import { useEffect, useRef } from 'react';
import { useStore } from '@nanostores/react';
import type uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { cn } from '../../lib/utils';
import { $resolvedTheme } from '../../stores/theme';

/** The theme's colours as canvas colours, read from the CSS variables of the page. */
export type ChartColors = {
  text: string;
  grid: string;
  line: string;
  fill: string;
  background: string;
  font: string;
  labelFont: string;
};

type LineChartProps = {
  data: uPlot.AlignedData;
  /** The chart's options for the theme's colours; keep it stable (useCallback) to avoid redraws. */
  options: (colors: ChartColors) => Omit<uPlot.Options, 'width' | 'height'>;
  /** Pixels; without it the chart fills its positioned parent (absolute, inset 0). Its width is always its container's. */
  height?: number;
  /** What the chart shows, for screen readers. */
  label: string;
  className?: string;
};

/** A uPlot chart that follows the light/dark theme and the size of its container. */
export function LineChart({ data, options, height, label, className }: LineChartProps) {
  const ref = useRef<HTMLDivElement>(null);
  const theme = useStore($resolvedTheme);

  useEffect(() => {
    const el = ref.current!;
    const size = () => ({ width: el.clientWidth, height: height ?? el.clientHeight });
    let chart: uPlot | undefined;
    let resize: ResizeObserver | undefined;
    let unmounted = false;
    // uPlot (about 21 KB compressed) loads when a chart is first drawn, not with the page: the screen shows meanwhile.
    import('uplot').then(({ default: UPlot }) => {
      if (unmounted) return;
      const drawn = new UPlot({ ...options(readColors(el)), ...size() }, data, el);
      // uPlot's stylesheet sets its own font (unlayered, so utilities cannot override it); the page's is wanted.
      drawn.root.style.fontFamily = 'inherit';
      resize = new ResizeObserver(() => {
        const next = size();
        if (next.width !== drawn.width || next.height !== drawn.height) drawn.setSize(next);
      });
      resize.observe(el);
      chart = drawn;
    });
    return () => {
      unmounted = true;
      resize?.disconnect();
      chart?.destroy();
    };
    // The theme is read from the page's CSS inside, so a theme change must rebuild the chart.
  }, [data, options, height, theme]);

  // uPlot draws into the absolutely placed inner box: its canvas, sized in pixels, then never widens the
  // layout, so the box (and the chart, through the ResizeObserver) follows the container as it narrows.
  const chart = <div ref={ref} className="absolute inset-0" />;
  return height === undefined ? (
    <div role="img" aria-label={label} className={cn('absolute inset-0 min-w-0', className)}>
      {chart}
    </div>
  ) : (
    <div role="img" aria-label={label} className={cn('relative w-full min-w-0', className)} style={{ height }}>
      {chart}
    </div>
  );
}

let probe: CanvasRenderingContext2D | null = null;

/** Any CSS colour (the theme uses oklch) as rgba, so an alpha can be applied for fills. */
function toRgba(color: string, alpha?: number): string {
  probe ??= document.createElement('canvas').getContext('2d', { willReadFrequently: true })!;
  probe.clearRect(0, 0, 1, 1);
  probe.fillStyle = '#000';
  probe.fillStyle = color;
  probe.fillRect(0, 0, 1, 1);
  const [r, g, b, a] = probe.getImageData(0, 0, 1, 1).data;
  return `rgba(${r}, ${g}, ${b}, ${alpha ?? Math.round((a! / 255) * 1000) / 1000})`;
}

function readColors(el: HTMLElement): ChartColors {
  const style = getComputedStyle(el);
  const variable = (name: string) => style.getPropertyValue(name).trim();
  const family = style.fontFamily || 'system-ui, sans-serif';
  return {
    text: toRgba(variable('--muted-foreground')),
    grid: toRgba(variable('--border')),
    line: toRgba(variable('--brand')),
    fill: toRgba(variable('--brand'), 0.12),
    background: toRgba(variable('--card')),
    font: `12px ${family}`,
    labelFont: `500 12px ${family}`,
  };
}

export type TooltipText = { title: string; value: string };

/**
 * A small readout next to the point under the cursor. `text` gets the data index and returns
 * what to show, or null to hide it.
 */
export function tooltipPlugin(text: (chart: uPlot, idx: number) => TooltipText | null): uPlot.Plugin {
  let tip: HTMLDivElement;
  let title: HTMLDivElement;
  let value: HTMLDivElement;
  return {
    hooks: {
      init: (chart) => {
        tip = document.createElement('div');
        tip.className =
          'pointer-events-none absolute z-10 hidden whitespace-nowrap rounded-md border bg-popover px-2.5 py-1.5 text-xs text-popover-foreground shadow-md';
        title = document.createElement('div');
        title.className = 'text-muted-foreground';
        value = document.createElement('div');
        value.className = 'font-medium';
        tip.append(title, value);
        chart.over.appendChild(tip);
      },
      setCursor: (chart) => {
        const idx = chart.cursor.idx;
        const shown = idx == null ? null : text(chart, idx);
        if (!shown || idx == null) {
          tip.style.display = 'none';
          return;
        }
        title.textContent = shown.title;
        value.textContent = shown.value;
        tip.style.display = 'block';
        const x = chart.valToPos(chart.data[0][idx]!, 'x');
        const y = chart.data[1]![idx];
        const top = y == null ? (chart.cursor.top ?? 0) : chart.valToPos(y, 'y');
        const width = tip.offsetWidth;
        const left = x + 12 + width > chart.over.clientWidth ? x - 12 - width : x + 12;
        tip.style.left = `${Math.max(0, left)}px`;
        tip.style.top = `${Math.max(0, top - tip.offsetHeight - 8)}px`;
      },
    },
  };
}
