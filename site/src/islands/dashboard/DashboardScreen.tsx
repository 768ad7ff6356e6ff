import { useState, type ComponentType, type ReactNode } from 'react';
import { useStore } from '@nanostores/react';
import { onMount } from 'nanostores';
import {
  ArrowDownRight,
  ArrowUpRight,
  Bell,
  ChartLine,
  CircleCheck,
  Clock,
  History,
  Minus,
  Package,
  Plus,
  TrendingDown,
  TrendingUp,
  TriangleAlert,
} from 'lucide-react';
import { isUnauthorizedError, type DashboardStats } from '../../lib/api';
import { DEFAULT_TREND_RANGE, hasTrendData, TREND_RANGES, trendDays, type TrendRange } from '../../lib/charts';
import { statCards, type ChangeType, type StatCard } from '../../lib/dashboard';
import { formatDateTime, formatPercent, formatPrice, formatSignedPercent, hostWithoutWww } from '../../lib/format';
import { cn } from '../../lib/utils';
import { $productsVersion } from '../../stores/products';
import { loadable, readStore } from '../../stores/query';
import { AppShell } from '../shell/AppShell';
import { TrendChart } from '../charts/TrendChart';
import { PricePositionCard } from './PricePositionCard';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../ui/Card';
import { Skeleton } from '../ui/Skeleton';

/** The dashboard figures are fetched again this often (docs/product.md#dashboard). */
export const STATS_REFRESH_MS = 30_000;
const RECENT_CHANGES_SHOWN = 5;
const PRODUCTS_PATH = '/products';

export default function DashboardScreen() {
  return (
    <AppShell title="Dashboard" subtitle="Monitor your competitor pricing">
      <Dashboard />
    </AppShell>
  );
}

/** The stats, read now, every 30 s and after every product change. */
const $stats = readStore('dashboard/stats', { revalidateInterval: STATS_REFRESH_MS });
onMount($stats, () => $productsVersion.listen(() => $stats.revalidate()));
// A failed refresh keeps the figures on screen, and "Try again" keeps the message until the answer.
const $dashboard = loadable($stats, { keepError: true });

function useDashboardStats(): { stats: DashboardStats | null; failed: boolean; retry: () => void } {
  const { data, error } = useStore($dashboard);
  // A 401 has its own toast and redirect.
  return { stats: data ?? null, failed: !!error && !isUnauthorizedError(error), retry: () => $stats.revalidate() };
}

function Dashboard() {
  const { stats, failed, retry } = useDashboardStats();

  if (!stats && failed) {
    return (
      <Card className="mx-auto max-w-xl">
        <CardHeader className="items-center text-center">
          <CardTitle>Dashboard unavailable</CardTitle>
          <CardDescription>Your figures could not be loaded.</CardDescription>
          <Button variant="outline" className="mt-3" onClick={retry}>
            Try again
          </Button>
        </CardHeader>
      </Card>
    );
  }

  return (
    <div className="space-y-6">
      <section aria-label="Summary" className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-4">
        {stats
          ? statCards(stats).map((card) => <SummaryCard key={card.id} card={card} />)
          : CARD_TITLES.map((title) => <SummaryCardSkeleton key={title} title={title} />)}
      </section>
      <PricePositionCard />
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-5">
        <PriceTrendsCard days={stats?.priceTrends ?? null} className="lg:col-span-3" />
        <RecentChangesCard changes={stats?.recentChanges ?? null} className="lg:col-span-2" />
      </div>
      <HistoryTableCard changes={stats?.recentChanges ?? null} />
    </div>
  );
}

const CARD_TITLES = ['Products Monitored', 'Price Drops Detected', 'Active Alerts', 'Last Scan'];

const CARD_ICONS: Record<StatCard['id'], ComponentType<{ className?: string }>> = {
  products: Package,
  drops: TrendingDown,
  alerts: Bell,
  scan: Clock,
};

