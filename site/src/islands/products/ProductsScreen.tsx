import { useEffect, useRef, useState } from 'react';
import { useStore } from '@nanostores/react';
import { Download, Info, Plus, Upload } from 'lucide-react';
import { onMount } from 'nanostores';
import type { Product } from '../../lib/api';
import { awaitingRecheck, filterProducts, FIRST_CHECK_WAIT_MS, recheckAfterEdit, type Recheck } from '../../lib/products';
import { EXPORT_HREF, keepExisting } from '../../lib/catalogue';
import { $productsVersion, refreshProducts } from '../../stores/products';
import { $user } from '../../stores/auth';
import { loadable, readStore } from '../../stores/query';
import { productUsage } from '../../lib/plan-limits';
import { AppShell } from '../shell/AppShell';
import { Button } from '../ui/Button';
import { SearchInput } from '../ui/Input';
import { useOpenDialog } from '../ui/Dialog';
import { ShowMore, usePaged } from '../ui/ShowMore';
import { AddProductDialog } from './AddProductDialog';
import { BulkBar, BulkDeleteDialog, BulkThresholdDialog, type BulkDialog } from './BulkActions';
import { ImportCsvDialog } from './ImportCsvDialog';
import { CheckHealthPanel } from './CheckHealthPanel';
import { DeleteProductDialog } from './DeleteProductDialog';
import { EditProductDialog } from './EditProductDialog';
import { GRID, LoadFailed, NoMatch, NoProducts, ProductSkeletons } from './ListStates';
import { ProductCard, type ProductAction } from './ProductCard';
import { UpdatePriceDialog } from './UpdatePriceDialog';
import { ProductLimitDialog } from './ProductLimitDialog';

export default function ProductsScreen() {
  return (
    <AppShell title="Products" subtitle="Manage the competitor products you track">
      <Products />
    </AppShell>
  );
}

type OpenDialog = { kind: 'add' | 'limit' | 'import' | BulkDialog } | { kind: ProductAction; product: Product };

/** While a new product waits for its first price, the list is fetched again this often. */
const FIRST_CHECK_POLL_MS = 2_000;
/** Cards rendered at first and per "Show more": a few screens' worth, fitting 1 to 4 columns. */
const CARDS_PER_PAGE = 48;

/**
 * The list, read on load, after every change, and while a first check runs; a refresh keeps the
 * cards on screen meanwhile, and a failure says so until the next answer. A 401 has its own toast
 * and sign-in redirect (the call's 'Session Expired').
 */
const $productList = readStore('products');
onMount($productList, () => $productsVersion.listen(() => $productList.revalidate()));
const $products = loadable($productList, { keepError: true });

