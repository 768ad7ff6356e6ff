import { useState } from 'react';
import { api, type Channel } from '../../../lib/api';
import { channelTypeLabel, MAX_NAME_LENGTH, validateAlertTypes, type AlertType, type FieldErrors } from '../../../lib/channels';
import { Field, FormDialog } from '../../products/FormDialog';
import { Input } from '../../ui/Input';
import { AlertTypesField } from './ChannelFields';
import { FormError, useChannelForm } from './channelForm';

type EditChannelDialogProps = { channel: Channel; onClose: () => void; onSaved: (channel: Channel) => void };

/** Rename a channel or change the alerts it receives. */
export function EditChannelDialog({ channel, onClose, onSaved }: EditChannelDialogProps) {
  const [name, setName] = useState(channel.name);
  const [alertTypes, setAlertTypes] = useState<AlertType[]>(channel.alertTypes);
  const { errors, setErrors, formError, pending, submit: submitForm } = useChannelForm();

  async function submit(form: HTMLFormElement) {
    const found: FieldErrors = {};
    if (!name.trim()) found.name = 'Enter a name.';
    else if (name.trim().length > MAX_NAME_LENGTH) found.name = `Use at most ${MAX_NAME_LENGTH} characters.`;
    const typesError = validateAlertTypes(alertTypes);
    if (typesError) found.alertTypes = typesError;
    await submitForm(form, found, async () => onSaved(await api.channels.change(channel.id, { name: name.trim(), alertTypes })));
  }

  return (
    <FormDialog
      title={`Edit ${channel.name}`}
      description={`${channelTypeLabel(channel.type)} · ${channel.target}`}
      submitLabel="Save"
      pendingLabel="Saving…"
      pending={pending}
      onClose={onClose}
      onSubmit={submit}
    >
      <FormError message={formError} />
      <Field label="Name" error={errors.name}>
        {(control) => (
          <Input
            {...control}
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              setErrors((x) => ({ ...x, name: undefined }));
            }}
            autoComplete="off"
            disabled={pending}
          />
        )}
      </Field>
      <AlertTypesField
        value={alertTypes}
        error={errors.alertTypes}
        disabled={pending}
        onChange={(types) => {
          setAlertTypes(types);
          setErrors((x) => ({ ...x, alertTypes: undefined }));
        }}
      />
    </FormDialog>
  );
}
