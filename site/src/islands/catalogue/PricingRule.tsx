import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { Save, SlidersHorizontal, Trash2 } from 'lucide-react';
import { api, isUnauthorizedError, type CatalogueEntry, type PricingRule } from '../../lib/api';
import { formatPrice } from '../../lib/format';
import { serverError } from '../../lib/products';
import { fieldOf, formFromRule, parseNumber, refusalText, ruleBodyOf, type RuleErrors, type RuleField, type RuleForm } from '../../lib/pricing';
import { toast } from '../../stores/toast';
import { currencySymbol } from '../../../../domain/money.ts';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Input } from '../ui/Input';
import { Label } from '../ui/Label';
import { Skeleton } from '../ui/Skeleton';
import { Spinner } from '../ui/Spinner';
import { fieldId, RuleFields } from './RuleForm';
import { RulePreview } from './RulePreview';
import { refreshCatalogue } from './store';

/** Where focus goes for a message at `field`: the floor's own message goes to its first box. */
function focusField(base: string, field: RuleField) {
  const target = field === 'floor' ? 'floor.costMarginPercent' : field;
  if (target === 'form') return;
  requestAnimationFrame(() => document.getElementById(fieldId(base, target))?.focus());
}

/**
 * The row dialog's pricing rule: the owner's cost, the rule's form with a live preview (today's
 * recommendation and a backtest of the rule as typed), and saving or removing it.
 */
export function PricingRuleSection({ entry }: { entry: CatalogueEntry }) {
  const base = useId();
  const [saved, setSaved] = useState<PricingRule | null | undefined>(undefined);
  const [loadFailed, setLoadFailed] = useState(false);
  const [editing, setEditing] = useState(false);
  const [form, setForm] = useState<RuleForm | null>(null);
  const [serverErrors, setServerErrors] = useState<RuleErrors>({});
  const [busy, setBusy] = useState<'save' | 'remove' | null>(null);
  const hasCost = entry.cost !== null;
  // The cost and the linked competitors' prices move the preview as much as the rule does.
  const previewKey = `${entry.cost} ${entry.price} ${entry.competitors.map((c) => `${c.productId}:${c.price}:${c.lastPriceAt}`).join(' ')}`;

  useEffect(() => {
    let live = true;
    api.catalogue.rule(entry.id).then(
      (rule) => {
        if (!live) return;
        setSaved(rule);
        setForm(formFromRule(rule, { hasCost: entry.cost !== null }));
      },
      (error) => live && !isUnauthorizedError(error) && setLoadFailed(true),
    );
    return () => {
      live = false;
    };
  }, [entry.id]);

  const parsed = useMemo(() => (form ? ruleBodyOf(form) : null), [form]);
  const clientErrors = parsed && 'errors' in parsed ? parsed.errors : {};
  const errors: RuleErrors = { ...serverErrors, ...clientErrors };
  const body = parsed && 'body' in parsed ? parsed.body : null;
  const dirty = useMemo(
    () => saved === null || (form !== null && saved !== undefined && JSON.stringify(form) !== JSON.stringify(formFromRule(saved, { hasCost }))),
    [form, saved, hasCost],
  );
  const shown = saved !== undefined && form !== null && (saved !== null || editing);

  async function save(event: FormEvent) {
    event.preventDefault();
    if (!body) {
      const first = Object.keys(clientErrors)[0] as RuleField | undefined;
      if (first) focusField(base, first);
      return;
    }
    setBusy('save');
    try {
      const rule = await api.catalogue.saveRule(entry.id, body);
      setSaved(rule);
      setForm(formFromRule(rule, { hasCost }));
      setServerErrors({});
      refreshCatalogue();
      toast({ title: 'Pricing rule saved', description: 'Its recommendations are listed under Recommendations.' });
    } catch (error) {
      if (isUnauthorizedError(error)) return;
      const refused = serverError(error);
      const field = refused.status === 400 ? fieldOf(refused.field) : 'form';
      setServerErrors({ [field]: refusalText(refused.message ?? 'The rule could not be saved. Please try again.') });
      focusField(base, field);
    } finally {
      setBusy(null);
    }
  }

  async function remove() {
    setBusy('remove');
    try {
      await api.catalogue.removeRule(entry.id);
      setSaved(null);
      setEditing(false);
      setForm(formFromRule(null, { hasCost }));
      setServerErrors({});
      refreshCatalogue();
      toast({ title: 'Pricing rule removed', description: 'This product gets no more recommendations.' });
    } catch (error) {
      if (!isUnauthorizedError(error))
        toast({ title: 'Could not remove the rule', description: serverError(error).message ?? 'Please try again.', variant: 'destructive' });
    } finally {
      setBusy(null);
    }
  }

  return (
    <section aria-labelledby={`${base}-title`} className="grid min-w-0 grid-cols-1 gap-4 rounded-lg border p-3 sm:p-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 id={`${base}-title`} className="text-sm font-semibold">
          Pricing rule
        </h3>
        {saved ? <Badge variant="success">Rule on</Badge> : saved === null ? <Badge variant="outline">No rule</Badge> : null}
      </div>

      <CostField entry={entry} />

      {loadFailed ? (
        <p className="text-sm text-muted-foreground">The pricing rule could not be loaded. Close the product and open it again.</p>
      ) : saved === undefined || !form ? (
        <Skeleton className="h-24 w-full" />
      ) : !shown ? (
        <div className="flex flex-col gap-3 rounded-lg border border-dashed p-4 sm:flex-row sm:items-center">
          <p className="flex-1 text-sm text-muted-foreground">
            No pricing rule yet. A rule recommends a price from the competitors linked to this product, within a floor and a ceiling you set, and says why.
          </p>
          <Button variant="outline" onClick={() => setEditing(true)}>
            <SlidersHorizontal aria-hidden="true" />
            Set a pricing rule
          </Button>
        </div>
      ) : (
        <form onSubmit={save} noValidate className="grid min-w-0 grid-cols-1 gap-4">
          <RuleFields
            base={base}
            form={form}
            onChange={(patch) => setForm((f) => (f ? { ...f, ...patch } : f))}
            errors={errors}
            currency={entry.currency}
            hasCost={hasCost}
            regularPrice={entry.regularPrice}
            competitors={entry.competitors}
            disabled={busy !== null}
          />
          <RulePreview entryId={entry.id} body={body} currency={entry.currency} refresh={previewKey} onRefusal={setServerErrors} />
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            {saved ? (
              <Button variant="outline" onClick={remove} disabled={busy !== null}>
                {busy === 'remove' ? <Spinner className="size-4 text-current" label="Removing" /> : <Trash2 aria-hidden="true" />}
                Remove rule
              </Button>
            ) : (
              <Button
                variant="outline"
                onClick={() => {
                  setEditing(false);
                  setServerErrors({});
                  setForm(formFromRule(null, { hasCost }));
                }}
                disabled={busy !== null}
              >
                Cancel
              </Button>
            )}
            <Button type="submit" disabled={busy !== null || !dirty}>
              {busy === 'save' ? <Spinner className="size-4 text-current" label="Saving" /> : <Save aria-hidden="true" />}
              Save rule
            </Button>
          </div>
        </form>
      )}
    </section>
  );
}

