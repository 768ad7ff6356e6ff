import { useId, useRef, type FormEvent, type ReactNode } from 'react';
import { Button } from '../ui/Button';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '../ui/Dialog';
import { Label } from '../ui/Label';
import { Spinner } from '../ui/Spinner';

type FormDialogProps = {
  title: string;
  description: ReactNode;
  submitLabel: string;
  pendingLabel: string;
  /** While a save runs the dialog cannot be closed (Escape, overlay, close and Cancel). */
  pending: boolean;
  onClose: () => void;
  /** Gets the form, to focus its first invalid control. */
  onSubmit: (form: HTMLFormElement) => void;
  onCloseAutoFocus?: (event: Event) => void;
  children: ReactNode;
};

/** The frame of the add, edit and manual price dialogs; mounted while open. */
export function FormDialog(props: FormDialogProps) {
  const { title, description, submitLabel, pendingLabel, pending, onClose, onSubmit, onCloseAutoFocus, children } = props;
  const formRef = useRef<HTMLFormElement>(null);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!pending && formRef.current) onSubmit(formRef.current);
  }

  return (
    <Dialog open onOpenChange={(open) => !open && !pending && onClose()}>
      <DialogContent showClose={!pending} onCloseAutoFocus={onCloseAutoFocus}>
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription>{description}</DialogDescription>
        </DialogHeader>
        {/* Our messages (docs/product.md#form-messages) replace the browser's own validation bubbles. */}
        <form ref={formRef} noValidate onSubmit={submit} className="grid gap-4" aria-busy={pending}>
          {children}
          <DialogFooter className="pt-2">
            <Button variant="outline" onClick={onClose} disabled={pending}>
              Cancel
            </Button>
            <Button type="submit" disabled={pending}>
              {pending && <Spinner className="size-4 text-current" label={pendingLabel} />}
              {pending ? pendingLabel : submitLabel}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** Focuses the first control marked invalid, once React has rendered the messages. */
export function focusFirstInvalid(form: HTMLFormElement, frames = FOCUS_FRAMES) {
  // After an answer from the server React renders the errors in a task of its own, which may come
  // after the next frame: look again until the field is marked and enabled.
  requestAnimationFrame(() => {
    const invalid = form.querySelector<HTMLElement>('[aria-invalid="true"]:not(:disabled)');
    if (invalid) invalid.focus();
    else if (frames > 1) focusFirstInvalid(form, frames - 1);
  });
}
const FOCUS_FRAMES = 10;

export type ControlProps = {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
};

type FieldProps = {
  label: string;
  error?: string | null;
  hint?: ReactNode;
  children: (control: ControlProps) => ReactNode;
};

/** A labelled control with its hint and error, both linked to it by aria-describedby. */
export function Field({ label, error, hint, children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : null;
  const errorId = error ? `${id}-error` : null;
  const describedBy = [errorId, hintId].filter(Boolean).join(' ') || undefined;
  return (
    <div className="grid gap-2">
      <Label htmlFor={id}>{label}</Label>
      {children({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {error && (
        <p id={errorId!} className="text-sm font-medium text-destructive">
          {error}
        </p>
      )}
      {hint && (
        <p id={hintId!} className="text-xs text-muted-foreground">
          {hint}
        </p>
      )}
    </div>
  );
}
