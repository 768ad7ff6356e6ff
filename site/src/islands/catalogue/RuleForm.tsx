import type { ReactNode } from 'react';
import type { CatalogueCompetitor } from '../../lib/api';
import { formatPrice } from '../../lib/format';
import { offsetKind, ROUNDING_OPTIONS, STRATEGY_OPTIONS, type RuleErrors, type RuleField, type RuleForm } from '../../lib/pricing';
import { cn } from '../../lib/utils';
import { currencySymbol } from '../../../../domain/money.ts';
import { Input } from '../ui/Input';
import { Label } from '../ui/Label';
import { OptionSelect } from '../ui/Select';

/** The id of the control a field's message stands at, so a refusal can move focus there. */
export const fieldId = (base: string, field: RuleField) => `${base}-${field.replace('.', '-')}`;

type FieldProps = {
  base: string;
  field: RuleField;
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  hint?: ReactNode;
  /** The unit after the box: "%" or the currency's symbol. */
  unit?: string;
  disabled?: boolean;
  inputMode?: 'decimal' | 'numeric';
};

/** A number typed as text (a comma or a minus is fine), with its unit, hint and the message about it. */
export function NumberField({ base, field, label, value, onChange, error, hint, unit, disabled, inputMode = 'decimal' }: FieldProps) {
  const id = fieldId(base, field);
  const described = [error && `${id}-error`, hint && `${id}-hint`].filter(Boolean).join(' ') || undefined;
  return (
    <div className="grid min-w-0 content-start gap-1.5">
      <Label htmlFor={id}>{label}</Label>
      <div className="flex items-center gap-2">
        <Input
          id={id}
          inputMode={inputMode}
          autoComplete="off"
          value={value}
          onChange={(e) => onChange(e.target.value)}
          disabled={disabled}
          aria-invalid={error ? true : undefined}
          aria-describedby={described}
          className="w-28"
        />
        {unit && <span className="text-sm text-muted-foreground">{unit}</span>}
      </div>
      {error && (
        <p id={`${id}-error`} className="text-sm font-medium text-destructive">
          {error}
        </p>
      )}
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-muted-foreground">
          {hint}
        </p>
      )}
    </div>
  );
}

function FieldError({ id, error }: { id: string; error?: string }) {
  return error ? (
    <p id={id} className="text-sm font-medium text-destructive">
      {error}
    </p>
  ) : null;
}

type RuleFormProps = {
  base: string;
  form: RuleForm;
  onChange: (patch: Partial<RuleForm>) => void;
  errors: RuleErrors;
  currency: string;
  hasCost: boolean;
  regularPrice: number | null;
  competitors: readonly CatalogueCompetitor[];
  disabled: boolean;
};

const groupClass = 'grid min-w-0 content-start gap-3 rounded-lg border p-3';
const legendClass = 'px-1 text-sm font-medium';

