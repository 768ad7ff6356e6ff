import { useState, type MouseEvent } from 'react';
import { api, isUnauthorizedError, type Product } from '../../lib/api';
import { toast } from '../../stores/toast';
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from '../ui/AlertDialog';
import { Spinner } from '../ui/Spinner';

type DeleteProductDialogProps = {
  product: Product;
  onClose: () => void;
  onDeleted: () => void;
  onCloseAutoFocus: (event: Event) => void;
};

export function DeleteProductDialog({ product, onClose, onDeleted, onCloseAutoFocus }: DeleteProductDialogProps) {
  const [pending, setPending] = useState(false);

  async function confirm(event: MouseEvent) {
    event.preventDefault(); // stay open until the server has answered
    setPending(true);
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
    <AlertDialog open onOpenChange={(open) => !open && !pending && onClose()}>
      <AlertDialogContent onCloseAutoFocus={onCloseAutoFocus}>
        <AlertDialogHeader>
          <AlertDialogTitle>Delete {product.name}?</AlertDialogTitle>
          <AlertDialogDescription>
            Are you sure you want to delete this product? This action cannot be undone.
          </AlertDialogDescription>
        </AlertDialogHeader>
        <AlertDialogFooter>
          <AlertDialogCancel disabled={pending}>Cancel</AlertDialogCancel>
          <AlertDialogAction variant="destructive" onClick={confirm} disabled={pending}>
            {pending && <Spinner className="size-4 text-current" label="Deleting" />}
            {pending ? 'Deleting...' : 'Delete'}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
