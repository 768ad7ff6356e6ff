import type { ReactNode } from 'react';
import { Package, Plus, SearchX, TriangleAlert } from 'lucide-react';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { Skeleton } from '../ui/Skeleton';

export const GRID = 'grid gap-4 md:grid-cols-2 xl:grid-cols-3';

/** Six placeholder cards shaped like product cards while the list loads. */
export function ProductSkeletons() {
  return (
    <div className={GRID} aria-busy="true">
      <span className="sr-only" role="status">
        Loading products
      </span>
      {Array.from({ length: 6 }, (_, i) => (
        <Card key={i} data-testid="product-skeleton" className="flex flex-col gap-5 p-5">
          <div className="flex items-start gap-3">
            <Skeleton className="size-12" />
            <div className="flex-1 space-y-2">
              <Skeleton className="h-4 w-3/4" />
              <Skeleton className="h-3 w-1/2" />
            </div>
          </div>
          <div className="grid grid-cols-2 gap-4">
            <Skeleton className="h-10" />
            <Skeleton className="h-10" />
          </div>
          <Skeleton className="h-3 w-1/3" />
          <div className="grid grid-cols-2 gap-2">
            <Skeleton className="h-9" />
            <Skeleton className="h-9" />
          </div>
        </Card>
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

export function NoProducts({ onAdd }: { onAdd: () => void }) {
  return (
    <Message
      icon={<Package aria-hidden="true" />}
      title="No products yet"
      actions={
        <Button onClick={onAdd}>
          <Plus aria-hidden="true" />
          Add Your First Product
        </Button>
      }
    >
      Add a competitor's product page and we'll keep an eye on its price for you.
    </Message>
  );
}

export function NoMatch({ query, onClear, onAdd }: { query: string; onClear: () => void; onAdd: () => void }) {
  return (
    <Message
      icon={<SearchX aria-hidden="true" />}
      title="No products found"
      actions={
        <>
          <Button variant="outline" onClick={onClear}>
            Clear Search
          </Button>
          <Button onClick={onAdd}>
            <Plus aria-hidden="true" />
            Add Product
          </Button>
        </>
      }
    >
      No product name or address matches “{query.trim()}”.
    </Message>
  );
}

export function LoadFailed({ onRetry }: { onRetry: () => void }) {
  return (
    <Message
      icon={<TriangleAlert aria-hidden="true" />}
      title="Products could not be loaded"
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