/** The rule's fields: the strategy and its offset, the floor and ceiling, rounding, the safeguards and the competitors that count. */
export function RuleFields({ base, form, onChange, errors, currency, hasCost, regularPrice, competitors, disabled }: RuleFormProps) {
  const money = currencySymbol(currency);
  const kind = offsetKind(form);
  const strategy = STRATEGY_OPTIONS.find((s) => s.value === form.strategy)!;
  const chosen = form.competitors ?? [];
  const set = (field: keyof RuleForm) => (value: string) => onChange({ [field]: value } as Partial<RuleForm>);

  return (
    <div className="grid grid-cols-1 gap-4">
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        <div className="grid min-w-0 content-start gap-1.5">
          <Label htmlFor={fieldId(base, 'strategy')}>Strategy</Label>
          <OptionSelect
            id={fieldId(base, 'strategy')}
            value={form.strategy}
            options={STRATEGY_OPTIONS}
            onChange={(strategy) => onChange({ strategy })}
            disabled={disabled}
            aria-invalid={errors.strategy ? true : undefined}
            aria-describedby={`${fieldId(base, 'strategy')}-hint`}
          />
          <FieldError id={`${fieldId(base, 'strategy')}-error`} error={errors.strategy} />
          <p id={`${fieldId(base, 'strategy')}-hint`} className="text-xs text-muted-foreground">
            {strategy.hint}
          </p>
        </div>

        {kind !== null && (
          <div className="grid min-w-0 content-start gap-3">
            {form.strategy === 'beat-cheapest' && (
              <fieldset className="flex flex-wrap gap-x-4 gap-y-1.5" disabled={disabled}>
                <legend className="mb-1.5 text-sm font-medium">Beat it by</legend>
                {(['percent', 'amount'] as const).map((by) => (
                  <label key={by} className="flex cursor-pointer items-center gap-2 text-sm">
                    <input
                      type="radio"
                      name={`${base}-beat-by`}
                      checked={form.beatBy === by}
                      onChange={() => onChange({ beatBy: by })}
                      className="size-4 accent-primary"
                    />
                    {by === 'percent' ? 'A percent' : 'An amount'}
                  </label>
                ))}
              </fieldset>
            )}
            <NumberField
              base={base}
              field="offset"
              label={
                form.strategy === 'beat-cheapest'
                  ? kind === 'amount'
                    ? 'Under the cheapest by'
                    : 'Under the cheapest by (%)'
                  : form.strategy === 'average'
                    ? 'Above (+) or below (−) the average (%)'
                    : 'Under the cheapest by at least (%)'
              }
              value={kind === 'amount' ? form.offsetAmount : form.offsetPercent}
              onChange={set(kind === 'amount' ? 'offsetAmount' : 'offsetPercent')}
              error={errors.offset}
              unit={kind === 'amount' ? money : '%'}
              disabled={disabled}
              hint={form.strategy === 'average' ? 'From −50 to 50; 0 or empty for the average itself.' : undefined}
            />
          </div>
        )}
      </div>

      <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
        <fieldset className={groupClass} disabled={disabled} aria-describedby={errors.floor ? `${base}-floor-error` : `${base}-floor-hint`}>
          <legend className={legendClass}>Floor: the lowest price</legend>
          <div className="grid grid-cols-2 gap-3">
            <NumberField
              base={base}
              field="floor.costMarginPercent"
              label="Margin over cost"
              value={form.floorMargin}
              onChange={set('floorMargin')}
              error={errors['floor.costMarginPercent']}
              unit="%"
              disabled={disabled}
            />
            <NumberField
              base={base}
              field="floor.amount"
              label="Lowest price"
              value={form.floorAmount}
              onChange={set('floorAmount')}
              error={errors['floor.amount']}
              unit={money}
              disabled={disabled}
            />
          </div>
          <FieldError id={`${base}-floor-error`} error={errors.floor} />
          <p id={`${base}-floor-hint`} className="text-xs text-muted-foreground">
            {hasCost
              ? 'With both, the higher one counts. The price never goes below the floor.'
              : 'This product has no cost yet: set one above, or give a lowest price.'}
          </p>
        </fieldset>

        <fieldset className={groupClass} disabled={disabled}>
          <legend className={legendClass}>Ceiling: the highest price</legend>
          <NumberField
            base={base}
            field="ceiling.amount"
            label="Highest price"
            value={form.ceilingAmount}
            onChange={set('ceilingAmount')}
            error={errors['ceiling.amount']}
            unit={money}
            disabled={disabled}
            hint="Optional."
          />
          <label className="flex cursor-pointer items-start gap-2 text-sm">
            <input
              id={fieldId(base, 'ceiling.regular')}
              type="checkbox"
              checked={form.ceilingRegular}
              onChange={(e) => onChange({ ceilingRegular: e.target.checked })}
              className="mt-0.5 size-4 shrink-0 accent-primary"
            />
            <span>
              Not above the regular price
              <span className="block text-xs text-muted-foreground">
                {regularPrice === null ? 'Your store states no regular price for this product.' : `Regular price ${formatPrice(regularPrice, currency)}.`}
              </span>
            </span>
          </label>
          <FieldError id={`${base}-ceiling-regular-error`} error={errors['ceiling.regular']} />
        </fieldset>
      </div>

      <fieldset className={groupClass} disabled={disabled}>
        <legend className={legendClass}>Rounding and safeguards</legend>
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
          <div className="grid min-w-0 content-start gap-1.5">
            <Label htmlFor={fieldId(base, 'rounding')}>Rounding</Label>
            <OptionSelect
              id={fieldId(base, 'rounding')}
              value={form.rounding}
              options={ROUNDING_OPTIONS}
              onChange={(rounding) => onChange({ rounding })}
              disabled={disabled}
              aria-invalid={errors.rounding ? true : undefined}
            />
            <FieldError id={`${fieldId(base, 'rounding')}-error`} error={errors.rounding} />
          </div>
          <NumberField
            base={base}
            field="maxStepPercent"
            label="Largest step"
            value={form.maxStepPercent}
            onChange={set('maxStepPercent')}
            error={errors.maxStepPercent}
            unit="%"
            disabled={disabled}
            hint="The most one change moves the price."
          />
          <NumberField
            base={base}
            field="minCompetitors"
            label="Minimum competitors"
            value={form.minCompetitors}
            onChange={set('minCompetitors')}
            error={errors.minCompetitors}
            inputMode="numeric"
            disabled={disabled}
            hint="Hold with fewer counted."
          />
          <NumberField
            base={base}
            field="spikePercent"
            label="Spike limit"
            value={form.spikePercent}
            onChange={set('spikePercent')}
            error={errors.spikePercent}
            unit="%"
            disabled={disabled}
            hint="Hold when a price jumps this far from its 30-day median."
          />
        </div>
      </fieldset>

      <fieldset className={groupClass} disabled={disabled} aria-describedby={errors.competitors ? `${fieldId(base, 'competitors')}-error` : undefined}>
        <legend className={legendClass}>Competitors that count</legend>
        {competitors.length === 0 ? (
          <p className="text-sm text-muted-foreground">No competitor is linked yet: link one below for the rule to follow.</p>
        ) : (
          <>
            <div className="flex flex-wrap gap-x-4 gap-y-1.5">
              <label className="flex cursor-pointer items-center gap-2 text-sm">
                <input
                  id={fieldId(base, 'competitors')}
                  type="radio"
                  name={`${base}-competitors`}
                  checked={form.competitors === null}
                  onChange={() => onChange({ competitors: null })}
                  className="size-4 accent-primary"
                />
                All linked ({competitors.length})
              </label>
              <label className="flex cursor-pointer items-center gap-2 text-sm">
                <input
                  type="radio"
                  name={`${base}-competitors`}
                  checked={form.competitors !== null}
                  onChange={() => onChange({ competitors: competitors.map((c) => c.productId) })}
                  className="size-4 accent-primary"
                />
                Only the ones I choose
              </label>
            </div>
            {form.competitors !== null && (
              <ul className="grid gap-1.5 sm:grid-cols-2" aria-label="Competitors the rule counts">
                {competitors.map((c) => (
                  <li key={c.productId}>
                    <label className={cn('flex cursor-pointer items-center gap-2 rounded-md border px-2.5 py-1.5 text-sm', 'has-checked:border-primary')}>
                      <input
                        type="checkbox"
                        checked={chosen.includes(c.productId)}
                        onChange={(e) =>
                          onChange({
                            competitors: competitors.map((x) => x.productId).filter((id) => (id === c.productId ? e.target.checked : chosen.includes(id))),
                          })
                        }
                        className="size-4 shrink-0 accent-primary"
                      />
                      <span className="min-w-0 flex-1 truncate">{c.name}</span>
                      <span className="shrink-0 tabular-nums text-muted-foreground">
                        {c.price === null ? '—' : formatPrice(c.price, c.currency ?? currency)}
                      </span>
                    </label>
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
        <FieldError id={`${fieldId(base, 'competitors')}-error`} error={errors.competitors} />
      </fieldset>
      <FieldError id={`${base}-form-error`} error={errors.form} />
    </div>
  );
}
