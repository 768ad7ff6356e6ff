import { useState } from 'react';
import { isUnauthorizedError } from '../../../lib/api';
import { errorMessage } from '../../../lib/billing';
import { fieldErrorOf, type FieldErrors } from '../../../lib/channels';
import { focusFirstInvalid } from '../../products/FormDialog';

/**
 * A channel form's errors and pending state, and its submit: local checks first, then the
 * request; a 400 naming a field lands on that field, any other failure above the buttons.
 */
export function useChannelForm() {
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(form: HTMLFormElement, found: FieldErrors, send: () => Promise<void>) {
    setErrors(found);
    setFormError(null);
    if (Object.keys(found).length) return focusFirstInvalid(form);
    setPending(true);
    try {
      await send();
    } catch (error) {
      const onField = fieldErrorOf(error);
      if (onField) {
        setErrors({ [onField.field]: onField.message });
        focusFirstInvalid(form);
      } else if (!isUnauthorizedError(error)) {
        setFormError(errorMessage(error));
      }
    } finally {
      setPending(false);
    }
  }

  return { errors, setErrors, formError, pending, submit };
}

/** A refusal that belongs to no field, above the dialog's buttons. */
export function FormError({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p role="alert" className="rounded-md border border-destructive/40 bg-destructive/10 p-3 text-sm text-destructive">
      {message}
    </p>
  );
}