const CHANGE_STYLES: Record<ChangeType, { className: string; Icon: ComponentType<{ className?: string }> }> = {
  positive: { className: 'text-success', Icon: ArrowUpRight },
  negative: { className: 'text-destructive', Icon: ArrowDownRight },
  warning: { className: 'text-warning', Icon: TriangleAlert },
  success: { className: 'text-success', Icon: CircleCheck },
  neutral: { className: 'text-muted-foreground', Icon: Minus },
};

function SummaryCard({ card }: { card: StatCard }) {
  const Icon = CARD_ICONS[card.id];
  const { className, Icon: ChangeIcon } = CHANGE_STYLES[card.changeType];
  return (
    <Card data-card={card.id}>
      <div className="flex items-start justify-between gap-3 p-5">
        <div className="min-w-0">
          <h2 className="text-sm font-medium text-muted-foreground">{card.title}</h2>
          {/* Long words wrap rather than being cut off: a narrow card still says all of it. */}
          <p className="mt-2 break-words text-3xl font-bold tracking-tight">{card.value}</p>
          {(card.change || card.label) && (
            <p className="mt-1.5 flex flex-wrap items-center gap-x-1.5 gap-y-0.5 text-sm">
              {card.change && (
                <span className={cn('inline-flex items-center gap-0.5 font-medium', className)}>
                  <ChangeIcon aria-hidden="true" className="size-4" />
                  {card.change}
                </span>
              )}
              {card.label && <span className="text-muted-foreground">{card.label}</span>}
            </p>
          )}
        </div>
        <span className="flex size-10 shrink-0 items-center justify-center rounded-lg bg-brand/10 text-brand">
          <Icon aria-hidden="true" className="size-5" />
        </span>
      </div>
    </Card>
  );
}

function SummaryCardSkeleton({ title }: { title: string }) {
  return (
    <Card>
      <div className="p-5">
        <h2 className="text-sm font-medium text-muted-foreground">{title}</h2>
        <Skeleton className="mt-3 h-8 w-20" />
        <Skeleton className="mt-2.5 h-4 w-32" />
      </div>
    </Card>
  );
}

function EmptyState({ icon: Icon, title, text, action }: { icon: ComponentType<{ className?: string }>; title: string; text: string; action?: ReactNode }) {
  return (
    <div className="flex flex-col items-center justify-center gap-2 px-4 py-10 text-center">
      <span className="mb-1 flex size-11 items-center justify-center rounded-full bg-muted">
        <Icon aria-hidden="true" className="size-5 text-muted-foreground" />
      </span>
      <p className="font-medium">{title}</p>
      <p className="text-sm text-muted-foreground">{text}</p>
      {action && <div className="mt-3">{action}</div>}
    </div>
  );
}

function ProductsLink({ children, variant = 'default' }: { children: ReactNode; variant?: 'default' | 'ghost' | 'outline' }) {
  return (
    <Button asChild variant={variant} size={variant === 'ghost' ? 'sm' : 'default'}>
      <a href={PRODUCTS_PATH}>{children}</a>
    </Button>
  );
}

function PriceTrendsCard({ days, className }: { days: DashboardStats['priceTrends'] | null; className?: string }) {
  const [range, setRange] = useState<TrendRange>(DEFAULT_TREND_RANGE);
  const shown = days ? trendDays(days, range) : null;
  return (
    <Card className={cn('flex flex-col', className)}>
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-3 space-y-0">
        <div className="space-y-1.5">
          <CardTitle>Price Trends</CardTitle>
          {/* Percentages, so products priced in different currencies average without converting money. */}
          <CardDescription>Average price change per day, in percent</CardDescription>
        </div>
        <div role="group" aria-label="Trend range" className="flex gap-1 rounded-lg bg-muted p-1">
          {TREND_RANGES.map(({ id }) => (
            <Button
              key={id}
              size="sm"
              variant={id === range ? 'default' : 'ghost'}
              aria-pressed={id === range}
              onClick={() => setRange(id)}
              className="h-7 px-2.5"
            >
              {id}
            </Button>
          ))}
        </div>
      </CardHeader>
      {/* The chart fills what the card has left beside Recent Price Changes. */}
      <CardContent className="relative min-h-64 flex-1">
        {!shown ? (
          <Skeleton className="h-64 w-full" />
        ) : hasTrendData(shown) ? (
          <div className="absolute inset-x-6 bottom-6 top-0">
            <TrendChart days={shown} range={range} />
          </div>
        ) : (
          <div className="flex h-64 items-center justify-center">
            <EmptyState
              icon={ChartLine}
              title="No price data available"
              // With changes outside the chosen range, adding products is not the answer.
              text={days && hasTrendData(days) ? `No price changes in the last ${shown.length} days` : 'Add products to see trends'}
            />
          </div>
        )}
      </CardContent>
    </Card>
  );
}

