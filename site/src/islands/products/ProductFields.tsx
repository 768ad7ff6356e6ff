import type { FieldErrors, ProductFields as Fields } from '../../lib/products';
import { Input } from '../ui/Input';
import { Field } from './FormDialog';
import { AiDetectButton, SelectorSuggestions, useSelectorDetection, VariantPicker } from './AiDetect';

type ProductFieldsProps = {
  values: Fields;
  errors: FieldErrors;
  onChange: (field: keyof Fields, value: string) => void;
  disabled: boolean;
  /** Start in the selector field (fixing a selector that matched nothing). */
  autoFocusSelector?: boolean;
};

/** Name, url and selector with AI Detect and its suggestions: the part the add and edit dialogs share. */
export function ProductFields({ values, errors, onChange, disabled, autoFocusSelector = false }: ProductFieldsProps) {
  const detection = useSelectorDetection((selector) => onChange('selector', selector));
  return (
    <>
      <Field label="Product Name" error={errors.name}>
        {(control) => (
          <Input
            {...control}
            value={values.name}
            onChange={(e) => onChange('name', e.target.value)}
            placeholder="e.g. Sony WH-1000XM5 Headphones"
            autoComplete="off"
            disabled={disabled}
          />
        )}
      </Field>
      <Field label="Product URL" error={errors.url}>
        {(control) => (
          <Input
            {...control}
            type="url"
            inputMode="url"
            value={values.url}
            onChange={(e) => onChange('url', e.target.value)}
            placeholder="https://competitor.com/product"
            autoComplete="off"
            disabled={disabled}
          />
        )}
      </Field>
      <Field label="CSS Selector" error={errors.selector} hint="The element on the page that shows the price.">
        {(control) => (
          <div className="flex gap-2">
            <Input
              {...control}
              value={values.selector}
              onChange={(e) => onChange('selector', e.target.value)}
              placeholder=".price, #price, [data-price]"
              autoComplete="off"
              spellCheck={false}
              className="font-mono"
              disabled={disabled}
              autoFocus={autoFocusSelector}
            />
            <AiDetectButton detecting={detection.detecting} disabled={disabled} onClick={() => detection.detect(values.url)} />
          </div>
        )}
      </Field>
      <SelectorSuggestions
        suggestions={detection.suggestions}
        selected={values.selector.trim()}
        onPick={(selector) => onChange('selector', selector)}
        disabled={disabled}
      />
      <VariantPicker
        variants={detection.variants.variants}
        url={values.url}
        onPick={(variant) => {
          onChange('url', variant.url);
          if (detection.variants.selector) onChange('selector', detection.variants.selector);
        }}
        disabled={disabled}
      />
    </>
  );
}
