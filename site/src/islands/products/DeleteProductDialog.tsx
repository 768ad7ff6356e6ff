import { api, isUnauthorizedError, type Product } from '../../lib/api';
import { toast } from '../../stores/toast';
import { ConfirmDialog } from '../ui/ConfirmDialog';

type DeleteProductDialogProps = {
  product: Product;
  onClose: () => void;
  onDeleted: () => void;
  onCloseAutoFocus: (event: Event) => void;
};

export function DeleteProductDialog({ product, onClose, onDeleted, onCloseAutoFocus }: DeleteProductDialogProps) {
  async function remove() {
    try {
      await api.products.remove(product.id);
      toast({ title: 'Product deleted', description: `${product.name} is no longer monitored.` });
      onDeleted();
    } catch (error) {
      if (!isUnauthorizedError(error)) {
        toast({ title: 'Error', description: 'Failed to delete product. Please try again.', variant: 'destructive' });
      }
      onClose();
    }
  }

  return (
    <ConfirmDialog
      title={`Delete ${product.name}?`}
      description="Are you sure you want to delete this product? This action cannot be undone."
      cancelLabel="Cancel"
      confirmLabel="Delete"
      pendingLabel="Deleting..."
      onConfirm={remove}
      onClose={onClose}
      onCloseAutoFocus={onCloseAutoFocus}
    />
  );
}
