import { useEffect, useId, useState, type FormEvent, type ReactNode } from 'react';
import { useStore } from '@nanostores/react';
import { Copy, Eye, EyeOff, KeyRound, RefreshCw, Save, Trash2 } from 'lucide-react';
import { api, isUnauthorizedError, type ApiKeyStatus, type Settings, type User } from '../lib/api';
import { errorMessage } from '../lib/billing';
import { formatDateTime } from '../lib/format';
import { CURRENCIES, DEFAULT_SETTINGS, TIMEZONES } from '../lib/settings';
import { apiKeyFieldText, frequencyChoices } from '../lib/plan-limits';
import { $user } from '../stores/auth';
import { toast } from '../stores/toast';
import { AppShell } from './AppShell';
import {
  AlertDialog, AlertDialogAction, AlertDialogCancel, AlertDialogContent, AlertDialogDescription, AlertDialogFooter, AlertDialogHeader, AlertDialogTitle,
} from './ui/AlertDialog';
import { Button } from './ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from './ui/Card';
import { Input } from './ui/Input';
import { Label } from './ui/Label';
import { OptionSelect } from './ui/Select';
import { Skeleton } from './ui/Skeleton';
import { Spinner } from './ui/Spinner';
import { Switch } from './ui/Switch';
import { ChannelsSection } from './settings/ChannelsSection';

export default function SettingsScreen() {
  return (
    <AppShell title="Settings" subtitle="Manage your account and preferences">
      <SettingsForm />
    </AppShell>
  );
}

type Load = 'loading' | 'loaded' | 'failed';

function SettingsForm() {
  const user = useStore($user);
  const [settings, setSettings] = useState<Settings>(DEFAULT_SETTINGS);
  const [load, setLoad] = useState<Load>('loading');
  const [saving, setSaving] = useState(false);

  function fetchSettings() {
    setLoad('loading');
    api.settings.get().then(
      (saved) => {
        setSettings({ ...DEFAULT_SETTINGS, ...saved }); // null (never saved) keeps the defaults
        setLoad('loaded');
      },
      (error) => {
        setLoad('failed');
        if (!isUnauthorizedError(error)) toast({ title: 'Failed to fetch settings', variant: 'destructive' });
      },
    );
  }

  useEffect(fetchSettings, []);

  async function save(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    try {
      // A frequency saved before a downgrade is saved as what applies now (the plan refuses faster ones).
      const saved = await api.settings.save({ ...settings, checkFrequency: frequency.value });
      const next = { ...DEFAULT_SETTINGS, ...settings, ...(saved && typeof saved === 'object' ? saved : {}) };
      setSettings(next);
      // The time zone and currency the screens show things in change at once, without a reload.
      const current = $user.get();
      if (current) $user.set({ ...current, timezone: next.timezone, currency: next.currency });
      toast({ title: 'Settings saved', description: 'Your preferences have been updated.' });
    } catch (error) {
      if (!isUnauthorizedError(error)) {
        toast({ title: 'Update Failed', description: 'Failed to update settings. Please try again.', variant: 'destructive' });
      }
    } finally {
      setSaving(false);
    }
  }

  const set = <K extends keyof Settings>(key: K) => (value: Settings[K]) => setSettings((s) => ({ ...s, [key]: value }));

  if (!user) return null;
  const frequency = frequencyChoices(user, settings.checkFrequency);

  // The form holds only the Save button: the channels section has forms of its own, which cannot
  // sit inside another one, and every preference lives in state, not in form fields.
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <ProfileCard user={user} />

      {load === 'failed' ? (
        <Card>
          <CardHeader>
            <CardTitle>Preferences unavailable</CardTitle>
            <CardDescription>Your settings could not be loaded, so they cannot be changed right now.</CardDescription>
          </CardHeader>
          <CardContent>
            <Button variant="outline" onClick={fetchSettings}>
              Try again
            </Button>
          </CardContent>
        </Card>
      ) : (
        <Card>
          <CardHeader>
            <CardTitle>Notifications</CardTitle>
            <CardDescription>Choose how Pricewatch tells you about price changes.</CardDescription>
          </CardHeader>
          <CardContent className="space-y-5">
            <ToggleRow
              label="Email Notifications"
              description="Receive notifications by e-mail"
              checked={settings.emailNotifications}
              onChange={set('emailNotifications')}
              loading={load === 'loading'}
            />
            <ToggleRow
              label="Price Drop Alerts"
              description="Get alerted when a competitor lowers a price"
              checked={settings.priceDropAlerts}
              onChange={set('priceDropAlerts')}
              loading={load === 'loading'}
            />
            <ToggleRow
              label="Weekly Reports"
              description="Receive a weekly summary of price movements"
              checked={settings.weeklyReports}
              onChange={set('weeklyReports')}
              loading={load === 'loading'}
            />
          </CardContent>
        </Card>
      )}

      <ChannelsSection />

      {load !== 'failed' && (
        <Card>
          <CardHeader>
            <CardTitle>Monitoring Preferences</CardTitle>
            <CardDescription>Defaults for new products and for how prices and times are shown.</CardDescription>
          </CardHeader>
          <CardContent className="grid gap-5 sm:grid-cols-2">
            <SelectField
              label="Default Check Frequency"
              value={frequency.value}
              options={frequency.options}
              onChange={set('checkFrequency')}
              loading={load === 'loading'}
              hint={
                (frequency.savedNote || frequency.note) && (
                  <>
                    {frequency.savedNote} {frequency.note}{' '}
                    {frequency.note && (
                      <a href="/billing" className="font-medium text-foreground underline underline-offset-4">
                        See plans
                      </a>
                    )}
                  </>
                )
              }
            />
            <SelectField
              label="Currency"
              value={settings.currency}
              options={CURRENCIES}
              onChange={set('currency')}
              loading={load === 'loading'}
            />
            <SelectField
              label="Timezone"
              value={settings.timezone}
              options={TIMEZONES}
              onChange={set('timezone')}
              loading={load === 'loading'}
            />
          </CardContent>
        </Card>
      )}

      <ApiAccessCard />

      <form onSubmit={save} className="flex justify-end">
        <Button type="submit" disabled={saving || load !== 'loaded'}>
          {saving ? <Spinner className="size-4 text-current" label="Saving" /> : <Save aria-hidden="true" />}
          Save Settings
        </Button>
      </form>
    </div>
  );
}

