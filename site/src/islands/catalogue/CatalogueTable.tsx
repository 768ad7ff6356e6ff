import type { ReactNode } from 'react';
import { ArrowDown, ArrowUp, Equal } from 'lucide-react';
import type { CatalogueEntry } from '../../lib/api';
import { formatPrice, hostWithoutWww } from '../../lib/format';
import { cn } from '../../lib/utils';
import { Badge } from '../ui/Badge';
import { ProductImage } from '../ui/ProductImage';
import { BAND_LABELS, BAND_TONES, checkedText, GAP_WORDS, gapText, newestCountedPrice, rankText } from './model';

/** What a row shows, worked out once per entry: the list answer's objects are replaced, never changed. */
type RowView = {
  price: string;
  cheapest: { price: string; host: string } | null;
  average: string | null;
  rank: string | null;
  gap: ReturnType<typeof gapText> | null;
  checked: string | null;
};

const views = new WeakMap<CatalogueEntry, RowView>();

function viewOf(entry: CatalogueEntry, now: number): RowView {
  const cached = views.get(entry);
  if (cached) return cached;
  const { position, currency } = entry;
  const cheapest = position && entry.competitors.find((c) => c.productId === position.cheapest.productId);
  const view: RowView = {
    price: formatPrice(entry.price, currency),
    cheapest: position ? { price: formatPrice(position.cheapest.price, currency), host: cheapest ? hostWithoutWww(cheapest.url) : '' } : null,
    average: position ? formatPrice(position.average, currency) : null,
    rank: position ? rankText(position) : null,
    gap: position ? gapText(position.gap, position.gapPercent, currency) : null,
    checked: checkedText(newestCountedPrice(entry.competitors), now),
  };
  views.set(entry, view);
  return view;
}

const GAP_ICONS = { above: ArrowUp, below: ArrowDown, level: Equal };
const GAP_COLOURS = { above: 'text-destructive', below: 'text-success', level: 'text-muted-foreground' };

function Gap({ gap }: { gap: RowView['gap'] }) {
  if (!gap) return <span className="text-muted-foreground">—</span>;
  const Icon = GAP_ICONS[gap.direction];
  return (
    <span className={cn('inline-flex items-center gap-1 whitespace-nowrap font-medium tabular-nums', GAP_COLOURS[gap.direction])}>
      <Icon aria-hidden="true" className="size-3.5 shrink-0" />
      {gap.text}
      <span className="sr-only"> {GAP_WORDS[gap.direction]}</span>
    </span>
  );
}

export function BandBadge({ entry }: { entry: CatalogueEntry }) {
  if (!entry.position) return <Badge variant="outline">No position</Badge>;
  return <Badge variant={BAND_TONES[entry.position.band]}>{BAND_LABELS[entry.position.band]}</Badge>;
}

/** Why a product has no position: none linked, or what left every linked one out ("None of 2 counted: 1 stale, 1 no price"). */
function noPosition(entry: CatalogueEntry): string {
  if (!entry.competitors.length) return 'No competitors linked';
  const reasons = entry.basis?.split(': ')[1];
  return `None of ${entry.competitors.length} counted${reasons ? `: ${reasons}` : ''}`;
}

function Title({ entry, onOpen }: { entry: CatalogueEntry; onOpen: () => void }) {
  return (
    <button
      type="button"
      onClick={onOpen}
      aria-haspopup="dialog"
      className={cn(
        'cursor-pointer text-left font-medium hover:underline hover:underline-offset-4',
        // The button covers its row or card, so a click anywhere opens it; keyboard users reach it by Tab.
        'after:absolute after:inset-0 after:content-[""] outline-none focus-visible:after:rounded-lg focus-visible:after:ring-2 focus-visible:after:ring-inset focus-visible:after:ring-ring',
      )}
    >
      {entry.title}
    </button>
  );
}

function Identity({ entry }: { entry: CatalogueEntry }) {
  const details = [entry.variant, entry.sku && `SKU ${entry.sku}`].filter(Boolean).join(' · ');
  return details ? <p className="truncate text-xs text-muted-foreground">{details}</p> : null;
}

type TableProps = { entries: readonly CatalogueEntry[]; onOpen: (entry: CatalogueEntry) => void; now: number };

