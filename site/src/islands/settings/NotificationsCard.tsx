import type { Settings } from '../../lib/api';
import { Button } from '../ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../ui/Card';
import { ToggleRow } from './fields';

type Setter = <K extends keyof Settings>(key: K) => (value: Settings[K]) => void;

type NotificationsCardProps = { settings: Settings; set: Setter; loading: boolean };

/** E-mail notifications, price drop alerts and weekly reports, each switched on or off. */
export function NotificationsCard({ settings, set, loading }: NotificationsCardProps) {
  return (
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
          loading={loading}
        />
        <ToggleRow
          label="Price Drop Alerts"
          description="Get alerted when a competitor lowers a price"
          checked={settings.priceDropAlerts}
          onChange={set('priceDropAlerts')}
          loading={loading}
        />
        <ToggleRow
          label="Weekly Reports"
          description="Receive a weekly summary of price movements"
          checked={settings.weeklyReports}
          onChange={set('weeklyReports')}
          loading={loading}
        />
      </CardContent>
    </Card>
  );
}

/** In place of the preferences when they could not be read: they cannot be saved either. */
export function PreferencesUnavailable({ onRetry }: { onRetry: () => void }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>Preferences unavailable</CardTitle>
        <CardDescription>Your settings could not be loaded, so they cannot be changed right now.</CardDescription>
      </CardHeader>
      <CardContent>
        <Button variant="outline" onClick={onRetry}>
          Try again
        </Button>
      </CardContent>
    </Card>
  );
}
