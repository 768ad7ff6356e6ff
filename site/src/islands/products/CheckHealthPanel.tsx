import { useId, useState } from 'react';
import { useStore } from '@nanostores/react';
import { ChevronDown, Globe, PauseCircle } from 'lucide-react';
import { onMount } from 'nanostores';
import { failureSummary, hasTrouble, pausedLabel, successRate, type HostHealth } from '../../lib/check-health';
import { relativeTime } from '../../lib/format';
import { cn } from '../../lib/utils';
import { $productsVersion } from '../../stores/products';
import { loadable, readStore } from '../../stores/query';
import { Badge } from '../ui/Badge';
import { Card } from '../ui/Card';

/**
 * Read with the panel and again after every product change; a failure keeps what was shown and
 * says so until the next answer. The panel goes with the last product, and reads afresh when it
 * comes back (the store keeps nothing).
 */
const $checkHealth = readStore('check-health', { dedupeTime: 0, cacheLifetime: 0 });
onMount($checkHealth, () => $productsVersion.listen(() => $checkHealth.revalidate()));
const $health = loadable($checkHealth, { keepError: true });

/**
 * "Check health" below the product grid: per shop, how the last 7 days of checks went. It opens
 * by itself when a shop has trouble, and reloads with the product list (Check Now refreshes it).
 */
export function CheckHealthPanel() {
  const { data, error } = useStore($health);
  const hosts = data?.hosts ?? null;
  const failed = !!error;
  // Until the owner opens or closes it, the panel is open exactly when a shop has trouble.
  const [chosen, setChosen] = useState<boolean | null>(null);
  const panelId = useId();

  const expanded = chosen ?? (hosts !== null && hasTrouble(hosts));
  const paused = hosts?.filter((h) => pausedLabel(h.backedOffUntil) !== null).length ?? 0;
  const summary =
    hosts === null ? '' : hosts.length === 0 ? 'No checks yet' : `${hosts.length} shop${hosts.length === 1 ? '' : 's'}${paused ? ` · ${paused} paused` : ''}`;

  return (
    <Card className="overflow-hidden" data-testid="check-health">
      <h2 className="m-0">
        <button
          type="button"
          aria-expanded={expanded}
          aria-controls={panelId}
          onClick={() => setChosen(!expanded)}
          className="flex w-full items-center gap-3 p-5 text-left outline-none hover:bg-muted/50 focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-inset"
        >
          <span className="flex-1">
            <span className="block text-lg font-semibold leading-tight">Check health</span>
            <span className="block text-sm font-normal text-muted-foreground">How each shop answered our checks in the last 7 days</span>
          </span>
          <span className="text-sm text-muted-foreground">{summary}</span>
          <ChevronDown aria-hidden="true" className={cn('size-5 shrink-0 transition-transform', expanded && 'rotate-180')} />
        </button>
      </h2>
      <div id={panelId} hidden={!expanded} className="border-t px-5 pb-5">
        {hosts === null ? (
          <p className="pt-4 text-sm text-muted-foreground">{failed ? 'Could not load check health.' : 'Loading...'}</p>
        ) : hosts.length === 0 ? (
          <div className="pt-4 text-center">
            <p className="font-medium">No checks yet</p>
            <p className="text-sm text-muted-foreground">Once your products are checked, each shop's results show here.</p>
          </div>
        ) : (
          <ul className="divide-y" aria-label="Shops">
            {hosts.map((host) => (
              <HostRow key={host.host} host={host} />
            ))}
          </ul>
        )}
      </div>
    </Card>
  );
}

function HostRow({ host }: { host: HostHealth }) {
  const paused = pausedLabel(host.backedOffUntil);
  const failures = failureSummary(host.failures);
  return (
    <li className="flex flex-col gap-2 py-4" data-host={host.host}>
      <div className="flex flex-wrap items-center gap-2">
        <Globe aria-hidden="true" className="size-4 shrink-0 text-muted-foreground" />
        <span className="min-w-0 break-all font-medium">{host.host}</span>
        {host.browserNeeded && <Badge className="border-transparent bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200">Needs a browser</Badge>}
        {paused && (
          <Badge className="border-transparent bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200">
            <PauseCircle aria-hidden="true" />
            {paused}
          </Badge>
        )}
      </div>
      <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-sm sm:grid-cols-[auto_auto_1fr] sm:gap-x-8">
        <div>
          <dt className="text-xs text-muted-foreground">Checks</dt>
          <dd className="font-semibold tabular-nums">{host.checks}</dd>
        </div>
        <div>
          <dt className="text-xs text-muted-foreground">Success rate</dt>
          <dd
            className={cn(
              'font-semibold tabular-nums',
              host.successes === host.checks
                ? 'text-green-700 dark:text-green-300'
                : host.successes === 0
                  ? 'text-red-700 dark:text-red-300'
                  : 'text-amber-800 dark:text-amber-300',
            )}
          >
            {successRate(host)}
          </dd>
        </div>
        <div className="col-span-2 sm:col-span-1">
          <dt className="text-xs text-muted-foreground">Failures</dt>
          <dd>{failures || 'None'}</dd>
        </div>
      </dl>
      {host.lastError && (
        <p className="text-sm">
          <span className="text-muted-foreground">Last error </span>
          <time dateTime={host.lastError.at} className="text-muted-foreground">
            ({relativeTime(host.lastError.at)})
          </time>
          <span className="text-muted-foreground">: </span>
          <span className="text-red-700 dark:text-red-300">{host.lastError.message}</span>
        </p>
      )}
    </li>
  );
}
