import { useState } from 'react';
import { api, type Channel } from '../../../lib/api';
import { channelBody, emptyDraft, validateDraft, type ChannelDraft } from '../../../lib/channels';
import { Field, FormDialog } from '../../products/FormDialog';
import { Input } from '../../ui/Input';
import { AlertTypesField, TypePicker } from './ChannelFields';
import { FormError, useChannelForm } from './channelForm';
import { TargetFields } from './TargetFields';

type AddChannelDialogProps = { onClose: () => void; onAdded: (channel: Channel & { secret?: string }) => void };

/** Add a channel: its type, that type's fields, an optional name and the alerts it receives. */
export function AddChannelDialog({ onClose, onAdded }: AddChannelDialogProps) {
  const [draft, setDraft] = useState<ChannelDraft>(emptyDraft());
  const { errors, setErrors, formError, pending, submit: submitForm } = useChannelForm();

  const set = <K extends keyof ChannelDraft>(key: K, value: ChannelDraft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    setErrors((e) => ({ ...e, [key]: undefined }));
  };

  const submit = (form: HTMLFormElement) => submitForm(form, validateDraft(draft), async () => onAdded(await api.channels.add(channelBody(draft))));

  return (
    <FormDialog
      title="Add alert channel"
      description="Alerts are delivered to it as soon as they are raised."
      submitLabel="Add channel"
      pendingLabel="Adding…"
      pending={pending}
      onClose={onClose}
      onSubmit={submit}
    >
      <FormError message={formError} />
      <TypePicker
        value={draft.type}
        error={errors.type}
        disabled={pending}
        onChange={(type) => {
          setDraft((d) => ({ ...d, type }));
          setErrors({});
        }}
      />
      <TargetFields draft={draft} errors={errors} disabled={pending} set={set} />
      <Field label="Name (optional)" error={errors.name} hint="How the channel is listed here. Left empty, Pricewatch names it after its type and address.">
        {(control) => <Input {...control} value={draft.name} onChange={(e) => set('name', e.target.value)} autoComplete="off" disabled={pending} />}
      </Field>
      <AlertTypesField value={draft.alertTypes} error={errors.alertTypes} disabled={pending} onChange={(types) => set('alertTypes', types)} />
    </FormDialog>
  );
}
