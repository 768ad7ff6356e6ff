import { useState } from 'react';
import { api, isUnauthorizedError } from '../../lib/api';
import { serverError } from '../../lib/products';
import { toast } from '../../stores/toast';
import { Input } from '../ui/Input';
import { Field, focusFirstInvalid, FormDialog } from '../products/FormDialog';

/** Whether a store has write access, and its masked description ("Admin API token …a1b2"); never the secret. */
export type WriteAccessState = Awaited<ReturnType<typeof api.catalogue.writeAccess.get>>;

type WritableKind = 'shopify' | 'woocommerce';
type FieldName = 'token' | 'consumerKey' | 'consumerSecret';
const FIELDS: Record<WritableKind, readonly FieldName[]> = { shopify: ['token'], woocommerce: ['consumerKey', 'consumerSecret'] };

type WriteAccessDialogProps = {
  source: { id: string; kind: WritableKind; host: string };
  /** The access as it is now: changing it replaces it. */
  current: WriteAccessState;
  onClose: () => void;
  onSaved: (state: WriteAccessState) => void;
  onCloseAutoFocus?: (event: Event) => void;
};

/** A secret is typed or pasted, never filled in or suggested: no saved passwords, no spelling fixes. */
const secretInput = { autoComplete: 'off', autoCapitalize: 'off', autoCorrect: 'off', spellCheck: false } as const;

/**
 * Give (or change) write access to a Shopify or WooCommerce store, so applied prices are written
 * to it. The inputs start empty every time: the secret never comes back from the server, only a
 * masked description of it. A wrong value is said at its field, as the server names it.
 */
export function WriteAccessDialog({ source, current, onClose, onSaved, onCloseAutoFocus }: WriteAccessDialogProps) {
  const [values, setValues] = useState<Record<FieldName, string>>({ token: '', consumerKey: '', consumerSecret: '' });
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  /** A refusal that is about no one field (the store is gone, a Merchant feed). */
  const [formError, setFormError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const shopify = source.kind === 'shopify';

  function change(field: FieldName, value: string) {
    setValues((v) => ({ ...v, [field]: value }));
    setErrors((e) => ({ ...e, [field]: undefined }));
    setFormError(null);
  }

  async function submit(form: HTMLFormElement) {
    setPending(true);
    setErrors({});
    setFormError(null);
    try {
      const access = shopify ? { token: values.token } : { consumerKey: values.consumerKey, consumerSecret: values.consumerSecret };
      const state = await api.catalogue.writeAccess.set(source.id, access);
      toast({ title: current.connected ? 'Write access changed' : 'Write access given', description: `Applied prices are now written to ${source.host}.` });
      onSaved(state);
    } catch (caught) {
      setPending(false);
      if (isUnauthorizedError(caught)) return;
      const { status, message, field } = serverError(caught);
      const text = message ?? 'Write access could not be saved. Please try again.';
      const fields = FIELDS[source.kind];
      const at = fields.find((f) => f === field);
      if (at) setErrors({ [at]: text });
      // A 400 about the body as a whole is still about what was typed: said at the first field.
      else if (status === 400 && field) setErrors({ [fields[0]!]: text });
      else setFormError(text);
      focusFirstInvalid(form);
    }
  }

  return (
    <FormDialog
      title={current.connected ? 'Change write access' : 'Give write access'}
      description={
        <>
          Applied prices are written to <span className="font-medium text-foreground">{source.host}</span> instead of only exported as CSV.
          {current.connected && current.description && (
            <>
              {' '}
              Now: <span className="whitespace-nowrap">{current.description}</span>; what you enter replaces it.
            </>
          )}
        </>
      }
      submitLabel={current.connected ? 'Save write access' : 'Give write access'}
      pendingLabel="Saving..."
      pending={pending}
      onClose={onClose}
      onSubmit={submit}
      onCloseAutoFocus={onCloseAutoFocus}
    >
      {formError && (
        <p role="alert" className="rounded-lg border border-destructive/40 bg-destructive/10 p-3 text-sm text-destructive">
          {formError}
        </p>
      )}
      {shopify ? (
        <Field
          label="Admin API access token"
          error={errors.token}
          hint={
            <>
              In your Shopify admin, open Settings &gt; Apps and sales channels &gt; Develop apps and create a custom app with the{' '}
              <code className="font-mono">write_products</code> scope. Install it, then paste its Admin API access token (it usually starts with{' '}
              <code className="font-mono">shpat_</code>).
            </>
          }
        >
          {(control) => (
            <Input {...control} {...secretInput} type="password" value={values.token} onChange={(e) => change('token', e.target.value)} disabled={pending} />
          )}
        </Field>
      ) : (
        <>
          <Field
            label="Consumer key"
            error={errors.consumerKey}
            hint={
              <>
                In WordPress, open WooCommerce &gt; Settings &gt; Advanced &gt; REST API and add a key with Read/Write permission. The key starts with{' '}
                <code className="font-mono">ck_</code>.
              </>
            }
          >
            {(control) => (
              <Input
                {...control}
                {...secretInput}
                type="password"
                value={values.consumerKey}
                onChange={(e) => change('consumerKey', e.target.value)}
                disabled={pending}
              />
            )}
          </Field>
          <Field
            label="Consumer secret"
            error={errors.consumerSecret}
            hint={
              <>
                Shown once, next to the key; it starts with <code className="font-mono">cs_</code>.
              </>
            }
          >
            {(control) => (
              <Input
                {...control}
                {...secretInput}
                type="password"
                value={values.consumerSecret}
                onChange={(e) => change('consumerSecret', e.target.value)}
                disabled={pending}
              />
            )}
          </Field>
        </>
      )}
      <p className="text-xs text-muted-foreground">
        {shopify
          ? 'Pricewatch keeps the token to write prices and never shows it again. Remove write access here, or revoke it in your store, at any time.'
          : 'Pricewatch keeps the key and secret to write prices and never shows them again. Remove write access here, or revoke the key in your store, at any time.'}
      </p>
    </FormDialog>
  );
}
