import { useId, useState, type ReactNode } from 'react';
import { useStore } from '@nanostores/react';
import { Sparkles } from 'lucide-react';
import { api, isUnauthorizedError, type DetectedVariant, type SelectorSuggestion } from '../../lib/api';
import { formatPrice } from '../../lib/format';
import { cn } from '../../lib/utils';
import { availabilityBadge } from '../../lib/products';
import {
  AI_DETECT_NOT_IN_PLAN,
  AI_DETECT_UPGRADE,
  aiDetectionIncluded,
  DETECTION_FAILED,
  detectionFailure,
  detectUrlProblem,
  NO_SELECTORS,
} from '../../lib/ai';
import { subscribePath } from '../../lib/billing';
import { $user } from '../../stores/auth';
import { toast } from '../../stores/toast';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Spinner } from '../ui/Spinner';

/** AI Detect: asks the server for price selectors of `url` and fills the best one in with `pick`; also the page's variants. */
export function useSelectorDetection(pick: (selector: string) => void) {
  const [detecting, setDetecting] = useState(false);
  const [suggestions, setSuggestions] = useState<SelectorSuggestion[]>([]);
  const [variants, setVariants] = useState<{ variants: DetectedVariant[]; selector: string | null }>({ variants: [], selector: null });

  async function detect(url: string) {
    const problem = detectUrlProblem(url);
    if (problem) return toast({ ...problem, variant: 'destructive' });
    setDetecting(true);
    try {
      const answer = await api.ai.detectSelector(url.trim());
      // A page too slow to read in time says so rather than failing without a word.
      if (!answer.success) return toast({ title: DETECTION_FAILED.title, description: answer.message, variant: 'destructive' });
      const { selectors } = answer;
      setSuggestions(selectors);
      setVariants({ variants: answer.variants, selector: answer.variantSelector });
      const [best] = selectors;
      if (!best) return toast(NO_SELECTORS);
      pick(best.selector);
      toast({ title: 'Price selector detected', description: best.description });
    } catch (error) {
      if (!isUnauthorizedError(error)) toast({ ...detectionFailure(error), variant: 'destructive' });
    } finally {
      setDetecting(false);
    }
  }

  return { detect, detecting, suggestions, variants };
}

/** AI Detect; on a plan without it the button stays off and says how to get it, rather than failing when pressed. */
export function AiDetectButton({ detecting, disabled, onClick }: { detecting: boolean; disabled: boolean; onClick: () => void }) {
  const included = aiDetectionIncluded(useStore($user));
  const hintId = useId();
  const button = (
    <Button
      variant="outline"
      onClick={onClick}
      disabled={disabled || detecting || !included}
      aria-busy={detecting}
      aria-describedby={included ? undefined : hintId}
    >
      {detecting ? <Spinner className="size-4 text-current" label="Detecting..." /> : <Sparkles aria-hidden="true" />}
      {detecting ? 'Detecting...' : 'AI Detect'}
    </Button>
  );
  if (included) return button;
  return (
    <div className="grid shrink-0 justify-items-end gap-1">
      {button}
      <p id={hintId} className="max-w-40 text-right text-xs text-muted-foreground">
        {AI_DETECT_NOT_IN_PLAN}{' '}
        <a href={subscribePath('starter')} className="font-medium text-primary underline-offset-4 hover:underline">
          {AI_DETECT_UPGRADE}
        </a>
      </p>
    </div>
  );
}

/** The detected selectors to pick from, best first; picking one fills the selector field. */
export function SelectorSuggestions({
  suggestions,
  selected,
  onPick,
  disabled,
}: {
  suggestions: SelectorSuggestion[];
  selected: string;
  onPick: (selector: string) => void;
  disabled: boolean;
}) {
  if (suggestions.length === 0) return null;
  return (
    <fieldset className="grid gap-1 rounded-lg border p-2" disabled={disabled}>
      <legend className="px-1 text-sm font-medium">Detected price selectors</legend>
      {suggestions.map((suggestion) => (
        <Choice
          key={suggestion.selector}
          name="detected-selector"
          value={suggestion.selector}
          checked={selected === suggestion.selector}
          onPick={() => onPick(suggestion.selector)}
          top
        >
          <span className="grid min-w-0 flex-1 gap-0.5">
            <code className="truncate font-mono text-sm">{suggestion.selector}</code>
            <span className="text-xs text-muted-foreground">{suggestion.description}</span>
          </span>
          <Badge variant="secondary" aria-label={`${suggestion.confidence}% confidence`}>
            {suggestion.confidence}%
          </Badge>
        </Choice>
      ))}
    </fieldset>
  );
}

/** A variant's price in its currency; a page that never states its currency shows the amount alone. */
const money = (amount: number, currency: string | null) => (currency ? formatPrice(amount, currency) : amount.toFixed(2));

/**
 * The page's variants (sizes, colours) to pick the one to track: picking one puts the address that
 * selects it in the url field, and the selector that reads the variant an address selects.
 */
export function VariantPicker({
  variants,
  url,
  onPick,
  disabled,
}: {
  variants: DetectedVariant[];
  url: string;
  onPick: (variant: DetectedVariant) => void;
  disabled: boolean;
}) {
  if (variants.length < 2) return null;
  return (
    <fieldset className="grid gap-1 rounded-lg border p-2" disabled={disabled}>
      <legend className="px-1 text-sm font-medium">Variants on this page</legend>
      <p className="px-1 text-xs text-muted-foreground">Pick the one to track; its address goes in the Product URL.</p>
      <div className="grid max-h-64 gap-1 overflow-y-auto">
        {variants.map((variant) => {
          const stock = availabilityBadge(variant.availability);
          return (
            <Choice key={variant.url} name="detected-variant" value={variant.url} checked={url.trim() === variant.url} onPick={() => onPick(variant)}>
              <span className="min-w-0 flex-1 truncate text-sm font-medium">{variant.label}</span>
              {stock && <Badge variant={stock.variant}>{stock.label}</Badge>}
              <span className="grid text-right text-sm tabular-nums">
                {money(variant.price, variant.currency)}
                {variant.regularPrice !== null && (
                  <span className="text-xs text-muted-foreground">
                    was <span className="line-through">{money(variant.regularPrice, variant.currency)}</span>
                  </span>
                )}
              </span>
            </Choice>
          );
        })}
      </div>
    </fieldset>
  );
}

/** One choice of a detected list: the whole row is the radio's label. `top`: the radio sits by the first line of a taller row. */
function Choice({
  name,
  value,
  checked,
  onPick,
  top = false,
  children,
}: {
  name: string;
  value: string;
  checked: boolean;
  onPick: () => void;
  top?: boolean;
  children: ReactNode;
}) {
  return (
    <label
      className={cn(
        'flex cursor-pointer gap-3 rounded-md p-2 hover:bg-muted has-[:checked]:bg-muted has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-ring',
        top ? 'items-start' : 'items-center',
      )}
    >
      <input type="radio" name={name} value={value} checked={checked} onChange={onPick} className={cn('accent-primary', top && 'mt-1')} />
      {children}
    </label>
  );
}
