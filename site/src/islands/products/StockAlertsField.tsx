import { useId } from 'react';
import { Label } from '../ui/Label';
import { Switch } from '../ui/Switch';

/** The add and edit dialogs' stock alerts switch (on for a new product). */
export function StockAlertsField({ checked, onChange, disabled }: { checked: boolean; onChange: (checked: boolean) => void; disabled?: boolean }) {
  const id = useId();
  return (
    <div className="flex items-center justify-between gap-4">
      <div className="space-y-1">
        <Label htmlFor={id}>Stock alerts</Label>
        <p id={`${id}-description`} className="text-sm text-muted-foreground">
          Alert me when it goes out of stock or comes back.
        </p>
      </div>
      <Switch id={id} checked={checked} onCheckedChange={onChange} disabled={disabled} aria-describedby={`${id}-description`} />
    </div>
  );
}
