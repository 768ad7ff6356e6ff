import { Package, Plus, SearchX } from 'lucide-react';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { Skeleton } from '../ui/Skeleton';
import { LoadFailed as ListLoadFailed, Loading, StateMessage } from '../ui/StateMessage';

export const GRID = 'grid gap-4 md:grid-cols-2 xl:grid-cols-3';

/** Six placeholder cards shaped like product cards while the list loads. */
export function ProductSkeletons() {
  return (
    <Loading label="Loading products" className={GRID}>
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
    </Loading>
  );
}

export function NoProducts({ onAdd }: { onAdd: () => void }) {
  return (
    <StateMessage
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
    </StateMessage>
  );
}

export function NoMatch({ query, onClear, onAdd }: { query: string; onClear: () => void; onAdd: () => void }) {
  return (
    <StateMessage
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
    </StateMessage>
  );
}

export function LoadFailed({ onRetry }: { onRetry: () => void }) {
  return <ListLoadFailed title="Products could not be loaded" onRetry={onRetry} />;
}
