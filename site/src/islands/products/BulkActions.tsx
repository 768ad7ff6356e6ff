import { useState } from 'react';
import { BellRing, RefreshCw, Trash2, X } from 'lucide-react';
import { api, isUnauthorizedError, type BulkRequest } from '../../lib/api';
import { BULK_THRESHOLDS, bulkToast, type BulkThreshold } from '../../lib/catalogue';
import { toast } from '../../stores/toast';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { OptionSelect } from '../ui/Select';
import { Field, FormDialog } from './FormDialog';

export type BulkDialog = 'delete' | 'threshold';

/** Runs one bulk call and says how it went in a toast; true when it succeeded. */
async function runBulk(request: BulkRequest): Promise<boolean> {
  try {
    toast(bulkToast(await api.products.bulk(request)));
    return true;
  } catch (error) {
    if (!isUnauthorizedError(error)) {
      toast({ title: 'Error', description: 'The action could not be completed. Nothing was changed. Please try again.', variant: 'destructive' });
    }
    return false;
  }
}

type BulkBarProps = {
  count: number;
  ids: string[];
  onOpen: (dialog: BulkDialog) => void;
  onClear: () => void;
  onDone: () => void;
};

/** The bar shown while products are selected: delete, set the alert threshold, check now. */
export function BulkBar({ count, ids, onOpen, onClear, onDone }: BulkBarProps) {
  const [checking, setChecking] = useState(false);

  async function checkNow() {
    setChecking(true);
    if (await runBulk({ action: 'check-now', ids })) onDone();
    setChecking(false);
  }

  return (
    <div
      role="region"
      aria-label="Bulk actions"
      data-toasts-keep-clear
      className="sticky bottom-4 z-40 flex flex-wrap items-center gap-2 rounded-lg border bg-background p-3 shadow-lg"
    >
      <p className="mr-auto text-sm font-medium" aria-live="polite">
        {count} selected
      </p>
      <Button variant="outline" size="sm" onClick={() => onOpen('threshold')}>
        <BellRing aria-hidden="true" />
        Set alert threshold
      </Button>
      <Button variant="outline" size="sm" onClick={checkNow} disabled={checking}>
        <RefreshCw aria-hidden="true" className={checking ? 'animate-spin' : undefined} />
        {checking ? 'Queuing...' : 'Check now'}
      </Button>
      <Button variant="destructive" size="sm" onClick={() => onOpen('delete')}>
        <Trash2 aria-hidden="true" />
        Delete
      </Button>
      <Button variant="ghost" size="sm" onClick={onClear} aria-label="Clear selection">
        <X aria-hidden="true" />
        <span className="sm:sr-only">Clear</span>
      </Button>
    </div>
  );
}

type BulkDialogProps = { ids: string[]; onClose: () => void; onDone: () => void; onCloseAutoFocus: (event: Event) => void };

export function BulkDeleteDialog({ ids, onClose, onDone, onCloseAutoFocus }: BulkDialogProps) {
  const n = ids.length;
  return (
    <ConfirmDialog
      title={`Delete ${n} product${n === 1 ? '' : 's'}?`}
      description={`Are you sure you want to delete ${n === 1 ? 'this product' : `these ${n} products`}? This action cannot be undone.`}
      cancelLabel="Cancel"
      confirmLabel="Delete"
      pendingLabel="Deleting..."
      onConfirm={async () => {
        if (await runBulk({ action: 'delete', ids })) onDone();
        else onClose();
      }}
      onClose={onClose}
      onCloseAutoFocus={onCloseAutoFocus}
    />
  );
}

export function BulkThresholdDialog({ ids, onClose, onDone, onCloseAutoFocus }: BulkDialogProps) {
  const [value, setValue] = useState<BulkThreshold>('10');
  const [pending, setPending] = useState(false);

  async function submit() {
    const choice = BULK_THRESHOLDS.find((t) => t.value === value)!;
    setPending(true);
    if (await runBulk({ action: 'set-threshold', ids, threshold: choice.threshold })) onDone();
    else setPending(false);
  }

  return (
    <FormDialog
      title="Set alert threshold"
      description={`When to alert you about the price of the ${ids.length === 1 ? 'selected product' : `${ids.length} selected products`}.`}
      submitLabel="Apply"
      pendingLabel="Applying..."
      pending={pending}
      onClose={onClose}
      onSubmit={submit}
      onCloseAutoFocus={onCloseAutoFocus}
    >
      <Field label="Alert Threshold">
        {(control) => <OptionSelect {...control} value={value} options={BULK_THRESHOLDS} onChange={setValue} disabled={pending} />}
      </Field>
    </FormDialog>
  );
}
