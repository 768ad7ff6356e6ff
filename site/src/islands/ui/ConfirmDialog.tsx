import { useState, type MouseEvent, type ReactNode } from 'react';
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from './AlertDialog';
import { Spinner } from './Spinner';

type ConfirmDialogProps = {
  title: ReactNode;
  description: ReactNode;
  cancelLabel: string;
  confirmLabel: string;
  /** Shown on the confirm button while `onConfirm` runs, e.g. 'Deleting...'. */
  pendingLabel: string;
  /** Does the work; the dialog stays open and cannot be dismissed until it settles. */
  onConfirm: () => Promise<void>;
  onClose: () => void;
  onCloseAutoFocus?: (event: Event) => void;
};

/** A destructive action behind a confirmation. */
export function ConfirmDialog({ title, description, cancelLabel, confirmLabel, pendingLabel, onConfirm, onClose, onCloseAutoFocus }: ConfirmDialogProps) {
  const [pending, setPending] = useState(false);

  async function confirm(event: MouseEvent) {
    event.preventDefault(); // stay open until the server has answered
    setPending(true);
    try {
      await onConfirm();
    } finally {
      setPending(false);
    }
  }

  return (
    <AlertDialog open onOpenChange={(open) => !open && !pending && onClose()}>
      <AlertDialogContent onCloseAutoFocus={onCloseAutoFocus}>
        <AlertDialogHeader>
          <AlertDialogTitle>{title}</AlertDialogTitle>
          <AlertDialogDescription>{description}</AlertDialogDescription>
        </AlertDialogHeader>
        <AlertDialogFooter>
          <AlertDialogCancel disabled={pending}>{cancelLabel}</AlertDialogCancel>
          <AlertDialogAction variant="destructive" onClick={confirm} disabled={pending}>
            {pending && <Spinner className="size-4 text-current" label={pendingLabel} />}
            {pending ? pendingLabel : confirmLabel}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
