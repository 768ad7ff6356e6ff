import { useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import { Save } from 'lucide-react';
import { api, isUnauthorizedError, type Settings } from '../../lib/api';
import { DEFAULT_SETTINGS } from '../../lib/settings';
import { frequencyChoices } from '../../lib/plan-limits';
import { $user } from '../../stores/auth';
import { loadable, readStore } from '../../stores/query';
import { toast } from '../../stores/toast';
import { AppShell } from '../shell/AppShell';
import { Button } from '../ui/Button';
import { Spinner } from '../ui/Spinner';
import { ApiAccessCard } from './ApiAccessCard';
import { ChannelsSection } from './ChannelsSection';
import { MonitoringCard } from './MonitoringCard';
import { NotificationsCard, PreferencesUnavailable } from './NotificationsCard';
import { PositionSettingsCard } from './PositionSettingsCard';
import { ProfileCard } from './ProfileCard';

export default function SettingsScreen() {
  return (
    <AppShell title="Settings" subtitle="Manage your account and preferences">
      <SettingsForm />
    </AppShell>
  );
}

type Load = 'loading' | 'loaded' | 'failed';

/** The saved preferences: null when the user never saved any (the defaults apply). */
const $savedSettings = readStore('settings', {
  onError: (error) => {
    if (!isUnauthorizedError(error)) toast({ title: 'Failed to fetch settings', variant: 'destructive' });
  },
});
const $settingsLoad = loadable($savedSettings);

function SettingsForm() {
  const user = useStore($user);
  const { data: saved, error } = useStore($settingsLoad);
  /** What the user changed since the last save. */
  const [edits, setEdits] = useState<Partial<Settings>>({});
  const [saving, setSaving] = useState(false);
  const settings: Settings = { ...DEFAULT_SETTINGS, ...saved, ...edits };
  const load: Load = error ? 'failed' : saved === undefined ? 'loading' : 'loaded';
  const fetchSettings = () => $savedSettings.revalidate();

  async function save(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    try {
      // A frequency saved before a downgrade is saved as what applies now (the plan refuses faster ones).
      const answer = await api.settings.save({ ...settings, checkFrequency: frequency.value });
      const next = { ...DEFAULT_SETTINGS, ...settings, ...(answer && typeof answer === 'object' ? answer : {}) };
      $savedSettings.mutate(next);
      setEdits({});
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

  const set =
    <K extends keyof Settings>(key: K) =>
    (value: Settings[K]) =>
      setEdits((e) => ({ ...e, [key]: value }));

  if (!user) return null;
  const frequency = frequencyChoices(user, settings.checkFrequency);
  const loading = load === 'loading';

  // The form holds only the Save button: the channels section has forms of its own, which cannot
  // sit inside another one, and every preference lives in state, not in form fields.
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <ProfileCard user={user} />

      {load === 'failed' ? <PreferencesUnavailable onRetry={fetchSettings} /> : <NotificationsCard settings={settings} set={set} loading={loading} />}

      <ChannelsSection />

      {load !== 'failed' && <MonitoringCard settings={settings} frequency={frequency} set={set} loading={loading} />}

      <PositionSettingsCard />

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
