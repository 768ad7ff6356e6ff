import { useEffect, useId, useState } from 'react';
import { ExternalLink, History, Search } from 'lucide-react';
import { api, isUnauthorizedError, type DetailRange, type HistoryRange, type PriceHistoryProduct, type PricePoint } from '../../lib/api';
import { formatDateTime, formatPrice, formatSignedPercent, hostWithoutWww } from '../../lib/format';
import { changeVariant, DEFAULT_HISTORY_RANGE, DETAIL_RANGES, direction, filterByName, HISTORY_RANGES, rangeChange, sparklinePoints } from '../../lib/history';
import { cn } from '../../lib/utils';
import { toast } from '../../stores/toast';
import { AppShell } from '../shell/AppShell';
import { PriceChart } from '../charts/PriceChart';
import { PricingInsights } from './PricingInsights';
import { Badge } from '../ui/Badge';
import { Button, focusRing } from '../ui/Button';
import { Card, CardContent, CardHeader, CardTitle } from '../ui/Card';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../ui/Dialog';
import { Input } from '../ui/Input';
import { Label } from '../ui/Label';
import { OptionSelect } from '../ui/Select';
import { ShowMore, usePaged } from '../ui/ShowMore';
import { Skeleton } from '../ui/Skeleton';
import { ProductImage } from '../ui/ProductImage';

export default function PriceHistoryScreen() {
  return (
    <AppShell title="Price History" subtitle="See how competitor prices have moved">
      <PriceHistory />
    </AppShell>
  );
}

/** Rows rendered at first and per "Show more". */
const ROWS_PER_PAGE = 50;

