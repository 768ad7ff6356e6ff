import { Button } from '../ui/Button';
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '../ui/Dialog';

type ProductLimitDialogProps = {
  /** The plan's limit in the server's own words. */
  reason: string;
  onClose: () => void;
  onCloseAutoFocus: (event: Event) => void;
};

/** Add Product at the plan's limit: why no product can be added, before any form is filled. */
export function ProductLimitDialog({ reason, onClose, onCloseAutoFocus }: ProductLimitDialogProps) {
  return (
    <Dialog open onOpenChange={(open) => !open && onClose()}>
      <DialogContent onCloseAutoFocus={onCloseAutoFocus}>
        <DialogHeader>
          <DialogTitle>Product limit reached</DialogTitle>
          <DialogDescription>{reason}</DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="outline">Close</Button>
          </DialogClose>
          <Button asChild>
            <a href="/billing">See plans</a>
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
