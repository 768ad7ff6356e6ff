import { useId, useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import { Save } from 'lucide-react';
import { api, isUnauthorizedError, type CatalogueSettings } from '../../lib/api';
import { serverError } from '../../lib/products';
import { loadable, readStore, revalidateKeys } from '../../stores/query';
import { toast } from '../../stores/toast';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../ui/Card';
import { Input } from '../ui/Input';
import { Label } from '../ui/Label';
import { Skeleton } from '../ui/Skeleton';
import { Spinner } from '../ui/Spinner';
import { Switch } from '../ui/Switch';
import { ToggleRow } from './fields';

const $read = readStore('catalogue/settings');
const $settings = loadable($read);

const MAX_PERCENT = 20;
const MAX_DAILY_CHANGES = 24;

/** The daily cap typed: a whole number from 1 to 24, or why not. */
function parseCap(text: string): { value: number } | { error: string } {
  const value = Number(text.trim());
  if (!text.trim() || !Number.isInteger(value) || value < 1 || value > MAX_DAILY_CHANGES)
    return { error: `Enter a whole number from 1 to ${MAX_DAILY_CHANGES}` };
  return { value };
}

/** The percent typed, or why it cannot be saved. */
function parsePercent(text: string): { value: number } | { error: string } {
  const value = Number(text.trim().replace(',', '.'));
  if (!text.trim() || !Number.isFinite(value) || value < 0 || value > MAX_PERCENT) return { error: `Enter a percentage from 0 to ${MAX_PERCENT}` };
  return { value };
}

/**
 * Settings > Price position: how far above the cheapest competitor a price still reads as
 * competitive, whether matches by GTIN are linked without asking, and whether the pricing rules'
 * recommendations are applied by themselves (Pro) and how often a day per product. Saved on its
 * own, to the catalogue's settings; a plan without automatic repricing is told so at the switch.
 */
export function PositionSettingsCard() {
  const { data: saved, error: loadError } = useStore($settings);
  const [percent, setPercent] = useState<string | null>(null);
  const [autoAccept, setAutoAccept] = useState<boolean | null>(null);
  const [autoApply, setAutoApply] = useState<boolean | null>(null);
  const [cap, setCap] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [capError, setCapError] = useState<string | null>(null);
  const [applyError, setApplyError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const id = useId();
  if (loadError && !saved) return null;
  const loading = !saved;
  const shownPercent = percent ?? (saved ? String(saved.competitivePercent) : '');
  const shownAuto = autoAccept ?? saved?.autoAcceptGtin ?? false;
  const shownApply = autoApply ?? saved?.autoApply ?? false;
  const shownCap = cap ?? (saved ? String(saved.dailyChangeCap) : '');
  const dirty = percent !== null || autoAccept !== null || autoApply !== null || cap !== null;

  async function save(event: FormEvent) {
    event.preventDefault();
    const parsed = parsePercent(shownPercent);
    const parsedCap = parseCap(shownCap);
    setError('error' in parsed ? parsed.error : null);
    setCapError('error' in parsedCap ? parsedCap.error : null);
    if ('error' in parsed || 'error' in parsedCap) return;
    setSaving(true);
    try {
      const next: CatalogueSettings = await api.catalogue.saveSettings({
        competitivePercent: parsed.value,
        autoAcceptGtin: shownAuto,
        autoApply: shownApply,
        dailyChangeCap: parsedCap.value,
      });
      $read.mutate(next);
      setPercent(null);
      setAutoAccept(null);
      setAutoApply(null);
      setCap(null);
      setApplyError(null);
      // Bands and automatic links follow at once wherever the catalogue shows.
      revalidateKeys(['catalogue', 'catalogue/matches', 'position']);
      toast({ title: 'Price position saved', description: `Competitive means within ${next.competitivePercent}% of the cheapest.` });
    } catch (caught) {
      if (isUnauthorizedError(caught)) return;
      const refused = serverError(caught);
      const message = refused.message ?? 'Failed to save. Please try again.';
      // Automatic repricing beyond the plan (403) is said at its switch; the cap's refusal at the cap.
      if (refused.status === 403 || refused.field === 'autoApply') setApplyError(message);
      else if (refused.field === 'dailyChangeCap') setCapError(message);
      else setError(message);
    } finally {
      setSaving(false);
    }
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Price position</CardTitle>
        <CardDescription>How Your Catalogue places your prices against the competitors you link.</CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={save} noValidate className="space-y-5">
          <div className="space-y-2">
            <Label htmlFor={id}>Competitive band</Label>
            {loading ? (
              <Skeleton className="h-9 w-32" />
            ) : (
              <div className="flex items-center gap-2">
                <Input
                  id={id}
                  type="number"
                  inputMode="decimal"
                  min={0}
                  max={MAX_PERCENT}
                  step={0.5}
                  value={shownPercent}
                  onChange={(e) => {
                    setPercent(e.target.value);
                    setError(null);
                  }}
                  aria-invalid={error ? true : undefined}
                  aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
                  className="w-24"
                />
                <span className="text-sm text-muted-foreground">%</span>
              </div>
            )}
            {error && (
              <p id={`${id}-error`} className="text-sm font-medium text-destructive">
                {error}
              </p>
            )}
            <p id={`${id}-hint`} className="text-sm text-muted-foreground">
              A price up to this far above the cheapest competitor is Competitive; further above is Above market. From 0 to {MAX_PERCENT}%, 5% unless changed.
            </p>
          </div>
          <ToggleRow
            label="Accept GTIN matches automatically"
            description="Link a competitor product with the same barcode (GTIN) as yours without asking."
            checked={shownAuto}
            onChange={setAutoAccept}
            loading={loading}
          />
          <div className="space-y-2">
            <div className="flex items-center justify-between gap-4">
              <div className="space-y-1">
                <Label htmlFor={`${id}-apply`} className="block leading-snug">
                  Apply recommendations automatically{' '}
                  <Badge variant="secondary" className="ml-1 align-middle">
                    Pro
                  </Badge>
                </Label>
                <p id={`${id}-apply-description`} className="text-sm text-muted-foreground">
                  New prices your pricing rules recommend are applied without asking, within the daily cap below. Each one can be undone.
                </p>
              </div>
              {loading ? (
                <Skeleton className="h-5 w-9 rounded-full" />
              ) : (
                <Switch
                  id={`${id}-apply`}
                  checked={shownApply}
                  onCheckedChange={(on) => {
                    setAutoApply(on);
                    setApplyError(null);
                  }}
                  aria-describedby={`${id}-apply-description${applyError ? ` ${id}-apply-error` : ''}`}
                />
              )}
            </div>
            {applyError && (
              <p id={`${id}-apply-error`} role="alert" className="text-sm font-medium text-destructive">
                {applyError}
              </p>
            )}
          </div>
          <div className="space-y-2">
            <Label htmlFor={`${id}-cap`}>Automatic changes per product per day</Label>
            {loading ? (
              <Skeleton className="h-9 w-24" />
            ) : (
              <Input
                id={`${id}-cap`}
                type="number"
                inputMode="numeric"
                min={1}
                max={MAX_DAILY_CHANGES}
                step={1}
                value={shownCap}
                onChange={(e) => {
                  setCap(e.target.value);
                  setCapError(null);
                }}
                aria-invalid={capError ? true : undefined}
                aria-describedby={`${id}-cap-hint${capError ? ` ${id}-cap-error` : ''}`}
                className="w-24"
              />
            )}
            {capError && (
              <p id={`${id}-cap-error`} className="text-sm font-medium text-destructive">
                {capError}
              </p>
            )}
            <p id={`${id}-cap-hint`} className="text-sm text-muted-foreground">
              The most times one product's price is changed automatically in a day, from 1 to {MAX_DAILY_CHANGES}; 2 unless changed.
            </p>
          </div>
          <div className="flex justify-end">
            <Button type="submit" variant="outline" disabled={saving || loading || !dirty}>
              {saving ? <Spinner className="size-4 text-current" label="Saving" /> : <Save aria-hidden="true" />}
              Save price position
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}