function PriceHistory() {
  const [range, setRange] = useState<HistoryRange>(DEFAULT_HISTORY_RANGE);
  const [query, setQuery] = useState('');
  const [products, setProducts] = useState<PriceHistoryProduct[] | null>(null);
  const [openId, setOpenId] = useState<string | null>(null);
  const searchId = useId();
  const rangeId = useId();

  useEffect(() => {
    let live = true;
    setProducts(null);
    api.history.products(range).then(
      (list) => live && setProducts(list),
      (error) => {
        if (!live) return;
        setProducts([]);
        if (!isUnauthorizedError(error)) toast({ title: 'Failed to fetch price history', variant: 'destructive' });
      },
    );
    return () => {
      live = false;
    };
  }, [range]);

  const matching = products && filterByName(products, query);
  const paged = usePaged(matching ?? [], ROWS_PER_PAGE, query);
  const shown = matching && paged.shown;
  const open = products?.find((p) => p.id === openId) ?? null;

  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-center">
        <div className="relative flex-1">
          <Label htmlFor={searchId} className="sr-only">
            Search products
          </Label>
          <Search aria-hidden="true" className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground" />
          <Input id={searchId} type="search" placeholder="Search products..." value={query} onChange={(e) => setQuery(e.target.value)} className="pl-9" />
        </div>
        <div className="sm:w-48">
          <Label htmlFor={rangeId} className="sr-only">
            Time range
          </Label>
          <OptionSelect id={rangeId} value={range} options={HISTORY_RANGES} onChange={setRange} />
        </div>
      </div>

      {!shown ? (
        <div className="space-y-3" aria-busy="true">
          {[0, 1, 2].map((i) => (
            <Skeleton key={i} className="h-20 w-full rounded-xl" />
          ))}
        </div>
      ) : products!.length === 0 ? (
        <Card>
          <div className="flex flex-col items-center gap-2 px-4 py-14 text-center">
            <span className="mb-1 flex size-11 items-center justify-center rounded-full bg-muted">
              <History aria-hidden="true" className="size-5 text-muted-foreground" />
            </span>
            <p className="font-medium">No price history yet</p>
            <p className="text-sm text-muted-foreground">Prices appear here once you monitor products and their prices are checked.</p>
            <Button asChild className="mt-3">
              <a href="/products">Go to Products</a>
            </Button>
          </div>
        </Card>
      ) : shown.length === 0 ? (
        <Card>
          <p className="px-4 py-14 text-center text-sm text-muted-foreground">No products match “{query.trim()}”.</p>
        </Card>
      ) : (
        <ul className="space-y-3" aria-label="Products">
          {shown.map((product) => (
            <HistoryRow key={product.id} product={product} onOpen={() => setOpenId(product.id)} />
          ))}
        </ul>
      )}
      <ShowMore remaining={paged.remaining} onMore={paged.more} noun="products" />

      {open && <HistoryDialog product={open} listRange={range} onClose={() => setOpenId(null)} />}
    </div>
  );
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The whole row opens the dialog: the name is its button, stretched over the row; the open link sits above it. */
function HistoryRow({ product, onOpen }: { product: PriceHistoryProduct; onOpen: () => void }) {
  return (
    // Phones: image, name and link on top, sparkline and price below; wider screens: one line.
    <li className="relative grid grid-cols-[auto_minmax(0,1fr)_auto] items-center gap-x-4 gap-y-3 rounded-xl border bg-card p-4 shadow-sm transition-colors hover:bg-accent/50 sm:flex">
      <ProductImage url={product.imageUrl} />
      <div className="min-w-0 flex-1">
        <h2 className="line-clamp-2 font-medium sm:line-clamp-none sm:truncate">
          <button
            type="button"
            onClick={onOpen}
            aria-haspopup="dialog"
            className={cn(
              'cursor-pointer text-left after:absolute after:inset-0 after:rounded-xl after:content-[""]',
              'outline-none focus-visible:after:ring-2 focus-visible:after:ring-ring',
            )}
          >
            {product.name}
          </button>
        </h2>
        <p className="text-sm text-muted-foreground sm:truncate">
          {product.lastChecked ? `Last checked ${formatDateTime(product.lastChecked)}` : 'Not checked yet'}
        </p>
        <p className="text-xs text-muted-foreground">{plural(product.pointsCount, 'price point')} tracked</p>
      </div>
      <Sparkline points={product.priceHistory} changePercent={product.changePercent} currency={product.currency} />
      <div className="order-5 flex shrink-0 flex-col items-end gap-1 sm:order-none">
        <p className="font-semibold tabular-nums">{formatPrice(product.currentPrice, product.currency)}</p>
        <Badge variant={changeVariant(product.changePercent)}>{formatSignedPercent(product.changePercent)}</Badge>
      </div>
      <a
        href={product.url}
        target="_blank"
        rel="noopener noreferrer"
        aria-label={`Open ${product.name} product page in a new tab`}
        title="Open product page"
        onClick={(e) => e.stopPropagation()}
        className={cn(
          'relative z-10 order-3 flex size-9 shrink-0 sm:order-none items-center justify-center rounded-md text-muted-foreground hover:bg-accent hover:text-foreground',
          focusRing,
        )}
      >
        <ExternalLink aria-hidden="true" className="size-4" />
      </a>
    </li>
  );
}

const SPARK_WIDTH = 120;
const SPARK_HEIGHT = 36;

function Sparkline({ points, changePercent, currency }: { points: PricePoint[]; changePercent: number; currency: string }) {
  const line = sparklinePoints(
    points.map((p) => p.price),
    SPARK_WIDTH,
    SPARK_HEIGHT,
  );
  const label =
    points.length === 0
      ? 'No prices in this range'
      : `Last ${plural(points.length, 'price')}: ${formatPrice(points[0]!.price, currency)} to ${formatPrice(points.at(-1)!.price, currency)}`;
  return (
    <svg
      role="img"
      aria-label={label}
      data-sparkline
      viewBox={`0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}`}
      width={SPARK_WIDTH}
      height={SPARK_HEIGHT}
      className={cn(
        'order-4 col-span-2 h-9 w-full shrink-0 sm:order-none sm:w-[120px]',
        direction(changePercent) === 'rise' ? 'text-destructive' : 'text-brand',
      )}
      preserveAspectRatio="none"
    >
      {line ? (
        <polyline
          points={line}
          fill="none"
          stroke="currentColor"
          strokeWidth={1.75}
          strokeLinejoin="round"
          strokeLinecap="round"
          vectorEffect="non-scaling-stroke"
        />
      ) : (
        <line
          x1={0}
          x2={SPARK_WIDTH}
          y1={SPARK_HEIGHT / 2}
          y2={SPARK_HEIGHT / 2}
          className="stroke-border"
          strokeDasharray="4 4"
          vectorEffect="non-scaling-stroke"
        />
      )}
    </svg>
  );
}