function Products() {
  const user = useStore($user);
  const { data, error } = useStore($products);
  const products = data ?? null;
  const failed = !!error;
  const [query, setQuery] = useState('');
  /** Products chosen for a bulk action. */
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const searchRef = useRef<HTMLInputElement>(null);
  // Focus goes back to the search box when the control that opened a dialog is gone (a deleted card).
  const { dialog, open, close, dialogProps } = useOpenDialog<OpenDialog>(searchRef);
  /** When this screen first saw each product still waiting for its first check. */
  const pendingSince = useRef(new Map<string, number>());
  /** Products whose address or selector was just changed, waiting for the check the edit queued. */
  const [rechecks, setRechecks] = useState(new Map<string, Recheck>());

  // Products that are gone leave the selection with each new list.
  useEffect(() => {
    if (data) setSelected((ids) => keepExisting(ids, data));
  }, [data]);

  // A new product is checked at once, and so is a new address or selector: fetch again until the
  // result (or failure) arrives, for a minute at most.
  useEffect(() => {
    const now = Date.now();
    const waiting = (products ?? []).filter((p) => {
      if (p.checkStatus !== 'pending') return false;
      const since = pendingSince.current.get(p.id) ?? now;
      pendingSince.current.set(p.id, since);
      return now - since < FIRST_CHECK_WAIT_MS;
    });
    const rechecking = (products ?? []).filter((p) => awaitingRecheck(p, rechecks.get(p.id), now));
    // Checked (or given up on): those cards go back to saying how their last check went.
    if (rechecking.length < rechecks.size) setRechecks(new Map(rechecking.map((p) => [p.id, rechecks.get(p.id)!])));
    if (!waiting.length && !rechecking.length) return;
    const timer = setTimeout(() => $productList.revalidate(), FIRST_CHECK_POLL_MS);
    return () => clearTimeout(timer);
  }, [products, rechecks]);

  /** Shows the server's answer at once, then refreshes the list and the dashboard figures. */
  function changed(update?: (list: Product[]) => Product[]) {
    const list = $products.get().data;
    if (update && list) $productList.mutate(update(list));
    close();
    refreshProducts();
  }

  // At the plan's limit Add Product says why instead of opening a form the server would refuse.
  const usage = products ? productUsage(user, products.length) : null;
  const addProduct = () => open({ kind: usage ? 'limit' : 'add' });
  const visible = products ? filterProducts(products, query) : [];
  const paged = usePaged(visible, CARDS_PER_PAGE, query);
  const selectedIds = [...selected];
  const allVisibleSelected = visible.length > 0 && visible.every((p) => selected.has(p.id));
  function select(id: string, on: boolean) {
    setSelected((ids) => {
      const next = new Set(ids);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }
  /** Selects every product the search shows, or clears the selection when all of them already are. */
  function selectAllMatching() {
    setSelected(allVisibleSelected ? new Set() : new Set([...selected, ...visible.map((p) => p.id)]));
  }
  function bulkDone() {
    setSelected(new Set());
    changed();
  }

  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
        <SearchInput
          ref={searchRef}
          aria-label="Search products"
          placeholder="Search products..."
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          className="w-full sm:max-w-sm"
        />
        <div className="flex flex-wrap gap-2">
          <Button variant="outline" onClick={() => open({ kind: 'import' })}>
            <Upload aria-hidden="true" />
            Import CSV
          </Button>
          <Button variant="outline" asChild>
            <a href={EXPORT_HREF} download>
              <Download aria-hidden="true" />
              Export CSV
            </a>
          </Button>
          <Button onClick={addProduct} aria-describedby={usage ? 'product-limit' : undefined}>
            <Plus aria-hidden="true" />
            Add Product
          </Button>
        </div>
      </div>

      {usage && (
        <p id="product-limit" className="flex items-start gap-2 rounded-lg border bg-muted/50 p-3 text-sm">
          <Info aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
          <span>
            <strong className="font-semibold">{usage.text}.</strong>{' '}
            <a href="/billing" className="font-medium underline underline-offset-4">
              Upgrade your plan
            </a>{' '}
            to add more{usage.paused ? ' and to check paused products again' : ''}.
          </span>
        </p>
      )}

      {visible.length > 0 && (
        <div className="flex items-center gap-3 text-sm">
          <Button variant="outline" size="sm" onClick={selectAllMatching}>
            {allVisibleSelected ? 'Clear selection' : query.trim() ? `Select all matching (${visible.length})` : `Select all (${visible.length})`}
          </Button>
        </div>
      )}

      <p className="sr-only" role="status">
        {products && query.trim() ? `${visible.length} of ${products.length} products shown` : ''}
      </p>

      {products === null ? (
        failed ? (
          <LoadFailed onRetry={refreshProducts} />
        ) : (
          <ProductSkeletons />
        )
      ) : products.length === 0 ? (
        <NoProducts onAdd={addProduct} />
      ) : visible.length === 0 ? (
        <NoMatch
          query={query}
          onClear={() => {
            setQuery('');
            searchRef.current?.focus();
          }}
          onAdd={addProduct}
        />
      ) : (
        <ul className={GRID} aria-label="Products">
          {paged.shown.map((product) => (
            <li key={product.id} className="flex min-w-0">
              <ProductCard
                product={product}
                onAction={(kind, p) => open({ kind, product: p })}
                selected={selected.has(product.id)}
                onSelectedChange={(on) => select(product.id, on)}
                rechecking={awaitingRecheck(product, rechecks.get(product.id))}
              />
            </li>
          ))}
        </ul>
      )}
      <ShowMore remaining={paged.remaining} onMore={paged.more} noun="products" />

      {selected.size > 0 && (
        <BulkBar count={selected.size} ids={selectedIds} onOpen={(kind) => open({ kind })} onClear={() => setSelected(new Set())} onDone={bulkDone} />
      )}

      {products !== null && products.length > 0 && <CheckHealthPanel />}

      {dialog?.kind === 'import' && (
        <ImportCsvDialog
          {...dialogProps}
          onImported={() => {
            setQuery('');
            changed();
          }}
        />
      )}
      {dialog?.kind === 'delete' && !('product' in dialog) && <BulkDeleteDialog {...dialogProps} ids={selectedIds} onDone={bulkDone} />}
      {dialog?.kind === 'threshold' && <BulkThresholdDialog {...dialogProps} ids={selectedIds} onDone={bulkDone} />}

      {dialog?.kind === 'limit' && usage && <ProductLimitDialog {...dialogProps} reason={usage.reason} />}
      {dialog?.kind === 'add' && (
        <AddProductDialog
          {...dialogProps}
          onAdded={(added) => {
            // A search the new product does not match would hide it: show it instead.
            if (!added || filterProducts([added], query).length === 0) setQuery('');
            changed(added ? (list) => [added, ...list] : undefined);
          }}
        />
      )}
      {(dialog?.kind === 'edit' || dialog?.kind === 'fix-selector') && (
        <EditProductDialog
          {...dialogProps}
          product={dialog.product}
          fixSelector={dialog.kind === 'fix-selector'}
          onSaved={(saved) => {
            // The server checks a new address or selector at once (not a paused product): wait for it as for a first check.
            const before = products?.find((p) => p.id === dialog.product.id) ?? dialog.product;
            const recheck = saved && !saved.checksPaused ? recheckAfterEdit(before, saved) : null;
            if (saved && recheck) setRechecks((waiting) => new Map(waiting).set(saved.id, recheck));
            changed(saved ? (list) => list.map((p) => (p.id === saved.id ? saved : p)) : undefined);
          }}
        />
      )}
      {dialog?.kind === 'price' && <UpdatePriceDialog {...dialogProps} product={dialog.product} onSaved={() => changed()} />}
      {dialog?.kind === 'delete' && 'product' in dialog && (
        <DeleteProductDialog {...dialogProps} product={dialog.product} onDeleted={() => changed((list) => list.filter((p) => p.id !== dialog.product.id))} />
      )}
    </div>
  );
}
