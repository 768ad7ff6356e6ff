import { useEffect, useState } from 'react';
import { api, isUnauthorizedError, type Backtest, type Product, type ProductChanges } from '../../lib/api';
import { parseEditThreshold, serverError, validateProduct, type FieldErrors, type ProductFields as Fields } from '../../lib/products';
import { toast } from '../../stores/toast';
import { Input } from '../ui/Input';
import { Field, focusFirstInvalid, FormDialog } from './FormDialog';
import { ProductFields } from './ProductFields';
import { StockAlertsField } from './StockAlertsField';

type EditProductDialogProps = {
  product: Product;
  onClose: () => void;
  onSaved: (product: Product | null) => void;
  onCloseAutoFocus: (event: Event) => void;
  /** Opened to fix a selector that matched nothing: says so and starts in the selector field. */
  fixSelector?: boolean;
};

type Form = Fields & { threshold: string };

export function EditProductDialog({ product, onClose, onSaved, onCloseAutoFocus, fixSelector = false }: EditProductDialogProps) {
  const rule = product.alertRule;
  const [form, setForm] = useState<Form>({
    name: product.name,
    url: product.url,
    selector: product.selector,
    threshold: rule.kind === 'drop' ? String(rule.percent) : '',
  });
  // A product alerting on any change has no percent to show; untouched, the field keeps that rule.
  const [thresholdTouched, setThresholdTouched] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [pending, setPending] = useState(false);
  const [stockAlerts, setStockAlerts] = useState(product.stockAlerts);

  function change(field: keyof Form, value: string) {
    setForm((f) => ({ ...f, [field]: value }));
    setErrors(({ [field]: _, ...rest }) => rest);
    if (field === 'threshold') setThresholdTouched(true);
  }

  async function submit(formElement: HTMLFormElement) {
    const invalid: FieldErrors = validateProduct(form);
    const threshold = parseEditThreshold(form.threshold);
    if ('error' in threshold) invalid.threshold = threshold.error;
    setErrors(invalid);
    if (Object.keys(invalid).length || 'error' in threshold) return focusFirstInvalid(formElement);

    const changes: ProductChanges = { name: form.name.trim(), url: form.url.trim(), selector: form.selector.trim(), stockAlerts };
    if (!(rule.kind === 'any' && !thresholdTouched)) changes.threshold = threshold.value;
    setPending(true);
    try {
      const saved = await api.products.edit(product.id, changes);
      toast({ title: 'Product updated', description: `${changes.name} has been saved.` });
      onSaved('name' in saved ? saved : null);
    } catch (error) {
      setPending(false);
      if (isUnauthorizedError(error)) return;
      const { message, field } = serverError(error);
      if (field && message && field in form) {
        setErrors({ [field]: message });
        focusFirstInvalid(formElement);
      }
      toast({ title: 'Failed to update product', description: message ?? undefined, variant: 'destructive' });
    }
  }

  const keepsAnyChange = rule.kind === 'any' && !thresholdTouched;
  return (
    <FormDialog
      title="Edit Product"
      description={
        fixSelector
          ? 'Your selector found no price on the last check, so the price was read from elsewhere on the page. Enter a selector that matches the price, or let AI Detect suggest one.'
          : 'Change what is monitored and when you are alerted.'
      }
      submitLabel="Save Changes"
      pendingLabel="Saving..."
      pending={pending}
      onClose={onClose}
      onSubmit={submit}
      onCloseAutoFocus={onCloseAutoFocus}
    >
      <ProductFields values={form} errors={errors} onChange={change} disabled={pending} autoFocusSelector={fixSelector} />
      <Field
        label="Alert Threshold (%)"
        error={errors.threshold}
        hint={
          keepsAnyChange
            ? 'Currently alerts on any change. Enter a percent to be alerted only when the price drops by that much or more.'
            : 'Alert when the price drops by this percent or more. Leave empty for no alerts.'
        }
      >
        {(control) => (
          <Input
            {...control}
            type="number"
            inputMode="decimal"
            min={0}
            step={0.1}
            value={form.threshold}
            onChange={(e) => change('threshold', e.target.value)}
            placeholder={keepsAnyChange ? 'Any change' : 'e.g. 5'}
            disabled={pending}
          />
        )}
      </Field>
      <ThresholdBacktest productId={product.id} threshold={keepsAnyChange ? 'any' : form.threshold} />
      <StockAlertsField checked={stockAlerts} onChange={setStockAlerts} disabled={pending} />
    </FormDialog>
  );
}

/**
 * How many alerts the threshold being typed would have raised over the product's last 30 days,
 * replayed on the server through the same rule that raises alerts.
 */
function ThresholdBacktest({ productId, threshold }: { productId: string; threshold: string }) {
  const text = threshold.trim();
  const valid = text === 'any' || (text !== '' && !('error' in parseEditThreshold(text)));
  const [result, setResult] = useState<{ threshold: string; answer: Backtest } | null>(null);

  useEffect(() => {
    if (!valid) return;
    let current = true;
    // Typing '12.5' asks once, not for '1', '12' and '12.'.
    const timer = setTimeout(() => {
      api.alerts.backtest(productId, text).then(
        (answer) => current && setResult({ threshold: text, answer }),
        () => {},
      );
    }, 300);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [productId, text, valid]);

  if (!valid) return null;
  const answer = result?.threshold === text ? result.answer : null;
  return (
    <p role="status" aria-live="polite" className="-mt-2 text-sm text-muted-foreground">
      {!answer
        ? 'Checking the last 30 days...'
        : answer.observations === 0
          ? 'No prices in the last 30 days to test this threshold on.'
          : `Over the last ${answer.days} days this would have raised ${answer.alerts} alert${answer.alerts === 1 ? '' : 's'} (${answer.changes} price change${answer.changes === 1 ? '' : 's'}).${answer.priceDropAlerts ? '' : ' Price drop alerts are off in your settings.'}`}
    </p>
  );
}
