import { useId } from 'react';
import { ALERT_TYPES, channelTypeLabel, CHANNEL_TYPES, type AlertType, type ChannelType } from '../../../lib/channels';
import { alertLabel } from '../../../../../domain/alerts.ts';
import { cn } from '../../../lib/utils';
import { TYPE_ICONS } from './channelIcons';

type TypePickerProps = { value: ChannelType; error?: string; disabled: boolean; onChange: (type: ChannelType) => void };

/** The add dialog's choice of channel type, as radio cards. */
export function TypePicker({ value, error, disabled, onChange }: TypePickerProps) {
  const id = useId();
  return (
    <fieldset className="grid gap-2" aria-describedby={error ? `${id}-error` : undefined}>
      <legend className="mb-2 text-sm font-medium">Channel type</legend>
      <div className="grid grid-cols-2 gap-2">
        {CHANNEL_TYPES.map((type) => {
          const Icon = TYPE_ICONS[type];
          return (
            <label
              key={type}
              className={cn(
                'flex cursor-pointer items-center gap-2 rounded-md border px-3 py-2 text-sm transition-colors hover:bg-accent',
                'has-checked:border-primary has-checked:bg-accent has-focus-visible:ring-2 has-focus-visible:ring-ring',
              )}
            >
              <input
                type="radio"
                name={`${id}-type`}
                value={type}
                checked={value === type}
                onChange={() => onChange(type)}
                disabled={disabled}
                aria-invalid={error ? true : undefined}
                className="size-4 shrink-0 accent-primary"
              />
              <Icon aria-hidden="true" className="size-4 shrink-0 text-muted-foreground" />
              {channelTypeLabel(type)}
            </label>
          );
        })}
      </div>
      {error && (
        <p id={`${id}-error`} className="text-sm font-medium text-destructive">
          {error}
        </p>
      )}
    </fieldset>
  );
}

type AlertTypesFieldProps = { value: readonly AlertType[]; error?: string; disabled: boolean; onChange: (types: AlertType[]) => void };

/** Which alerts a channel receives, in the add and edit dialogs. */
export function AlertTypesField({ value, error, disabled, onChange }: AlertTypesFieldProps) {
  const id = useId();
  const toggle = (type: AlertType, on: boolean) => onChange(ALERT_TYPES.filter((t) => (t === type ? on : value.includes(t))));
  return (
    <fieldset className="grid gap-2" aria-describedby={error ? `${id}-error` : `${id}-hint`}>
      <legend className="mb-2 text-sm font-medium">Alerts to send</legend>
      <div className="grid gap-2 sm:grid-cols-2">
        {ALERT_TYPES.map((type) => (
          <label key={type} className="flex cursor-pointer items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={value.includes(type)}
              onChange={(e) => toggle(type, e.target.checked)}
              disabled={disabled}
              aria-invalid={error ? true : undefined}
              className="size-4 accent-primary"
            />
            {alertLabel(type)}
          </label>
        ))}
      </div>
      {error ? (
        <p id={`${id}-error`} className="text-sm font-medium text-destructive">
          {error}
        </p>
      ) : (
        <p id={`${id}-hint`} className="text-xs text-muted-foreground">
          Price alerts follow each product’s threshold; stock alerts need stock alerts on for the product; Undercut and You’re cheapest compare your own
          products with the competitors linked to them.
        </p>
      )}
    </fieldset>
  );
}
