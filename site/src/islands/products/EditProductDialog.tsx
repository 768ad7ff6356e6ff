import { useState } from 'react';
import { api, isUnauthorizedError, type Product, type ProductChanges } from '../../lib/api';
import { parseEditThreshold, serverError, validateProduct, type FieldErrors, type ProductFields as Fields } from '../../lib/products';
import { toast } from '../../stores/toast';
import { Input } from '../ui/Input';
import { Field, focusFirstInvalid, FormDialog } from './FormDialog';
import { ProductFields } from './ProductFields';

type EditProductDialogProps = {
  product: Product;
  onClose: () => void;
  onSaved: (product: Product | null) => void;
  onCloseAutoFocus: (event: Event) => void;
};

type Form = Fields & { threshold: string };

export function EditProductDialog({ product, onClose, onSaved, onCloseAutoFocus }: EditProductDialogProps) {
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

    const changes: ProductChanges = { name: form.name.trim(), url: form.url.trim(), selector: form.selector.trim() };
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
      description="Change what is monitored and when you are alerted."
      submitLabel="Save Changes"
      pendingLabel="Saving..."
      pending={pending}
      onClose={onClose}
      onSubmit={submit}
      onCloseAutoFocus={onCloseAutoFocus}
    >
      <ProductFields values={form} errors={errors} onChange={change} disabled={pending} />
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
    </FormDialog>
  );
}
