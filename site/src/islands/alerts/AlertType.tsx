import { Bell, PackageCheck, PackageX, Target, TrendingDown, TrendingUp } from 'lucide-react';
import { alertTypeLabel } from '../../lib/alerts';
import { cn } from '../../lib/utils';

/**
 * Spec section 4: drop green, increase red, threshold orange, anything else grey. Stock alerts:
 * out of stock red, back in stock green, in shades that keep AA contrast in both themes.
 */
const STYLES: Record<string, { icon: typeof Bell; className: string }> = {
  price_drop: { icon: TrendingDown, className: 'bg-success/15 text-success' },
  price_increase: { icon: TrendingUp, className: 'bg-destructive/15 text-destructive' },
  threshold_met: { icon: Target, className: 'bg-warning/15 text-warning' },
  out_of_stock: { icon: PackageX, className: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200' },
  back_in_stock: { icon: PackageCheck, className: 'bg-green-100 text-green-800 dark:bg-green-950 dark:text-green-200' },
};
const OTHER = { icon: Bell, className: 'bg-muted text-muted-foreground' };

export const alertStyle = (type: string) => STYLES[type] ?? OTHER;

/** The round icon of an alert's type. */
export function AlertTypeIcon({ type, className }: { type: string; className?: string }) {
  const { icon: Icon, className: colours } = alertStyle(type);
  return (
    <span className={cn('flex size-8 shrink-0 items-center justify-center rounded-full', colours, className)}>
      <Icon aria-hidden="true" className="size-4" />
    </span>
  );
}

/** The badge naming an alert's type, in its colour. */
export function AlertTypeBadge({ type }: { type: string }) {
  return (
    <span className={cn('inline-flex w-fit shrink-0 items-center whitespace-nowrap rounded-md px-2 py-0.5 text-xs font-medium', alertStyle(type).className)}>
      {alertTypeLabel(type)}
    </span>
  );
}
