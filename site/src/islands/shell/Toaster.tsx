import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { Toast } from 'radix-ui';
import { X } from 'lucide-react';
import { TOASTS_KEEP_CLEAR, toastClearance } from '../../lib/toasts';
import { cn } from '../../lib/utils';
import { $toasts, dismissToast } from '../../stores/toast';
import { focusRing } from '../ui/Button';

const variants = {
  default: 'border bg-background text-foreground',
  destructive: 'border-destructive bg-destructive text-destructive-foreground',
};

/**
 * While toasts show: how far above the bottom edge they sit to keep the marked elements (the
 * bulk-action bar) in view. Measured every frame, as such a bar comes, goes and moves with scrolling.
 */
function useClearance(showing: boolean): number {
  const [clearance, setClearance] = useState(0);
  useEffect(() => {
    if (!showing) return;
    let frame = 0;
    const measure = () => {
      const boxes = [...document.querySelectorAll(`[${TOASTS_KEEP_CLEAR}]`)].map((el) => el.getBoundingClientRect());
      setClearance(toastClearance(window.innerHeight, boxes));
      frame = requestAnimationFrame(measure);
    };
    measure();
    return () => cancelAnimationFrame(frame);
  }, [showing]);
  return clearance;
}

/**
 * Renders the toast store with Radix Toast (docs/product.md#toasts-and-tooltips): 5000 ms by default, swipe right past
 * 50 px to dismiss, F8 moves focus to the toasts. They show along the bottom edge on every screen
 * (so never over the top of a dialog, where its title and close button are), above the bulk-action bar.
 */
export function Toaster() {
  const toasts = useStore($toasts);
  const clearance = useClearance(toasts.length > 0);
  return (
    <Toast.Provider duration={5000} swipeDirection="right" swipeThreshold={50}>
      {toasts.map((t) => (
        <Toast.Root
          key={t.id}
          duration={t.duration}
          onOpenChange={(open) => !open && dismissToast(t.id)}
          className={cn(
            'group pointer-events-auto relative flex w-full items-start gap-4 overflow-hidden rounded-md p-4 pr-10 shadow-lg',
            'transition-transform data-[swipe=cancel]:translate-x-0 data-[swipe=end]:translate-x-(--radix-toast-swipe-end-x)',
            'data-[swipe=move]:translate-x-(--radix-toast-swipe-move-x) data-[swipe=move]:transition-none',
            variants[t.variant],
          )}
        >
          <div className="grid gap-1">
            <Toast.Title className="text-sm font-semibold">{t.title}</Toast.Title>
            {t.description && <Toast.Description className="text-sm opacity-90">{t.description}</Toast.Description>}
          </div>
          <Toast.Close aria-label="Close" className={cn('absolute right-2 top-2 rounded-md p-1 opacity-70 transition-opacity hover:opacity-100', focusRing)}>
            <X aria-hidden="true" className="size-4" />
          </Toast.Close>
        </Toast.Root>
      ))}
      <Toast.Viewport
        style={{ bottom: clearance }}
        className="fixed right-0 bottom-0 z-[100] flex max-h-screen w-full flex-col gap-2 p-4 outline-none md:max-w-[420px]"
      />
    </Toast.Provider>
  );
}
