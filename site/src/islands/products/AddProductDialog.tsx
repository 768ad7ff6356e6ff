import { useState } from 'react';
import { api, isUnauthorizedError, type Product } from '../../lib/api';
import { ADD_THRESHOLDS, serverError, validateProduct, type AddThreshold, type FieldErrors, type ProductFields as Fields } from '../../lib/products';
import { toast } from '../../stores/toast';
import { OptionSelect } from '../ui/Select';
import { Field, focusFirstInvalid, FormDialog } from './FormDialog';
import { ProductFields } from './ProductFields';
import { StockAlertsField } from './StockAlertsField';

type AddProductDialogProps = {
  onClose: () => void;
  /** The new product when the server answers with it. */
  onAdded: (product: Product | null) => void;
  /** The new product's id, which every answer carries (the catalogue links it to an own product). */
  onCreated?: (id: string) => void;
  onCloseAutoFocus: (event: Event) => void;
};

type Form = Fields & { threshold: AddThreshold };

const EMPTY: Form = { name: '', url: '', selector: '', threshold: 'none' };

export function AddProductDialog({ onClose, onAdded, onCreated, onCloseAutoFocus }: AddProductDialogProps) {
  const [form, setForm] = useState<Form>(EMPTY);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [pending, setPending] = useState(false);
  const [stockAlerts, setStockAlerts] = useState(true);

  function change(field: keyof Form, value: string) {
    setForm((f) => ({ ...f, [field]: value }));
    setErrors(({ [field]: _, ...rest }) => rest);
  }

  async function submit(formElement: HTMLFormElement) {
    const invalid = validateProduct(form);
    setErrors(invalid);
    if (Object.keys(invalid).length) return focusFirstInvalid(formElement);

    setPending(true);
    try {
      const added = await api.products.add({ ...form, name: form.name.trim(), url: form.url.trim(), selector: form.selector.trim(), stockAlerts });
      toast({ title: 'Product added', description: `${form.name.trim()} is now being monitored.` });
      onCreated?.(added.id);
      onAdded('name' in added ? added : null);
    } catch (error) {
      setPending(false);
      if (isUnauthorizedError(error)) return;
      const { message, field } = serverError(error);
      if (field && message && field in form) {
        setErrors({ [field]: message });
        focusFirstInvalid(formElement);
      }
      // The plan's product limit (403) and every other refusal read best in the toast.
      toast({ title: 'Failed to add product', description: message ?? 'Please check your inputs and try again.', variant: 'destructive' });
    }
  }

  return (
    <FormDialog
      title="Add New Product"
      description="Track a competitor's product page. We'll check its price and alert you when it changes."
      submitLabel="Add Product"
      pendingLabel="Adding..."
      pending={pending}
      onClose={onClose}
      onSubmit={submit}
      onCloseAutoFocus={onCloseAutoFocus}
    >
      <ProductFields values={form} errors={errors} onChange={change} disabled={pending} />
      <Field label="Alert Threshold" error={errors.threshold} hint="When to alert you about this product's price.">
        {(control) => (
          <OptionSelect {...control} value={form.threshold} options={ADD_THRESHOLDS} onChange={(value) => change('threshold', value)} disabled={pending} />
        )}
      </Field>
      <StockAlertsField checked={stockAlerts} onChange={setStockAlerts} disabled={pending} />
    </FormDialog>
  );
}