type Change = DashboardStats['recentChanges'][number];

function ChangeBadge({ change }: { change: Change }) {
  const rise = change.currentPrice > change.previousPrice;
  // A change from a price of 0 has no percent.
  const by = change.changePercent === null ? `from ${formatPrice(change.previousPrice, change.currency)}` : formatPercent(Math.abs(change.changePercent));
  return (
    <Badge variant={rise ? 'destructive' : 'secondary'} aria-label={`${rise ? 'Up' : 'Down'} ${by}`}>
      {rise ? <TrendingUp aria-hidden="true" /> : <TrendingDown aria-hidden="true" />}
      {by}
    </Badge>
  );
}

function RecentChangesCard({ changes, className }: { changes: Change[] | null; className?: string }) {
  return (
    <Card className={cn('flex flex-col', className)}>
      <CardHeader className="flex-row items-start justify-between gap-3 space-y-0">
        <div className="space-y-1.5">
          <CardTitle>Recent Price Changes</CardTitle>
          <CardDescription>The latest moves across your products</CardDescription>
        </div>
        <ProductsLink variant="ghost">View all</ProductsLink>
      </CardHeader>
      <CardContent className="flex-1">
        {!changes ? (
          <div className="space-y-3" aria-busy="true">
            {[0, 1, 2].map((i) => (
              <Skeleton key={i} className="h-16 w-full" />
            ))}
          </div>
        ) : changes.length === 0 ? (
          <EmptyState
            icon={Package}
            title="No price changes yet"
            text="Add products to start monitoring"
            action={
              <ProductsLink>
                <Plus aria-hidden="true" />
                Add Product
              </ProductsLink>
            }
          />
        ) : (
          <ul className="space-y-3" aria-label="Recent price changes">
            {changes.slice(0, RECENT_CHANGES_SHOWN).map((change) => (
              <li key={`${change.productId}-${change.timestamp}`} className="flex items-center justify-between gap-3 rounded-lg border p-3">
                <div className="min-w-0">
                  <p className="truncate font-medium">{change.productName}</p>
                  <p className="truncate text-sm text-muted-foreground">{hostWithoutWww(change.url)}</p>
                </div>
                <div className="flex shrink-0 flex-col items-end gap-1">
                  <p className="font-semibold">{formatPrice(change.currentPrice, change.currency)}</p>
                  <ChangeBadge change={change} />
                </div>
              </li>
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}

/** A change in percent with its sign; a change from a price of 0 has none. */
const changeText = (change: Change) => (change.changePercent === null ? '—' : formatSignedPercent(change.changePercent));

function HistoryTableCard({ changes }: { changes: Change[] | null }) {
  return (
    <Card>
      <CardHeader className="flex-row items-start justify-between gap-3 space-y-0">
        <div className="space-y-1.5">
          <CardTitle>Price Change History</CardTitle>
          <CardDescription>Every recent price change, newest first</CardDescription>
        </div>
        <ProductsLink variant="ghost">View all history</ProductsLink>
      </CardHeader>
      <CardContent>
        {!changes ? (
          <Skeleton className="h-40 w-full" />
        ) : changes.length === 0 ? (
          <EmptyState
            icon={History}
            title="No price changes yet"
            text="Start monitoring products to see price trends and changes"
            action={
              <ProductsLink>
                <Plus aria-hidden="true" />
                Add Your First Product
              </ProductsLink>
            }
          />
        ) : (
          <>
            {/* Small screens: each change as a stacked row with every figure in view, nothing to scroll sideways. */}
            <ul aria-label="Price change history" className="divide-y md:hidden">
              {changes.map((change) => (
                <li key={`${change.productId}-${change.timestamp}`} className="py-3 first:pt-0 last:pb-0">
                  <div className="flex items-start justify-between gap-3">
                    <div className="min-w-0">
                      <p className="line-clamp-2 break-words font-medium" title={change.productName}>
                        {change.productName}
                      </p>
                      <p className="truncate text-xs text-muted-foreground">{hostWithoutWww(change.url)}</p>
                    </div>
                    <p className={cn('shrink-0 font-medium tabular-nums', change.currentPrice > change.previousPrice && 'text-destructive')}>
                      <span className="sr-only">Change </span>
                      {changeText(change)}
                    </p>
                  </div>
                  <div className="mt-1 flex flex-wrap items-baseline justify-between gap-x-3 text-sm">
                    <p className="tabular-nums">
                      <span className="sr-only">From </span>
                      <span className="text-muted-foreground">{formatPrice(change.previousPrice, change.currency)}</span>
                      <span aria-hidden="true" className="px-1.5 text-muted-foreground">
                        →
                      </span>
                      <span className="sr-only"> to </span>
                      <span className="font-medium">{formatPrice(change.currentPrice, change.currency)}</span>
                    </p>
                    <p className="text-muted-foreground">{formatDateTime(change.timestamp)}</p>
                  </div>
                </li>
              ))}
            </ul>
            {/* Up to 50 rows: the table scrolls inside the card instead of stretching the page. A scrolling
                region must be reachable by keyboard to be scrolled without a mouse, hence focusable and named. */}
            <div
              tabIndex={0}
              role="region"
              aria-label="Price change history"
              className="-mx-6 hidden max-h-[28rem] overflow-auto px-6 outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-ring md:block"
            >
              <table className="w-full min-w-[36rem] text-sm">
                <thead className="sticky top-0 z-10 bg-card shadow-[inset_0_-1px_0_var(--border)]">
                  <tr className="text-left text-muted-foreground">
                    <th scope="col" className="py-2 pr-4 font-medium">
                      Product
                    </th>
                    <th scope="col" className="py-2 pr-4 text-right font-medium">
                      Previous Price
                    </th>
                    <th scope="col" className="py-2 pr-4 text-right font-medium">
                      Current Price
                    </th>
                    <th scope="col" className="py-2 pr-4 text-right font-medium">
                      Change
                    </th>
                    <th scope="col" className="py-2 font-medium">
                      Time
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {changes.map((change) => (
                    <tr key={`${change.productId}-${change.timestamp}`} className="border-b last:border-0">
                      <td className="max-w-64 py-3 pr-4">
                        <p className="truncate font-medium">{change.productName}</p>
                        <p className="truncate text-xs text-muted-foreground">{hostWithoutWww(change.url)}</p>
                      </td>
                      <td className="py-3 pr-4 text-right tabular-nums text-muted-foreground">{formatPrice(change.previousPrice, change.currency)}</td>
                      <td className="py-3 pr-4 text-right font-medium tabular-nums">{formatPrice(change.currentPrice, change.currency)}</td>
                      <td className={cn('py-3 pr-4 text-right font-medium tabular-nums', change.currentPrice > change.previousPrice && 'text-destructive')}>
                        {changeText(change)}
                      </td>
                      <td className="whitespace-nowrap py-3 text-muted-foreground">{formatDateTime(change.timestamp)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </CardContent>
    </Card>
  );
}
