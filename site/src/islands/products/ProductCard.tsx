import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { Banknote, CirclePause, ExternalLink, Info, Pencil, RefreshCw, Trash2, TrendingDown, TrendingUp, TriangleAlert } from 'lucide-react';
import { api, isUnauthorizedError, type Product } from '../../lib/api';
import { formatDateTime, formatPrice, hostWithoutWww } from '../../lib/format';
import {
  availabilityBadge,
  checkView,
  variantLabel,
  formatChange,
  RECHECK_VIEW,
  selectorNote,
  serverError,
  thresholdLabel,
  type CheckView,
} from '../../lib/products';
import { cn } from '../../lib/utils';
import { refreshProducts } from '../../stores/products';
import { $user } from '../../stores/auth';
import { pausedCheckView, type PausedView } from '../../lib/plan-limits';
import { toast } from '../../stores/toast';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { Tooltip, TooltipContent, TooltipTrigger, WithTooltip } from '../ui/Tooltip';
import { ProductImage } from '../ui/ProductImage';

export type ProductAction = 'edit' | 'fix-selector' | 'delete' | 'price';

type ProductCardProps = {
  product: Product;
  onAction: (action: ProductAction, product: Product) => void;
  /** Chosen for a bulk action. */
  selected: boolean;
  onSelectedChange: (selected: boolean) => void;
  /** The check an edit queued (a new address or selector) is still running: the last result was read with the old ones. */
  rechecking?: boolean;
};

export function ProductCard({ product, onAction, selected, onSelectedChange, rechecking = false }: ProductCardProps) {
  const [checking, setChecking] = useState(false);
  // Check Now's own words on why the selector gave no price; the list only knows where the price came from.
  const [checkNote, setCheckNote] = useState<string | null>(null);
  // Those words were about the old selector or address.
  useEffect(() => setCheckNote(null), [product.selector, product.url]);

  async function checkNow() {
    setChecking(true);
    try {
      const result = await api.products.checkPrice(product.id);
      if (result.success) {
        toast({ title: 'Price checked', description: result.message || `Current price: ${formatPrice(result.price, result.currency)}` });
        setCheckNote(result.selectorMatched ? null : result.sourceNote);
      } else {
        toast({
          title: 'Price check failed',
          description: result.message || result.error || 'Unable to check price automatically',
          variant: 'destructive',
        });
      }
      // Even a failed check changes the card (last checked, status).
      refreshProducts();
    } catch (error) {
      if (!isUnauthorizedError(error)) {
        // Too many checks at once is said as the server words it; anything else as the spec does.
        const { status, message } = serverError(error);
        const description = status === 429 && message ? message : 'Unable to check price. Please try again or update manually.';
        toast({ title: 'Error', description, variant: 'destructive' });
      }
    } finally {
      setChecking(false);
    }
  }

  const threshold = thresholdLabel(product.alertRule);
  const stock = availabilityBadge(product.availability);
  const variant = variantLabel(product.variant);
  const user = useStore($user);
  // Beyond the plan's limit the product is not checked at all: that, not the last check, is its status.
  const paused = product.checksPaused ? pausedCheckView(user) : null;
  const status = paused ?? (rechecking ? RECHECK_VIEW : checkView(product));
  const failing = product.checkStatus === 'failing';
  // Until the edit's check is in, the note would speak of the old selector.
  const note = rechecking ? null : selectorNote(product, checkNote);
  const busy = checking || rechecking;
  return (
    <Card className={cn('flex w-full flex-col gap-5 p-5', selected && 'ring-2 ring-primary')}>
      {/* The name has the card's width beside the image (the actions sit with the status below), two lines at most; the title attribute holds the rest. */}
      <div className="flex items-start gap-3">
        <input
          type="checkbox"
          checked={selected}
          onChange={(e) => onSelectedChange(e.target.checked)}
          aria-label={`Select ${product.name}`}
          className="mt-1 size-4 shrink-0 cursor-pointer accent-primary"
        />
        <ProductImage url={product.imageUrl} />
        <div className="min-w-0 flex-1">
          <h2 className="line-clamp-2 break-words font-semibold leading-tight" title={product.name}>
            {product.name}
          </h2>
          <p className="mt-1 truncate text-sm text-muted-foreground">{hostWithoutWww(product.url)}</p>
          {variant && (
            <p className="mt-1 truncate text-sm" data-testid="variant">
              <span className="sr-only">Variant: </span>
              {variant}
            </p>
          )}
          {stock && (
            <Badge variant={stock.variant} className="mt-2" data-availability={product.availability}>
              {stock.label}
            </Badge>
          )}
        </div>
      </div>

      <dl className="grid grid-cols-2 gap-x-4 gap-y-3">
        <div>
          {/* While checks fail the price shown is the last one found, with its date. */}
          <dt className="text-xs text-muted-foreground">{failing && product.currentPrice !== null ? 'Last good price' : 'Current Price'}</dt>
          <dd className="text-2xl font-bold tabular-nums">{formatPrice(product.currentPrice, product.currency)}</dd>
          {product.regularPrice !== null && (
            <dd className="text-sm text-muted-foreground" data-testid="regular-price">
              was <span className="line-through">{formatPrice(product.regularPrice, product.currency)}</span>
            </dd>
          )}
          {failing && product.lastPriceAt && <dd className="text-xs text-muted-foreground">{formatDateTime(product.lastPriceAt)}</dd>}
        </div>
        <div>
          <dt className="text-xs text-muted-foreground">24h Change</dt>
          <dd className="mt-1.5">
            <Change percent={product.changePercent} />
          </dd>
        </div>
        {threshold && (
          <div className="col-span-2 flex items-center justify-between gap-2 rounded-md bg-muted/60 px-3 py-2 text-sm">
            <dt className="text-muted-foreground">Alert Threshold</dt>
            <dd className="font-medium">{threshold}</dd>
          </div>
        )}
      </dl>

      {paused && (
        <div className="rounded-md border bg-muted/60 p-3 text-sm">
          <p className="flex items-center gap-1.5 font-medium">
            <CirclePause aria-hidden="true" className="size-4 shrink-0" />
            Checks paused
          </p>
          <p className="mt-1">{paused.reason}</p>
          <a href="/billing" className="mt-1 inline-block font-medium underline underline-offset-4">
            See plans
          </a>
        </div>
      )}

      {failing && !paused && (
        <div
          className={cn(
            'rounded-md border p-3 text-sm',
            product.isActive
              ? 'border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-100'
              : 'border-red-300 bg-red-50 text-red-950 dark:border-red-900 dark:bg-red-950/50 dark:text-red-100',
          )}
        >
          <p className="flex items-center gap-1.5 font-medium">
            <TriangleAlert aria-hidden="true" className="size-4 shrink-0" />
            {product.isActive ? 'The last price check failed' : 'Price checks keep failing'}
          </p>
          <p className="mt-1">{product.lastFailure?.message ?? 'The last price check failed.'}</p>
          {product.currentPrice === null && <p className="mt-1">No price has been found yet.</p>}
        </div>
      )}

      {note && (
        <div className="rounded-md border bg-muted/60 p-3 text-sm">
          <p className="flex gap-1.5">
            <Info aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
            <span>{note}</span>
          </p>
          <Button
            variant="outline"
            size="sm"
            className="mt-2"
            onClick={() => onAction('fix-selector', product)}
            aria-label={`Fix the selector of ${product.name}`}
          >
            <Pencil aria-hidden="true" />
            Fix selector
          </Button>
        </div>
      )}

      <div className="mt-auto flex items-center gap-2 text-xs text-muted-foreground">
        <StatusDot status={status} />
        <span>{status.line}</span>
        <div className="-my-1 -mr-2 ml-auto flex shrink-0 text-foreground">
          <WithTooltip label="Open product page">
            <Button variant="ghost" size="icon" className="size-8" asChild>
              <a href={product.url} target="_blank" rel="noopener noreferrer" aria-label={`Open ${product.name} page in a new tab`}>
                <ExternalLink aria-hidden="true" />
              </a>
            </Button>
          </WithTooltip>
          <WithTooltip label="Edit">
            <Button variant="ghost" size="icon" className="size-8" aria-label={`Edit ${product.name}`} onClick={() => onAction('edit', product)}>
              <Pencil aria-hidden="true" />
            </Button>
          </WithTooltip>
          <WithTooltip label="Delete">
            <Button
              variant="ghost"
              size="icon"
              className="size-8 text-destructive hover:text-destructive"
              aria-label={`Delete ${product.name}`}
              onClick={() => onAction('delete', product)}
            >
              <Trash2 aria-hidden="true" />
            </Button>
          </WithTooltip>
        </div>
      </div>

      <div className="grid grid-cols-2 gap-2">
        <Button variant="outline" onClick={() => onAction('price', product)}>
          <Banknote aria-hidden="true" />
          Update Price
        </Button>
        <Button onClick={checkNow} disabled={busy || !!paused}>
          <RefreshCw aria-hidden="true" className={cn(busy && 'animate-spin')} />
          {busy ? 'Checking...' : 'Check Now'}
        </Button>
      </div>
    </Card>
  );
}

