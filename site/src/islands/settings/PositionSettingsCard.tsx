import { useId, useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import { Save } from 'lucide-react';
import { api, isUnauthorizedError, type CatalogueSettings } from '../../lib/api';
import { serverError } from '../../lib/products';
import { loadable, readStore, revalidateKeys } from '../../stores/query';
import { toast } from '../../stores/toast';
import { Button } from '../ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../ui/Card';
import { Input } from '../ui/Input';
import { Label } from '../ui/Label';
import { Skeleton } from '../ui/Skeleton';
import { Spinner } from '../ui/Spinner';
import { ToggleRow } from './fields';

const $read = readStore('catalogue/settings');
const $settings = loadable($read);

const MAX_PERCENT = 20;

/** The percent typed, or why it cannot be saved. */
function parsePercent(text: string): { value: number } | { error: string } {
  const value = Number(text.trim().replace(',', '.'));
  if (!text.trim() || !Number.isFinite(value) || value < 0 || value > MAX_PERCENT) return { error: `Enter a percentage from 0 to ${MAX_PERCENT}` };
  return { value };
}

/**
 * Settings > Price position: how far above the cheapest competitor a price still reads as
 * competitive, and whether matches by GTIN are linked without asking. Saved on its own, to the
 * catalogue's settings.
 */
export function PositionSettingsCard() {
  const { data: saved, error: loadError } = useStore($settings);
  const [percent, setPercent] = useState<string | null>(null);
  const [autoAccept, setAutoAccept] = useState<boolean | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const id = useId();
  if (loadError && !saved) return null;
  const loading = !saved;
  const shownPercent = percent ?? (saved ? String(saved.competitivePercent) : '');
  const shownAuto = autoAccept ?? saved?.autoAcceptGtin ?? false;
  const dirty = percent !== null || autoAccept !== null;

  async function save(event: FormEvent) {
    event.preventDefault();
    const parsed = parsePercent(shownPercent);
    if ('error' in parsed) return setError(parsed.error);
    setSaving(true);
    try {
      const next: CatalogueSettings = await api.catalogue.saveSettings({ competitivePercent: parsed.value, autoAcceptGtin: shownAuto });
      $read.mutate(next);
      setPercent(null);
      setAutoAccept(null);
      // Bands and automatic links follow at once wherever the catalogue shows.
      revalidateKeys(['catalogue', 'catalogue/matches', 'position']);
      toast({ title: 'Price position saved', description: `Competitive means within ${next.competitivePercent}% of the cheapest.` });
    } catch (caught) {
      if (!isUnauthorizedError(caught)) setError(serverError(caught).message ?? 'Failed to save. Please try again.');
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
