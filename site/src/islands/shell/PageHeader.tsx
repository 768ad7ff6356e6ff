import { useState } from 'react';
import { Menu } from 'lucide-react';
import type { User } from '../../lib/api';
import { avatarLetter, displayName, planLabel } from '../../lib/format';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { DialogTrigger } from '../ui/Dialog';
import { NotificationBell } from './NotificationBell';
import { ThemeToggle } from './ThemeToggle';

type PageHeaderProps = { title: string; subtitle?: string; user: User };

/**
 * Sits inside the mobile menu's Dialog root, so the menu button is its trigger. On phones the sticky
 * header keeps to one line (menu, title, actions): the subtitle and the demo badge go to PageIntro.
 */
export function PageHeader({ title, subtitle, user }: PageHeaderProps) {
  return (
    <header className="sticky top-0 z-30 flex min-h-16 items-center gap-3 border-b bg-background/95 px-4 py-2 backdrop-blur sm:px-6 lg:px-8">
      <DialogTrigger asChild>
        <Button variant="ghost" size="icon" className="-ml-2 lg:hidden" aria-label="Open menu">
          <Menu aria-hidden="true" />
        </Button>
      </DialogTrigger>
      <div className="min-w-0 flex-1">
        <h1 className="truncate text-xl font-semibold tracking-tight">{title}</h1>
        {subtitle && <p className="hidden truncate text-sm text-muted-foreground sm:block">{subtitle}</p>}
      </div>
      <div className="flex shrink-0 items-center gap-1 sm:gap-2">
        {isDemo(user) && <DemoBadge className="hidden sm:inline-flex" />}
        <NotificationBell />
        <ThemeToggle />
        <UserSummary user={user} />
      </div>
    </header>
  );
}

/** On phones, the header's subtitle and demo badge open the page instead, and scroll away with it. */
export function PageIntro({ subtitle, user }: { subtitle?: string; user: User }) {
  if (!subtitle && !isDemo(user)) return null;
  return (
    <div className="-mt-1 mb-4 flex flex-wrap items-center gap-x-3 gap-y-2 sm:hidden">
      {subtitle && <p className="text-sm text-muted-foreground">{subtitle}</p>}
      {isDemo(user) && <DemoBadge />}
    </div>
  );
}

const isDemo = (user: User) => user.authProvider === 'demo';

function DemoBadge({ className }: { className?: string }) {
  return (
    <Badge variant="warning" className={className} title="Signed in with the local demo account, not Google">
      Demo account
    </Badge>
  );
}

function UserSummary({ user }: { user: User }) {
  return (
    <div className="flex items-center gap-3 pl-1">
      <Avatar user={user} />
      {/* Name and plan stay readable to screen readers on small screens. */}
      <div className="sr-only leading-tight md:not-sr-only">
        <p className="max-w-40 truncate text-sm font-medium">{displayName(user)}</p>
        <p className="text-xs text-muted-foreground">{planLabel(user)}</p>
      </div>
    </div>
  );
}

function Avatar({ user }: { user: User }) {
  const [imageFailed, setImageFailed] = useState(false);
  const className = 'size-8 shrink-0 rounded-full';
  if (user.profileImageUrl && !imageFailed) {
    // Decorative: the name is right next to it.
    return <img src={user.profileImageUrl} alt="" referrerPolicy="no-referrer" onError={() => setImageFailed(true)} className={`${className} object-cover`} />;
  }
  return (
    <span aria-hidden="true" className={`${className} flex items-center justify-center bg-brand text-sm font-medium text-brand-foreground`}>
      {avatarLetter(user)}
    </span>
  );
}