/** Wide screens: a table, one row per product; phones: a card per product with the same figures. */
export function CatalogueTable({ entries, onOpen, now }: TableProps) {
  return (
    <>
      <div className="hidden overflow-hidden rounded-xl border bg-card shadow-sm lg:block">
        <table className="w-full table-fixed text-sm" aria-label="Your products">
          <thead className="border-b bg-muted/50 text-left text-xs text-muted-foreground">
            <tr>
              <th scope="col" className="w-[30%] px-4 py-2.5 font-medium">
                Product
              </th>
              <th scope="col" className="px-3 py-2.5 text-right font-medium">
                Your price
              </th>
              <th scope="col" className="px-3 py-2.5 text-right font-medium">
                Cheapest
              </th>
              <th scope="col" className="px-3 py-2.5 text-right font-medium">
                Average
              </th>
              <th scope="col" className="px-3 py-2.5 font-medium">
                Rank
              </th>
              <th scope="col" className="w-[15%] px-3 py-2.5 text-right font-medium">
                Gap
              </th>
              <th scope="col" className="w-[17%] px-3 py-2.5 font-medium">
                Position
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => {
              const view = viewOf(entry, now);
              return (
                <tr key={entry.id} data-entry={entry.id} className="relative border-b transition-colors last:border-0 hover:bg-accent/50">
                  <td className="px-4 py-3">
                    <div className="flex min-w-0 items-center gap-3">
                      <ProductImage url={entry.imageUrl} className="size-10" />
                      <div className="min-w-0">
                        <p className="line-clamp-2 break-words">
                          <Title entry={entry} onOpen={() => onOpen(entry)} />
                        </p>
                        <Identity entry={entry} />
                      </div>
                    </div>
                  </td>
                  <td className="px-3 py-3 text-right font-semibold tabular-nums">{view.price}</td>
                  <td className="px-3 py-3 text-right tabular-nums">
                    {view.cheapest ? (
                      <>
                        <p>{view.cheapest.price}</p>
                        <p className="truncate text-xs text-muted-foreground">{view.cheapest.host}</p>
                      </>
                    ) : (
                      <span className="text-muted-foreground">—</span>
                    )}
                  </td>
                  <td className="px-3 py-3 text-right tabular-nums">{view.average ?? <span className="text-muted-foreground">—</span>}</td>
                  <td className="whitespace-nowrap px-3 py-3">{view.rank ?? <span className="text-muted-foreground">—</span>}</td>
                  <td className="px-3 py-3 text-right">
                    <Gap gap={view.gap} />
                  </td>
                  <td className="px-3 py-3">
                    <BandBadge entry={entry} />
                    <p className="mt-1 line-clamp-2 text-xs text-muted-foreground">{entry.position ? view.checked : noPosition(entry)}</p>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>

      <ul className="grid gap-3 lg:hidden" aria-label="Your products">
        {entries.map((entry) => {
          const view = viewOf(entry, now);
          return (
            <li key={entry.id} data-entry={entry.id} className="relative rounded-xl border bg-card p-4 shadow-sm transition-colors hover:bg-accent/50">
              <div className="flex items-start gap-3">
                <ProductImage url={entry.imageUrl} className="size-11" />
                <div className="min-w-0 flex-1">
                  <h2 className="line-clamp-2 break-words text-sm">
                    <Title entry={entry} onOpen={() => onOpen(entry)} />
                  </h2>
                  <Identity entry={entry} />
                </div>
                <BandBadge entry={entry} />
              </div>
              {entry.position ? (
                <>
                  <dl className="mt-3 grid grid-cols-2 gap-x-4 gap-y-2 text-sm sm:grid-cols-4">
                    <Figure term="Your price" className="font-semibold">
                      {view.price}
                    </Figure>
                    <Figure term="Cheapest">{view.cheapest ? `${view.cheapest.price} · ${view.cheapest.host}` : '—'}</Figure>
                    <Figure term="Average">{view.average ?? '—'}</Figure>
                    <Figure term="Rank">{view.rank ?? '—'}</Figure>
                    <Figure term="Gap" wide>
                      <Gap gap={view.gap} />
                    </Figure>
                  </dl>
                  <p className="mt-2 text-xs text-muted-foreground">{view.checked}</p>
                </>
              ) : (
                // Without a position there is only the owner's price to show.
                <dl className="mt-3 grid grid-cols-2 gap-x-4 text-sm">
                  <Figure term="Your price" className="font-semibold">
                    {view.price}
                  </Figure>
                  <div className="min-w-0 self-end text-xs text-muted-foreground">
                    <dt className="sr-only">Position</dt>
                    <dd>{noPosition(entry)}</dd>
                  </div>
                </dl>
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
}

function Figure({ term, className, wide, children }: { term: string; className?: string; wide?: boolean; children: ReactNode }) {
  return (
    <div className={cn('min-w-0', wide && 'col-span-2')}>
      <dt className="text-xs text-muted-foreground">{term}</dt>
      <dd className={cn('truncate tabular-nums', className)}>{children}</dd>
    </div>
  );
}
