import { useEffect, useState } from 'react';
import { Sparkles } from 'lucide-react';
import { api, isUnauthorizedError, type DetailRange, type PricingSuggestion } from '../../lib/api';
import { confidenceLabel, SUGGESTIONS_FAILED } from '../../lib/ai';
import { toast } from '../../stores/toast';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card, CardContent, CardHeader, CardTitle } from '../ui/Card';
import { Spinner } from '../ui/Spinner';

/** 'Get Pricing Suggestions' and the 'AI Pricing Insights' card of the history dialog, for its range. */
export function PricingInsights({ productId, range }: { productId: string; range: DetailRange }) {
  const [pending, setPending] = useState(false);
  const [suggestions, setSuggestions] = useState<PricingSuggestion[] | null>(null);

  // Suggestions read one range; another range needs asking again.
  useEffect(() => setSuggestions(null), [productId, range]);

  async function ask() {
    setPending(true);
    try {
      setSuggestions((await api.ai.priceSuggestions(productId, range)).suggestions);
    } catch (error) {
      if (!isUnauthorizedError(error)) toast({ ...SUGGESTIONS_FAILED, variant: 'destructive' });
    } finally {
      setPending(false);
    }
  }

  return (
    <div className="space-y-3">
      <Button onClick={ask} disabled={pending}>
        {pending ? <Spinner className="size-4 text-current" label="Analyzing..." /> : <Sparkles aria-hidden="true" />}
        {pending ? 'Analyzing...' : 'Get Pricing Suggestions'}
      </Button>
      {suggestions && (
        <Card>
          <CardHeader className="px-4 pb-2 sm:px-6">
            <CardTitle className="flex items-center gap-2 text-base">
              <Sparkles aria-hidden="true" className="size-4 text-brand" />
              AI Pricing Insights
            </CardTitle>
          </CardHeader>
          <CardContent className="px-4 sm:px-6">
            <ul className="grid gap-3" aria-label="Pricing suggestions">
              {/* Titles may repeat (a model's rewrite beside the rules' own suggestion for the owner's side): keyed by place too. */}
              {suggestions.map((suggestion, index) => (
                <li key={`${index}:${suggestion.title}`} className="rounded-lg border p-4">
                  <div className="flex flex-wrap items-start justify-between gap-2">
                    <h3 className="font-medium">{suggestion.title}</h3>
                    <Badge variant="secondary">{confidenceLabel(suggestion.confidence)}</Badge>
                  </div>
                  <p className="mt-1 text-sm text-muted-foreground">{suggestion.description}</p>
                  <div className="mt-3 rounded-md bg-muted/60 p-3 text-sm">
                    <p className="font-medium">Recommended Action</p>
                    <p className="mt-0.5">{suggestion.recommendedAction}</p>
                  </div>
                </li>
              ))}
            </ul>
          </CardContent>
        </Card>
      )}
    </div>
  );
}
