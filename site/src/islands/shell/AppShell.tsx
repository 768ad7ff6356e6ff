import { useEffect, useState, type ReactNode } from 'react';
import { useStore } from '@nanostores/react';
import { Dialog as DialogPrimitive } from 'radix-ui';
import { X } from 'lucide-react';
import type { User } from '../../lib/api';
import { expireSession } from '../../lib/session';
import { cn } from '../../lib/utils';
import { $authStatus, $user, loadUser } from '../../stores/auth';
import { Button } from '../ui/Button';
import { overlayClass } from '../ui/Dialog';
import { PageSpinner } from '../ui/Spinner';
import { TooltipProvider } from '../ui/Tooltip';
import { PageHeader, PageIntro } from './PageHeader';
import { Sidebar } from './Sidebar';
import { Toaster } from './Toaster';

type AppShellProps = {
  title: string;
  subtitle?: string;
  /** The screen; rendered only once the user is known to be signed in. */
  children: ReactNode;
};

/** The frame of every signed-in screen: sidebar, header, toasts, and the sign-in gate. */
export function AppShell({ title, subtitle, children }: AppShellProps) {
  const status = useStore($authStatus);
  const user = useStore($user);

  useEffect(() => {
    loadUser();
  }, []);

  // Every page using the shell is protected.
  useEffect(() => {
    if (status === 'signed-out') expireSession();
  }, [status]);

  return (
    <TooltipProvider>
      {status === 'signed-in' && user ? (
        <SignedInLayout title={title} subtitle={subtitle} user={user}>
          {children}
        </SignedInLayout>
      ) : (
        <PageSpinner />
      )}
      <Toaster />
    </TooltipProvider>
  );
}

const DESKTOP = '(min-width: 1024px)';

function SignedInLayout({ title, subtitle, user, children }: AppShellProps & { user: User }) {
  const [menuOpen, setMenuOpen] = useState(false);

  // The mobile menu is meaningless once the permanent sidebar shows.
  useEffect(() => {
    const desktop = window.matchMedia(DESKTOP);
    const close = () => desktop.matches && setMenuOpen(false);
    desktop.addEventListener('change', close);
    return () => desktop.removeEventListener('change', close);
  }, []);

  return (
    // The Dialog root spans the page so the header's menu button can be its trigger; Radix gives the
    // mobile menu its focus trap, Escape, overlay click and focus return.
    <DialogPrimitive.Root open={menuOpen} onOpenChange={setMenuOpen}>
      <a
        href="#main"
        className="sr-only rounded-md bg-background focus:not-sr-only focus:fixed focus:left-4 focus:top-4 focus:z-50 focus:px-4 focus:py-2 focus:ring-2 focus:ring-ring"
      >
        Skip to content
      </a>
      <div className="flex min-h-screen">
        <aside className="sticky top-0 hidden h-screen w-64 shrink-0 border-r lg:block">
          <Sidebar user={user} />
        </aside>
        <DialogPrimitive.Portal>
          <DialogPrimitive.Overlay className={cn(overlayClass, 'lg:hidden')} />
          <DialogPrimitive.Content
            aria-describedby={undefined}
            className="fixed inset-y-0 left-0 z-50 w-72 max-w-[85vw] border-r shadow-lg outline-none lg:hidden"
          >
            <DialogPrimitive.Title className="sr-only">Menu</DialogPrimitive.Title>
            {/* First in order, so opening the menu focuses it (Radix skips links when choosing). */}
            <DialogPrimitive.Close asChild>
              <Button variant="ghost" size="icon" aria-label="Close menu" className="absolute right-3 top-3.5">
                <X aria-hidden="true" />
              </Button>
            </DialogPrimitive.Close>
            <Sidebar user={user} onNavigate={() => setMenuOpen(false)} />
          </DialogPrimitive.Content>
        </DialogPrimitive.Portal>
        <div className="flex min-w-0 flex-1 flex-col">
          <PageHeader title={title} subtitle={subtitle} user={user} />
          <main id="main" tabIndex={-1} className="flex-1 p-4 outline-none sm:p-6 lg:p-8">
            <PageIntro subtitle={subtitle} user={user} />
            {children}
          </main>
        </div>
      </div>
    </DialogPrimitive.Root>
  );
}
