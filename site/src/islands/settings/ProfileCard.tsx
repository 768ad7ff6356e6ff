import type { User } from '../../lib/api';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../ui/Card';
import { ReadOnlyField } from './fields';

/** The signed-in user's name and e-mail, read-only: the sign-in provider owns them. */
export function ProfileCard({ user }: { user: User }) {
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
