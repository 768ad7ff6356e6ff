import { useId } from 'react';
import { Copy } from 'lucide-react';
import { toast } from '../../../stores/toast';
import { Button } from '../../ui/Button';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '../../ui/Dialog';
import { Input } from '../../ui/Input';
import { Label } from '../../ui/Label';

/** A signing secret on screen: the only time it is shown. */
export type ShownSecret = { channelName: string; secret: string; rotated: boolean };

/** A new signing secret, shown this once with a copy button. */
export function SecretDialog({ shown, onClose }: { shown: ShownSecret; onClose: () => void }) {
  const id = useId();

  async function copy() {
    try {
      await navigator.clipboard.writeText(shown.secret);
      toast({ title: 'Signing secret copied' });
    } catch {
      toast({ title: 'Could not copy', description: 'Select the secret and copy it by hand.', variant: 'destructive' });
    }
  }

  return (
    <Dialog open onOpenChange={(open) => !open && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{shown.rotated ? 'New signing secret' : 'Signing secret'}</DialogTitle>
          <DialogDescription>
            Copy this secret now and keep it safe: it will not be shown again. Your receiver uses it to verify the webhook-signature header of each request from{' '}
            {shown.channelName} (Standard Webhooks).
          </DialogDescription>
        </DialogHeader>
        <div className="grid gap-2">
          <Label htmlFor={id}>Signing secret</Label>
          <div className="flex gap-2">
            <Input id={id} readOnly value={shown.secret} className="font-mono" onFocus={(e) => e.currentTarget.select()} />
            <Button variant="outline" size="icon" aria-label="Copy signing secret" onClick={copy}>
              <Copy aria-hidden="true" />
            </Button>
          </div>
        </div>
        <DialogFooter>
          <Button onClick={onClose}>Done</Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