function ProfileCard({ user }: { user: User }) {
  const managedBy =
    user.authProvider === 'demo'
      ? 'Your profile comes from the demo sign-in and cannot be edited here.'
      : 'Your profile is managed by your Google account and cannot be edited here.';
  return (
    <Card>
      <CardHeader>
        <CardTitle>Profile</CardTitle>
        <CardDescription>{managedBy}</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-5 sm:grid-cols-2">
        <ReadOnlyField label="First Name" value={user.firstName} />
        <ReadOnlyField label="Last Name" value={user.lastName} />
        <div className="sm:col-span-2">
          <ReadOnlyField label="Email" value={user.email} type="email" />
        </div>
      </CardContent>
    </Card>
  );
}

function Field({ label, children }: { label: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="space-y-2">
      <Label htmlFor={id}>{label}</Label>
      {children(id)}
    </div>
  );
}

function ReadOnlyField({ label, value, type = 'text' }: { label: string; value: string | null; type?: string }) {
  return <Field label={label}>{(id) => <Input id={id} type={type} value={value ?? ''} readOnly />}</Field>;
}

type ToggleRowProps = {
  label: string;
  description: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  loading: boolean;
};

function ToggleRow({ label, description, checked, onChange, loading }: ToggleRowProps) {
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

function SelectField<V extends string>({ label, value, options, onChange, loading, hint }: SelectFieldProps<V>) {
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

type KeyAction = 'create' | 'rotate' | 'revoke';

/**
 * The user's API key, masked, with show/hide for the full key, which exists on screen only right
 * after it was created (the server keeps a hash); without a key the field says so rather than
 * showing a mask. Pro users create, rotate and revoke it; anyone else sees why they cannot and
 * where to upgrade.
 */
function ApiAccessCard() {
  const [status, setStatus] = useState<ApiKeyStatus | null>(null);
  const [failed, setFailed] = useState(false);
  const [fullKey, setFullKey] = useState<string | null>(null);
  const [visible, setVisible] = useState(false);
  const [busy, setBusy] = useState<KeyAction | null>(null);
  const [confirming, setConfirming] = useState<'rotate' | 'revoke' | null>(null);
  const id = useId();

  useEffect(() => {
    api.apiKey.get().then(setStatus, (error) => {
      setFailed(true);
      if (!isUnauthorizedError(error)) toast({ title: 'Failed to load your API key', variant: 'destructive' });
    });
  }, []);

  async function run(action: KeyAction) {
    setConfirming(null);
    setBusy(action);
    try {
      if (action === 'revoke') {
        setStatus(await api.apiKey.revoke());
        setFullKey(null);
        setVisible(false);
        toast({ title: 'API key revoked', description: 'Requests with it are refused from now on.' });
      } else {
        const { key, ...next } = await api.apiKey.create();
        setStatus(next);
        setFullKey(key);
        setVisible(true);
        toast({ title: action === 'rotate' ? 'API key rotated' : 'API key created', description: 'Copy it now: it is shown only once.' });
      }
    } catch (error) {
      if (!isUnauthorizedError(error)) toast({ title: 'API key not changed', description: errorMessage(error), variant: 'destructive' });
    } finally {
      setBusy(null);
    }
  }

  async function copy() {
    if (!fullKey) return;
    try {
      await navigator.clipboard.writeText(fullKey);
      toast({ title: 'API key copied' });
    } catch {
      toast({ title: 'Could not copy', description: 'Select the key and copy it by hand.', variant: 'destructive' });
    }
  }

  const toggleLabel = visible ? 'Hide API key' : 'Show API key';
  const shown = fullKey && visible ? fullKey : apiKeyFieldText(status, failed);
  const isKey = !!fullKey || !!status?.hasKey;
  const noteId = `${id}-note`;

  return (
    <Card>
      <CardHeader>
        <CardTitle>API Access</CardTitle>
        <CardDescription>
          Read your products, prices, alerts and events from your own tools.{' '}
          <a href="/api/docs" className="font-medium text-foreground underline underline-offset-4">
            API documentation
          </a>
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-3">
        <Label htmlFor={id}>API Key</Label>
        <div className="flex gap-2">
          {status || failed ? (
            <Input id={id} readOnly value={shown} aria-describedby={noteId} className={isKey ? 'font-mono' : undefined} onFocus={(e) => e.currentTarget.select()} />
          ) : (
            <Skeleton className="h-9 w-full" />
          )}
          <Button
            variant="outline"
            size="icon"
            aria-label={toggleLabel}
            aria-pressed={visible}
            title={fullKey ? toggleLabel : 'The full key is shown only right after it is created'}
            disabled={!fullKey}
            onClick={() => setVisible((v) => !v)}
          >
            {visible ? <EyeOff aria-hidden="true" /> : <Eye aria-hidden="true" />}
          </Button>
          {fullKey && (
            <Button variant="outline" size="icon" aria-label="Copy API key" onClick={copy}>
              <Copy aria-hidden="true" />
            </Button>
          )}
        </div>
        <p id={noteId} className="text-sm text-muted-foreground">
          {failed ? (
            'Your API key could not be loaded.'
          ) : !status ? (
            'Loading…'
          ) : fullKey ? (
            'Copy this key now and keep it secret: it is not shown again. Send it as "Authorization: Bearer <key>".'
          ) : status.apiAccess ? (
            status.hasKey ? (
              `Created ${formatDateTime(status.createdAt)}. For security the full key is shown only once; rotate it if it is lost.`
            ) : (
              'Create a key to read your data from your own tools.'
            )
          ) : (
            <>
              {status.reason}{' '}
              <a href="/billing" className="font-medium text-foreground underline underline-offset-4">
                See plans
              </a>
            </>
          )}
        </p>
        {status && (
          <div className="flex flex-wrap gap-2">
            {status.apiAccess && !status.hasKey && (
              <Button onClick={() => run('create')} disabled={busy !== null}>
                {busy === 'create' ? <Spinner className="size-4 text-current" label="Creating" /> : <KeyRound aria-hidden="true" />}
                Create API Key
              </Button>
            )}
            {status.apiAccess && status.hasKey && (
              <Button variant="outline" onClick={() => setConfirming('rotate')} disabled={busy !== null}>
                {busy === 'rotate' ? <Spinner className="size-4 text-current" label="Rotating" /> : <RefreshCw aria-hidden="true" />}
                Rotate Key
              </Button>
            )}
            {status.hasKey && (
              <Button variant="outline" onClick={() => setConfirming('revoke')} disabled={busy !== null}>
                {busy === 'revoke' ? <Spinner className="size-4 text-current" label="Revoking" /> : <Trash2 aria-hidden="true" />}
                Revoke Key
              </Button>
            )}
          </div>
        )}
      </CardContent>
      <AlertDialog open={confirming !== null} onOpenChange={(open) => !open && setConfirming(null)}>
        <AlertDialogContent>
          <AlertDialogHeader>
            <AlertDialogTitle>{confirming === 'rotate' ? 'Rotate your API key?' : 'Revoke your API key?'}</AlertDialogTitle>
            <AlertDialogDescription>
              {confirming === 'rotate'
                ? 'A new key replaces the current one, which stops working at once. Tools using it need the new key.'
                : 'The key stops working at once. Tools using it lose access until you generate a new one.'}
            </AlertDialogDescription>
          </AlertDialogHeader>
          <AlertDialogFooter>
            <AlertDialogCancel>Cancel</AlertDialogCancel>
            <AlertDialogAction variant={confirming === 'revoke' ? 'destructive' : 'default'} onClick={() => confirming && run(confirming)}>
              {confirming === 'rotate' ? 'Rotate Key' : 'Revoke Key'}
            </AlertDialogAction>
          </AlertDialogFooter>
        </AlertDialogContent>
      </AlertDialog>
    </Card>
  );
}