/** A rise reads in the destructive colour, a drop in green, no change neutral (docs/product.md#figures-currencies-and-times). */
function Change({ percent }: { percent: number | null }) {
  const text = formatChange(percent);
  const direction = text === '0%' ? 0 : Math.sign(percent ?? 0);
  const Icon = direction > 0 ? TrendingUp : TrendingDown;
  return (
    <span
      className={cn(
        'inline-flex items-center gap-1 text-sm font-semibold tabular-nums',
        direction > 0 ? 'text-destructive' : direction < 0 ? 'text-success' : 'text-muted-foreground',
      )}
    >
      {direction !== 0 && <Icon aria-hidden="true" className="size-4" />}
      {text}
    </span>
  );
}

const DOT: Record<(CheckView | PausedView)['tone'], string> = {
  paused: 'bg-muted-foreground',
  ok: 'bg-success',
  pending: 'animate-pulse bg-muted-foreground',
  warning: 'bg-amber-500',
  failing: 'bg-red-600 dark:bg-red-500',
};

/** Green while checks work, amber after a failure, red when they keep failing; the reason shows on hover and focus. */
function StatusDot({ status }: { status: CheckView | PausedView }) {
  const { label } = status;
  return (
    <Tooltip>
      <TooltipTrigger asChild>
        <span
          role="img"
          aria-label={label}
          tabIndex={0}
          className="inline-flex size-4 cursor-default items-center justify-center rounded-full outline-none focus-visible:ring-2 focus-visible:ring-ring"
        >
          <span data-tone={status.tone} className={cn('size-2 rounded-full', DOT[status.tone])} />
        </span>
      </TooltipTrigger>
      <TooltipContent className="max-w-64">{label}</TooltipContent>
    </Tooltip>
  );
}
