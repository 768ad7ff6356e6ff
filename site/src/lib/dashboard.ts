/**
 * The dashboard's four summary cards from the stats answer. Every figure and trend comes from
 * data; a trend without a baseline is left out rather than invented.
 */
import type { DashboardStats } from './api';
import { formatSignedPercent, relativeTime } from './format';

/** Colour and arrow of a card's change badge. */
export type ChangeType = 'positive' | 'negative' | 'warning' | 'success' | 'neutral';

export type StatCard = {
  id: 'products' | 'drops' | 'alerts' | 'scan';
  title: string;
  value: string;
  /** The badge ('+12.0%', '+3', 'OK'); absent when there is nothing to compare with. */
  change?: string;
  /** The words after the badge, or alone when there is no badge. */
  label?: string;
  changeType: ChangeType;
};

const byDirection = (percent: number): ChangeType => (Number(percent.toFixed(1)) > 0 ? 'positive' : Number(percent.toFixed(1)) < 0 ? 'negative' : 'neutral');

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function statCards(stats: DashboardStats, now: number | Date = Date.now()): StatCard[] {
  const { trends, lastScan } = stats;
  return [
    {
      id: 'products',
      title: 'Products Monitored',
      value: String(stats.productsCount),
      ...(trends.productsCount && {
        change: formatSignedPercent(trends.productsCount.changePercent),
        label: 'vs last month',
      }),
      changeType: trends.productsCount ? byDirection(trends.productsCount.changePercent) : 'neutral',
    },
    {
      id: 'drops',
      title: 'Price Drops Detected',
      value: String(stats.priceDropsCount),
      // Without last week's figure the count still needs its period.
      ...(trends.priceDropsCount
        ? { change: formatSignedPercent(trends.priceDropsCount.changePercent), label: 'vs last week' }
        : { label: 'in the last 7 days' }),
      changeType: trends.priceDropsCount ? byDirection(trends.priceDropsCount.changePercent) : 'neutral',
    },
    {
      // Active: unread. New today: the unread ones raised since midnight, so never more than the value.
      id: 'alerts',
      title: 'Active Alerts',
      value: String(stats.alertsCount),
      ...(trends.alertsCount && (stats.alertsCount > 0 ? { change: `+${trends.alertsCount.newToday}`, label: 'new today' } : { label: 'all read' })),
      changeType: trends.alertsCount?.newToday ? 'warning' : 'neutral',
    },
    { id: 'scan', title: 'Last Scan', ...lastScanFigures(lastScan, now) },
  ];
}

function lastScanFigures(scan: DashboardStats['lastScan'], now: number | Date): Pick<StatCard, 'value' | 'change' | 'label' | 'changeType'> {
  if (!scan.at) return { value: 'Never', label: 'No checks yet', changeType: 'neutral' };
  const value = relativeTime(scan.at, now);
  const failing = scan.failedCount > 0 ? `${plural(scan.failedCount, 'product')} failing` : null;
  if (scan.status === 'failed') return { value, change: 'Failed', label: failing ?? 'latest check', changeType: 'negative' };
  return failing ? { value, change: 'OK', label: failing, changeType: 'warning' } : { value, change: 'OK', label: 'all systems', changeType: 'success' };
}