type DialogProps = { product: PriceHistoryProduct; listRange: HistoryRange; onClose: () => void };

function HistoryDialog({ product, listRange, onClose }: DialogProps) {
  const [range, setRange] = useState<DetailRange>(listRange);
  const [points, setPoints] = useState<PricePoint[] | null>(null);
  const [failed, setFailed] = useState(false);
  const rangeId = useId();

  useEffect(() => {
    let live = true;
    setPoints(null);
    setFailed(false);
    api.history.detailed(product.id, range).then(
      (list) => live && setPoints(list),
      (error) => {
        if (!live) return;
        setFailed(true);
        if (!isUnauthorizedError(error)) toast({ title: 'Failed to fetch detailed history', variant: 'destructive' });
      },
    );
    return () => {
      live = false;
    };
  }, [product.id, range]);

  const change = points ? rangeChange(points) : null;
  // The server thins long histories for the chart; the list's count is exact for its own range.
  const pointsCount = points && (range === listRange ? product.pointsCount : points.length);

  return (
    <Dialog open onOpenChange={(isOpen) => !isOpen && onClose()}>
      <DialogContent className="max-w-5xl gap-5 p-4 sm:p-8">
        <DialogHeader className="pr-8">
          <DialogTitle className="text-xl leading-tight">{product.name}</DialogTitle>
          <DialogDescription>Price history from {hostWithoutWww(product.url)}</DialogDescription>
        </DialogHeader>

        <div className="flex items-center justify-end gap-2">
          <Label htmlFor={rangeId} className="text-sm text-muted-foreground">
            Time range
          </Label>
          <div className="w-44">
            <OptionSelect id={rangeId} value={range} options={DETAIL_RANGES} onChange={setRange} />
          </div>
        </div>

        <div className="grid grid-cols-3 gap-2 sm:gap-3">
          <Figure title="Current Price" value={formatPrice(product.currentPrice, product.currency)} />
          <Figure
            title="Price Change"
            value={change === null ? null : formatSignedPercent(change)}
            className={change !== null && direction(change) === 'rise' ? 'text-destructive' : undefined}
          />
          <Figure title="Data Points" value={pointsCount === null ? null : String(pointsCount)} />
        </div>

        <Card>
          <CardHeader className="px-4 pb-2 sm:px-6">
            <CardTitle className="text-base">Price Trend Analysis</CardTitle>
          </CardHeader>
          <CardContent className="px-2 pb-4 sm:px-6 sm:pb-6">
            {!points && !failed ? (
              <Skeleton className="h-80 w-full" />
            ) : failed ? (
              <p className="flex h-80 items-center justify-center text-sm text-muted-foreground">The price history could not be loaded.</p>
            ) : points!.length === 0 ? (
              <p className="flex h-80 items-center justify-center text-sm text-muted-foreground">No price data available for selected time range</p>
            ) : (
              <PriceChart points={points!} currency={product.currency} />
            )}
          </CardContent>
        </Card>

        <PricingInsights productId={product.id} range={range} />
      </DialogContent>
    </Dialog>
  );
}

function Figure({ title, value, className }: { title: string; value: string | null; className?: string }) {
  return (
    <Card className="min-w-0 p-3 sm:p-4">
      <h3 className="text-xs text-muted-foreground sm:text-sm">{title}</h3>
      {value === null ? (
        <Skeleton className="mt-2 h-7 w-full max-w-24" />
      ) : (
        <p className={cn('mt-1 truncate text-lg font-semibold tabular-nums sm:text-2xl', className)}>{value}</p>
      )}
    </Card>
  );
}
