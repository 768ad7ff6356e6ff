import { SearchX, Store, Upload } from 'lucide-react';
import { Button } from '../ui/Button';
import { Skeleton } from '../ui/Skeleton';
import { LoadFailed as ListLoadFailed, Loading, StateMessage } from '../ui/StateMessage';

/** Placeholder rows while the catalogue loads. */
export function CatalogueSkeleton() {
  return (
    <Loading label="Loading your catalogue" className="grid gap-3">
      {Array.from({ length: 5 }, (_, i) => (
        <Skeleton key={i} className="h-20 w-full rounded-xl" />
      ))}
    </Loading>
  );
}

type SourceActionsProps = { onConnect: () => void; onImport: () => void };

/** The two ways products come in, in the toolbar and on the empty screen alike. */
export function SourceActions({ onConnect, onImport }: SourceActionsProps) {
  return (
    <>
      <Button variant="outline" onClick={onImport}>
        <Upload aria-hidden="true" />
        Import CSV
      </Button>
      <Button onClick={onConnect}>
        <Store aria-hidden="true" />
        Connect store
      </Button>
    </>
  );
}

export function NoCatalogue(props: SourceActionsProps) {
  return (
    <StateMessage icon={<Store aria-hidden="true" />} title="Connect your store to see where you stand" actions={<SourceActions {...props} />}>
      Bring in the products you sell from Shopify, WooCommerce or a Google Merchant feed, or import them from a CSV file. Then link each one to the competitor
      pages you track, and see whether you are the cheapest, competitive or above the market.
    </StateMessage>
  );
}

export function NoMatch({ query, band, onClear }: { query: string; band: string; onClear: () => void }) {
  const q = query.trim();
  return (
    <StateMessage
      icon={<SearchX aria-hidden="true" />}
      title="No products found"
      actions={
        <Button variant="outline" onClick={onClear}>
          Show all products
        </Button>
      }
    >
      {q ? `No product title or SKU matches “${q}”${band !== 'All' ? ` in ${band}` : ''}.` : `None of your products is in ${band} right now.`}
    </StateMessage>
  );
}

export function LoadFailed({ onRetry }: { onRetry: () => void }) {
  return <ListLoadFailed title="Your catalogue could not be loaded" onRetry={onRetry} />;
}
