import { useId, type ReactNode } from 'react';
import { Input } from '../ui/Input';
import { Label } from '../ui/Label';
import { OptionSelect } from '../ui/Select';
import { Skeleton } from '../ui/Skeleton';
import { Switch } from '../ui/Switch';

/** A label over the control that `children` draws with the id it is given. */
export function Field({ label, children }: { label: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="space-y-2">
      <Label htmlFor={id}>{label}</Label>
      {children(id)}
    </div>
  );
}

export function ReadOnlyField({ label, value, type = 'text' }: { label: string; value: string | null; type?: string }) {
  return <Field label={label}>{(id) => <Input id={id} type={type} value={value ?? ''} readOnly />}</Field>;
}

type ToggleRowProps = {
  label: string;
  description: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  loading: boolean;
};

/** A preference switched on or off, with what it does beside it. */
export function ToggleRow({ label, description, checked, onChange, loading }: ToggleRowProps) {
  const id = useId();
  return (
    <div className="flex items-center justify-between gap-4">
      <div className="space-y-1">
        <Label htmlFor={id}>{label}</Label>
        <p id={`${id}-description`} className="text-sm text-muted-foreground">
          {description}
        </p>
      </div>
      {loading ? (
        <Skeleton className="h-5 w-9 rounded-full" />
      ) : (
        <Switch id={id} checked={checked} onCheckedChange={onChange} aria-describedby={`${id}-description`} />
      )}
    </div>
  );
}

type SelectFieldProps<V extends string> = {
  label: string;
  value: V;
  options: readonly { value: V; label: string }[];
  onChange: (value: V) => void;
  loading: boolean;
  /** A note under the select, linked to it. */
  hint?: ReactNode;
};

export function SelectField<V extends string>({ label, value, options, onChange, loading, hint }: SelectFieldProps<V>) {
  return (
    <Field label={label}>
      {(id) => (
        <>
          {loading ? (
            <Skeleton className="h-9 w-full" />
          ) : (
            <OptionSelect id={id} value={value} options={options} onChange={onChange} aria-describedby={hint ? `${id}-hint` : undefined} />
          )}
          {hint && (
            <p id={`${id}-hint`} className="text-sm text-muted-foreground">
              {hint}
            </p>
          )}
        </>
      )}
    </Field>
  );
}
