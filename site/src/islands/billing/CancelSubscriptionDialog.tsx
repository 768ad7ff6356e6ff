import { api, isUnauthorizedError, type BillingAnswer } from '../../lib/api';
import { formatBillingDate, type Subscription } from '../../lib/billing';
import { toast } from '../../stores/toast';
import { ConfirmDialog } from '../ui/ConfirmDialog';

type CancelSubscriptionDialogProps = {
  subscription: Subscription;
  /** What the Free plan does to the products beyond its limit once the period ends; null when they all fit. */
  productsAfterEnd: string | null;
  onClose: () => void;
  onCancelled: (answer: BillingAnswer) => void;
};

/** Cancels at the end of the billing period, after the spec's confirmation and what it means for the products. */
export function CancelSubscriptionDialog({ subscription, productsAfterEnd, onClose, onCancelled }: CancelSubscriptionDialogProps) {
  async function cancel() {
    try {
      const answer = await api.billing.cancel();
      toast({
        title: 'Subscription Cancelled',
        description: `You keep access until ${formatBillingDate(answer.subscription?.current_period_end ?? subscription.current_period_end)}.`,
      });
      onCancelled(answer);
    } catch (error) {
      if (!isUnauthorizedError(error)) toast({ title: 'Failed to cancel subscription. Please try again.', variant: 'destructive' });
      onClose();
    }
  }

  return (
    <ConfirmDialog
      title="Cancel Subscription"
      description={
        <>
          Are you sure you want to cancel your subscription? You'll lose access to premium features at the end of your billing period.
          {productsAfterEnd && <span className="mt-3 block text-foreground">{productsAfterEnd}</span>}
        </>
      }
      cancelLabel="Keep Subscription"
      confirmLabel="Cancel Subscription"
      pendingLabel="Cancelling..."
      onConfirm={cancel}
      onClose={onClose}
    />
  );
}