/** The owner's cost of the product, which a floor's margin is over; saved on its own. */
function CostField({ entry }: { entry: CatalogueEntry }) {
  const id = useId();
  const [value, setValue] = useState(entry.cost === null ? '' : String(entry.cost));
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  useEffect(() => setValue(entry.cost === null ? '' : String(entry.cost)), [entry.cost]);
  const typed = parseNumber(value);
  const changed = (typed ?? null) !== entry.cost;

  async function save(event: FormEvent) {
    event.preventDefault();
    if (typed !== undefined && (Number.isNaN(typed) || typed < 0)) return setError('Enter the cost as a number, 0 or more, or leave it empty');
    setSaving(true);
    try {
      const { cost } = await api.catalogue.setCost(entry.id, typed ?? null);
      setError(null);
      refreshCatalogue();
      toast({
        title: cost === null ? 'Cost cleared' : 'Cost saved',
        description: cost === null ? undefined : `${formatPrice(cost, entry.currency)} per item.`,
      });
    } catch (caught) {
      if (!isUnauthorizedError(caught)) setError(refusalText(serverError(caught).message ?? 'The cost could not be saved. Please try again.'));
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={save} noValidate className="grid gap-1.5">
      <Label htmlFor={id}>Your cost</Label>
      <div className="flex flex-wrap items-center gap-2">
        <Input
          id={id}
          inputMode="decimal"
          autoComplete="off"
          value={value}
          onChange={(e) => {
            setValue(e.target.value);
            setError(null);
          }}
          aria-invalid={error ? true : undefined}
          aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
          className="w-28"
        />
        <span className="text-sm text-muted-foreground">{currencySymbol(entry.currency)}</span>
        <Button type="submit" variant="outline" size="sm" disabled={saving || !changed}>
          {saving && <Spinner className="size-4 text-current" label="Saving" />}
          Save cost
        </Button>
      </div>
      {error && (
        <p id={`${id}-error`} className="text-sm font-medium text-destructive">
          {error}
        </p>
      )}
      <p id={`${id}-hint`} className="text-xs text-muted-foreground">
        What one item costs you. A floor can keep a margin over it; your store does not see it.
      </p>
    </form>
  );
}
