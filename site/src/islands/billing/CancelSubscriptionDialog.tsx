import { useState, type MouseEvent } from 'react';
import { api, isUnauthorizedError, type BillingAnswer } from '../../lib/api';
import { formatBillingDate, type Subscription } from '../../lib/billing';
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

type CancelSubscriptionDialogProps = {
  subscription: Subscription;
  onClose: () => void;
  onCancelled: (answer: BillingAnswer) => void;
};

/** Cancels at the end of the billing period, after the spec's confirmation. */
export function CancelSubscriptionDialog({ subscription, onClose, onCancelled }: CancelSubscriptionDialogProps) {
  const [pending, setPending] = useState(false);

  async function confirm(event: MouseEvent) {
    event.preventDefault(); // stay open until the server has answered
    setPending(true);
    try {
      const answer = await api.billing.cancel();
      toast({ title: 'Subscription Cancelled', description: `You keep access until ${formatBillingDate(answer.subscription?.current_period_end ?? subscription.current_period_end)}.` });
      onCancelled(answer);
    } catch (error) {
      if (!isUnauthorizedError(error)) toast({ title: 'Failed to cancel subscription. Please try again.', variant: 'destructive' });
      onClose();
    }
  }

  return (
    <AlertDialog open onOpenChange={(open) => !open && !pending && onClose()}>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>Cancel Subscription</AlertDialogTitle>
          <AlertDialogDescription>
            Are you sure you want to cancel your subscription? You'll lose access to premium features at the end of your billing period.
          </AlertDialogDescription>
        </AlertDialogHeader>
        <AlertDialogFooter>
          <AlertDialogCancel disabled={pending}>Keep Subscription</AlertDialogCancel>
          <AlertDialogAction variant="destructive" onClick={confirm} disabled={pending}>
            {pending && <Spinner className="size-4 text-current" label="Cancelling" />}
            {pending ? 'Cancelling...' : 'Cancel Subscription'}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
