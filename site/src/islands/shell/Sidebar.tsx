import { Bell, ChartLine, CreditCard, LayoutDashboard, LogOut, Package, Scale, Settings, TrendingDown } from 'lucide-react';
import type { User } from '../../lib/api';
import { LOGOUT_PATH } from '../../lib/session';
import { planLabel } from '../../lib/format';
import { isCurrentPage } from '../../lib/navigation';
import { cn } from '../../lib/utils';
import { Button, focusRing } from '../ui/Button';

type NavItem = { label: string; href: string; icon: typeof Bell };

const MAIN_NAV: NavItem[] = [
  { label: 'Dashboard', href: '/dashboard', icon: LayoutDashboard },
  { label: 'Products', href: '/products', icon: Package },
  { label: 'Your Catalogue', href: '/catalogue', icon: Scale },
  { label: 'Price History', href: '/price-history', icon: ChartLine },
  { label: 'Alerts', href: '/alerts', icon: Bell },
];

const ACCOUNT_NAV: NavItem[] = [
  { label: 'Billing', href: '/billing', icon: CreditCard },
  { label: 'Settings', href: '/settings', icon: Settings },
];

type SidebarProps = {
  user: User;
  /** Called when a link is followed, so the mobile menu can close. */
  onNavigate?: () => void;
};

export function Sidebar({ user, onNavigate }: SidebarProps) {
  return (
    <div className="flex h-full flex-col bg-card">
      <div className="flex h-16 shrink-0 items-center border-b px-6">
        <a href="/dashboard" onClick={onNavigate} className={cn('flex items-center gap-2 rounded-md font-semibold', focusRing)}>
          <span className="flex size-8 items-center justify-center rounded-lg bg-brand text-brand-foreground">
            <TrendingDown aria-hidden="true" className="size-4" />
          </span>
          Pricewatch
        </a>
      </div>
      <nav aria-label="Main" className="flex-1 space-y-6 overflow-y-auto p-4">
        <NavList items={MAIN_NAV} onNavigate={onNavigate} />
        <div className="space-y-2">
          <h2 id="account-nav" className="px-3 text-xs font-semibold uppercase tracking-wider text-muted-foreground">
            Account
          </h2>
          <NavList items={ACCOUNT_NAV} onNavigate={onNavigate} labelledBy="account-nav" />
        </div>
      </nav>
      <div className="space-y-3 border-t p-4">
        <div className="rounded-lg bg-muted px-3 py-2">
          <p className="text-xs text-muted-foreground">Current plan</p>
          <p className="text-sm font-medium">{planLabel(user)}</p>
        </div>
        <Button variant="ghost" className="w-full justify-start" onClick={() => window.location.assign(LOGOUT_PATH)}>
          <LogOut aria-hidden="true" />
          Logout
        </Button>
      </div>
    </div>
  );
}

function NavList({ items, onNavigate, labelledBy }: { items: NavItem[]; onNavigate?: () => void; labelledBy?: string }) {
  const pathname = window.location.pathname;
  return (
    <ul className="space-y-1" aria-labelledby={labelledBy}>
      {items.map(({ label, href, icon: Icon }) => {
        const current = isCurrentPage(href, pathname);
        return (
          <li key={href}>
            <a
              href={href}
              onClick={onNavigate}
              aria-current={current ? 'page' : undefined}
              className={cn(
                'flex items-center gap-3 rounded-md px-3 py-2 text-sm font-medium transition-colors',
                current ? 'bg-brand/10 text-brand' : 'text-muted-foreground hover:bg-accent hover:text-accent-foreground',
                focusRing,
              )}
            >
              <Icon aria-hidden="true" className="size-4" />
              {label}
            </a>
          </li>
        );
      })}
    </ul>
  );
}
