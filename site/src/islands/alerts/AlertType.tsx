import { Bell, PackageCheck, PackageX, Swords, Target, TrendingDown, TrendingUp, Trophy } from 'lucide-react';
import { alertLabel, alertTone, type Tone } from '../../../../domain/alerts.ts';
import { cn } from '../../lib/utils';

/** Each tone of the shared alert table (domain/alerts.ts) in the theme's colours, AA in both themes. */
const TONES: Record<Tone, string> = {
  good: 'bg-success/15 text-success',
  bad: 'bg-destructive/15 text-destructive',
  warning: 'bg-warning/15 text-warning',
  neutral: 'bg-muted text-muted-foreground',
};
const ICONS: Record<string, typeof Bell> = {
  price_drop: TrendingDown,
  price_increase: TrendingUp,
  threshold_met: Target,
  out_of_stock: PackageX,
  back_in_stock: PackageCheck,
  undercut: Swords,
  cheapest: Trophy,
};

const alertStyle = (type: string) => ({ icon: ICONS[type] ?? Bell, className: TONES[alertTone(type)] });

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
      {alertLabel(type)}
    </span>
  );
}
