import { useEffect, useId, useState, type FormEvent, type ReactNode } from 'react';
import { useStore } from '@nanostores/react';
import { Eye, EyeOff, Save } from 'lucide-react';
import { api, isUnauthorizedError, type Settings, type User } from '../lib/api';
import { CHECK_FREQUENCIES, CURRENCIES, DEFAULT_SETTINGS, TIMEZONES } from '../lib/settings';
import { $user } from '../stores/auth';
import { toast } from '../stores/toast';
import { AppShell } from './AppShell';
import { Button } from './ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from './ui/Card';
import { Input } from './ui/Input';
import { Label } from './ui/Label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from './ui/Select';
import { Skeleton } from './ui/Skeleton';
import { Spinner } from './ui/Spinner';
import { Switch } from './ui/Switch';

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
      const saved = await api.settings.save(settings);
      if (saved && typeof saved === 'object') setSettings({ ...DEFAULT_SETTINGS, ...saved });
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

  return (
    <form onSubmit={save} className="mx-auto max-w-3xl space-y-6">
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
        <>
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

          <Card>
            <CardHeader>
              <CardTitle>Monitoring Preferences</CardTitle>
              <CardDescription>Defaults for new products and for how prices and times are shown.</CardDescription>
            </CardHeader>
            <CardContent className="grid gap-5 sm:grid-cols-2">
              <SelectField
                label="Default Check Frequency"
                value={settings.checkFrequency}
                options={CHECK_FREQUENCIES}
                onChange={set('checkFrequency')}
                loading={load === 'loading'}
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
        </>
      )}

      <ApiAccessCard apiKey={null} />

      <div className="flex justify-end">
        <Button type="submit" disabled={saving || load !== 'loaded'}>
          {saving ? <Spinner className="size-4 text-current" label="Saving" /> : <Save aria-hidden="true" />}
          Save Settings
        </Button>
      </div>
    </form>
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
};

function SelectField<V extends string>({ label, value, options, onChange, loading }: SelectFieldProps<V>) {
  return (
    <Field label={label}>
      {(id) =>
        loading ? (
          <Skeleton className="h-9 w-full" />
        ) : (
          <Select value={value} onValueChange={(v) => onChange(v as V)}>
            <SelectTrigger id={id}>
              <SelectValue />
            </SelectTrigger>
            <SelectContent>
              {options.map((option) => (
                <SelectItem key={option.value} value={option.value}>
                  {option.label}
                </SelectItem>
              ))}
            </SelectContent>
          </Select>
        )
      }
    </Field>
  );
}

const MASKED_KEY = '••••••••••••••••••••••••••••••••';

/** Read-only key with show/hide; there are no keys yet, so it shows the mask and why. */
function ApiAccessCard({ apiKey }: { apiKey: string | null }) {
  const [visible, setVisible] = useState(false);
  const id = useId();
  const toggleLabel = visible ? 'Hide API key' : 'Show API key';
  return (
    <Card>
      <CardHeader>
        <CardTitle>API Access</CardTitle>
        <CardDescription>Read your products and prices from your own tools.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-2">
        <Label htmlFor={id}>API Key</Label>
        <div className="flex gap-2">
          <Input
            id={id}
            readOnly
            value={apiKey && visible ? apiKey : MASKED_KEY}
            aria-describedby={apiKey ? undefined : `${id}-note`}
            className="font-mono"
          />
          <Button
            variant="outline"
            size="icon"
            aria-label={toggleLabel}
            aria-pressed={visible}
            disabled={!apiKey}
            onClick={() => setVisible((v) => !v)}
          >
            {visible ? <EyeOff aria-hidden="true" /> : <Eye aria-hidden="true" />}
          </Button>
        </div>
        {!apiKey && (
          <p id={`${id}-note`} className="text-sm text-muted-foreground">
            API access comes with the Pro plan.{' '}
            <a href="/billing" className="font-medium text-foreground underline underline-offset-4">
              See plans
            </a>
          </p>
        )}
      </CardContent>
    </Card>
  );
}
