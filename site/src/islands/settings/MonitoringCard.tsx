import type { Settings } from '../../lib/api';
import { CURRENCIES, TIMEZONES } from '../../lib/settings';
import type { FrequencyChoices } from '../../lib/plan-limits';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../ui/Card';
import { SelectField } from './fields';

type Setter = <K extends keyof Settings>(key: K) => (value: Settings[K]) => void;

type MonitoringCardProps = {
  settings: Settings;
  /** The check frequencies the plan allows, and what applies now. */
  frequency: FrequencyChoices;
  set: Setter;
  loading: boolean;
};

/** The default check frequency, and the currency and time zone prices and times are shown in. */
export function MonitoringCard({ settings, frequency, set, loading }: MonitoringCardProps) {
  return (
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
          loading={loading}
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
        <SelectField label="Currency" value={settings.currency} options={CURRENCIES} onChange={set('currency')} loading={loading} />
        <SelectField label="Timezone" value={settings.timezone} options={TIMEZONES} onChange={set('timezone')} loading={loading} />
      </CardContent>
    </Card>
  );
}
