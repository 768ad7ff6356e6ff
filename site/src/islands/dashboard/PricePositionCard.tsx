import { useStore } from '@nanostores/react';
import { ArrowRight, Scale, Tags, TrendingDown } from 'lucide-react';
import { isUnauthorizedError, type PositionSummary } from '../../lib/api';
import { cn } from '../../lib/utils';
import { loadable, readStore } from '../../stores/query';
import { Button, focusRing } from '../ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../ui/Card';
import { Skeleton } from '../ui/Skeleton';

/** Read with the dashboard's figures, at the same pace. */
const $positionRead = readStore('position', { revalidateInterval: 30_000 });
const $position = loadable($positionRead);
/** The recommendations waiting, read at the same pace: their count links to the Recommendations view. */
const $waitingRead = readStore('catalogue/recommendations', { revalidateInterval: 30_000 });
const $waiting = loadable($waitingRead);

const BANDS = [
  { key: 'cheapest', band: 'cheapest', label: 'Cheapest', dot: 'bg-success' },
  { key: 'competitive', band: 'competitive', label: 'Competitive', dot: 'bg-warning' },
  { key: 'above', band: 'above', label: 'Above market', dot: 'bg-destructive' },
  { key: 'unpositioned', band: 'unpositioned', label: 'No position', dot: 'bg-muted-foreground' },
] as const;

const total = (p: PositionSummary) => p.cheapest + p.competitive + p.above + p.unpositioned;

/** How the owner's prices stand against the market: the index, the products per band, today's undercuts. */
export function PricePositionCard() {
  const { data, error } = useStore($position);
  const waiting = useStore($waiting).data?.length ?? 0;
  // A failed read leaves the dashboard as it was: the card is an extra, not a figure the owner waits on.
  if (!data && error && !isUnauthorizedError(error)) return null;
  if (!data) {
    return (
      <Card aria-busy="true">
        <CardHeader>
          <CardTitle>Price position</CardTitle>
        </CardHeader>
        <CardContent>
          <Skeleton className="h-20 w-full" />
        </CardContent>
      </Card>
    );
  }
  if (total(data) === 0) {
    return (
      <Card>
        <div className="flex flex-col gap-4 p-6 sm:flex-row sm:items-center">
          <span className="flex size-10 shrink-0 items-center justify-center rounded-lg bg-brand/10 text-brand">
            <Scale aria-hidden="true" className="size-5" />
          </span>
          <div className="min-w-0 flex-1 space-y-1">
            <h2 className="font-semibold leading-none">Price position</h2>
            <p className="text-sm text-muted-foreground">
              Bring in the products you sell to see whether you are the cheapest, competitive or above the market.
            </p>
          </div>
          <Button asChild variant="outline">
            <a href="/catalogue">
              Set up your catalogue
              <ArrowRight aria-hidden="true" />
            </a>
          </Button>
        </div>
      </Card>
    );
  }

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-3 space-y-0">
        <div className="space-y-1.5">
          <CardTitle>Price position</CardTitle>
          <CardDescription>Your prices against the competitors you linked</CardDescription>
        </div>
        <Button asChild variant="ghost" size="sm">
          <a href="/catalogue">View catalogue</a>
        </Button>
      </CardHeader>
      <CardContent className="grid gap-6 md:grid-cols-[minmax(0,14rem)_minmax(0,1fr)] md:items-center">
        <div>
          <p>
            <span className="block text-sm font-medium text-muted-foreground">Price index</span>{' '}
            <span className="text-4xl font-bold tracking-tight tabular-nums">{data.index === null ? '—' : data.index.toFixed(1)}</span>
          </p>
          <p className="mt-1 text-sm text-muted-foreground">
            {data.index === null ? 'Link competitors to your products to get one.' : '100 = the market average; below 100 is cheaper.'}
          </p>
          <p className={cn('mt-3 inline-flex items-center gap-1.5 text-sm font-medium', data.undercutLast24h ? 'text-destructive' : 'text-muted-foreground')}>
            <TrendingDown aria-hidden="true" className="size-4" />
            {data.undercutLast24h.toLocaleString('en-GB')} undercut today
          </p>
          {waiting > 0 && (
            <p className="mt-2">
              <a
                href="/catalogue?view=recommendations"
                className={cn('inline-flex items-center gap-1.5 rounded-sm text-sm font-medium text-primary underline-offset-4 hover:underline', focusRing)}
              >
                <Tags aria-hidden="true" className="size-4" />
                {waiting.toLocaleString('en-GB')} {waiting === 1 ? 'recommendation' : 'recommendations'} waiting
                <ArrowRight aria-hidden="true" className="size-4" />
              </a>
            </p>
          )}
        </div>
        <ul className="grid grid-cols-2 gap-2 sm:grid-cols-4" aria-label="Products by position">
          {BANDS.map(({ key, band, label, dot }) => (
            <li key={key}>
              <a
                href={`/catalogue?band=${band}`}
                className={cn('flex h-full flex-col gap-1 rounded-lg border p-3 transition-colors hover:bg-accent', focusRing)}
              >
                <span className="flex items-center gap-2 text-sm text-muted-foreground">
                  <span aria-hidden="true" className={cn('size-2 shrink-0 rounded-full', dot)} />
                  {label}
                </span>
                <span className="text-2xl font-semibold tabular-nums">{data[key].toLocaleString('en-GB')}</span>
              </a>
            </li>
          ))}
        </ul>
      </CardContent>
    </Card>
  );
}
