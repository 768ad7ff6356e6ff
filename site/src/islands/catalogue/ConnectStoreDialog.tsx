import { useState } from 'react';
import { Info } from 'lucide-react';
import { api, isUnauthorizedError, type SourceKind } from '../../lib/api';
import { serverError } from '../../lib/products';
import { toast } from '../../stores/toast';
import { Input } from '../ui/Input';
import { OptionSelect } from '../ui/Select';
import { Field, focusFirstInvalid, FormDialog } from '../products/FormDialog';
import { plural, SOURCE_KINDS } from './model';

type ConnectStoreDialogProps = {
  onClose: () => void;
  onConnected: () => void;
  onCloseAutoFocus: (event: Event) => void;
};

/**
 * Connect store: the platform and the address. The store is read while the dialog waits, so a
 * refusal (a bad address, a page that is not a catalogue, the plan) is shown where it applies.
 */
export function ConnectStoreDialog({ onClose, onConnected, onCloseAutoFocus }: ConnectStoreDialogProps) {
  const [kind, setKind] = useState<SourceKind>('shopify');
  const [url, setUrl] = useState('');
  const [error, setError] = useState<string | null>(null);
  /** The plan's refusal (403): not about the address, so shown above the fields with a way to upgrade. */
  const [planMessage, setPlanMessage] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const chosen = SOURCE_KINDS.find((k) => k.value === kind)!;

  async function submit(form: HTMLFormElement) {
    if (!url.trim()) {
      setError('Please enter the address of your store or feed');
      return focusFirstInvalid(form);
    }
    setPending(true);
    setPlanMessage(null);
    try {
      const answer = await api.catalogue.connect(kind, url.trim());
      const skipped = answer.skipped.length ? ` ${plural(answer.skipped.length, 'item')} skipped.` : '';
      toast({ title: 'Store connected', description: `${plural(answer.imported, 'product')} imported.${skipped}` });
      onConnected();
    } catch (caught) {
      setPending(false);
      if (isUnauthorizedError(caught)) return;
      const { status, message } = serverError(caught);
      if (status === 403) return setPlanMessage(message ?? 'Connecting a store needs a paid plan.');
      setError(message ?? 'The store could not be connected. Please try again.');
      focusFirstInvalid(form);
    }
  }

  return (
    <FormDialog
      title="Connect store"
      description="Read your products and prices from your store. Only what your store shows every visitor is read: no password or key is needed."
      submitLabel="Connect store"
      pendingLabel="Reading your store..."
      pending={pending}
      onClose={onClose}
      onSubmit={submit}
      onCloseAutoFocus={onCloseAutoFocus}
    >
      {planMessage && (
        <p role="alert" className="flex items-start gap-2 rounded-lg border bg-muted/50 p-3 text-sm">
          <Info aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
          <span>
            {planMessage}{' '}
            <a href="/billing" className="font-medium underline underline-offset-4">
              See plans
            </a>
          </span>
        </p>
      )}
      <Field label="Platform">
        {(control) => (
          <OptionSelect
            {...control}
            value={kind}
            options={SOURCE_KINDS}
            onChange={(value) => {
              setKind(value);
              setError(null);
            }}
            disabled={pending}
          />
        )}
      </Field>
      <Field label={kind === 'merchant-feed' ? 'Feed address' : 'Store address'} error={error} hint={chosen.hint}>
        {(control) => (
          <Input
            {...control}
            type="url"
            inputMode="url"
            autoComplete="url"
            placeholder={chosen.placeholder}
            value={url}
            onChange={(e) => {
              setUrl(e.target.value);
              setError(null);
            }}
            disabled={pending}
          />
        )}
      </Field>
    </FormDialog>
  );
}
