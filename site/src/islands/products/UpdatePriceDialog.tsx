import { useState } from 'react';
import { api, isUnauthorizedError, type Product } from '../../lib/api';
import { formatPrice } from '../../lib/format';
import { currencySymbol } from '../../../../domain/money.ts';
import { serverError, validatePrice } from '../../lib/products';
import { toast } from '../../stores/toast';
import { Input } from '../ui/Input';
import { Field, focusFirstInvalid, FormDialog } from './FormDialog';

type UpdatePriceDialogProps = {
  product: Product;
  onClose: () => void;
  onSaved: () => void;
  onCloseAutoFocus: (event: Event) => void;
};

export function UpdatePriceDialog({ product, onClose, onSaved, onCloseAutoFocus }: UpdatePriceDialogProps) {
  const [price, setPrice] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(form: HTMLFormElement) {
    const invalid = validatePrice(price);
    setError(invalid);
    if (invalid) return focusFirstInvalid(form);

    setPending(true);
    try {
      const answer = await api.products.updatePrice(product.id, price.trim());
      toast({ title: 'Price updated', description: `New price: ${formatPrice(answer.price, answer.currency)}` });
      onSaved();
    } catch (err) {
      setPending(false);
      if (isUnauthorizedError(err)) return;
      const { message, field } = serverError(err);
      if (field === 'price' && message) {
        setError(message);
        focusFirstInvalid(form);
      }
      toast({ title: 'Failed to update price', description: message ?? undefined, variant: 'destructive' });
    }
  }

  const current = product.currentPrice === null ? 'none yet' : formatPrice(product.currentPrice, product.currency);
  return (
    <FormDialog
      title="Update Price Manually"
      description={
        <>
          Enter the price you see for <span className="font-medium text-foreground">{product.name}</span>. Current price: {current}.
        </>
      }
      submitLabel="Update Price"
      pendingLabel="Updating..."
      pending={pending}
      onClose={onClose}
      onSubmit={submit}
      onCloseAutoFocus={onCloseAutoFocus}
    >
      <Field
        label={`New Price (${currencySymbol(product.currency)})`}
        error={error}
        hint={`In ${product.currency}, the currency of this product's prices, e.g. 24.99.`}
      >
        {(control) => (
          <Input
            {...control}
            type="number"
            inputMode="decimal"
            min={0.01}
            step={0.01}
            value={price}
            onChange={(e) => {
              setPrice(e.target.value);
              setError(null);
            }}
            placeholder="0.00"
            disabled={pending}
          />
        )}
      </Field>
    </FormDialog>
  );
}
