import type { ReactNode } from 'react';
import { SearchX, Store, TriangleAlert, Upload } from 'lucide-react';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { Skeleton } from '../ui/Skeleton';

/** Placeholder rows while the catalogue loads. */
export function CatalogueSkeleton() {
  return (
    <div className="grid gap-3" aria-busy="true">
      <span className="sr-only" role="status">
        Loading your catalogue
      </span>
      {Array.from({ length: 5 }, (_, i) => (
        <Skeleton key={i} className="h-20 w-full rounded-xl" />
      ))}
    </div>
  );
}

function Message({ icon, title, children, actions }: { icon: ReactNode; title: string; children: ReactNode; actions: ReactNode }) {
  return (
    <Card className="flex flex-col items-center px-6 py-14 text-center">
      <span className="mb-4 flex size-12 items-center justify-center rounded-full bg-muted text-muted-foreground [&_svg]:size-6">{icon}</span>
      <h2 className="text-lg font-semibold">{title}</h2>
      <p className="mt-1 max-w-md text-sm text-muted-foreground">{children}</p>
      <div className="mt-6 flex flex-wrap justify-center gap-2">{actions}</div>
    </Card>
  );
}

export function NoCatalogue({ onConnect, onImport }: { onConnect: () => void; onImport: () => void }) {
  return (
    <Message
      icon={<Store aria-hidden="true" />}
      title="Connect your store to see where you stand"
      actions={
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
      }
    >
      Bring in the products you sell from Shopify, WooCommerce or a Google Merchant feed, or import them from a CSV file. Then link each one to the competitor
      pages you track, and see whether you are the cheapest, competitive or above the market.
    </Message>
  );
}

export function NoMatch({ query, band, onClear }: { query: string; band: string; onClear: () => void }) {
  const q = query.trim();
  return (
    <Message
      icon={<SearchX aria-hidden="true" />}
      title="No products found"
      actions={
        <Button variant="outline" onClick={onClear}>
          Show all products
        </Button>
      }
    >
      {q ? `No product title or SKU matches “${q}”${band !== 'All' ? ` in ${band}` : ''}.` : `None of your products is in ${band} right now.`}
    </Message>
  );
}

export function LoadFailed({ onRetry }: { onRetry: () => void }) {
  return (
    <Message
      icon={<TriangleAlert aria-hidden="true" />}
      title="Your catalogue could not be loaded"
      actions={
        <Button variant="outline" onClick={onRetry}>
          Try again
        </Button>
      }
    >
      Something went wrong while loading your products. Please try again.
    </Message>
  );
}
