import type { ReactNode } from 'react';
import { TriangleAlert } from 'lucide-react';
import { Button } from './Button';
import { Card } from './Card';

/** A list's placeholders while it loads, announced once to screen readers. */
export function Loading({ label, className, children }: { label: string; className: string; children: ReactNode }) {
  return (
    <div className={className} aria-busy="true">
      <span className="sr-only" role="status">
        {label}
      </span>
      {children}
    </div>
  );
}

/** What stands in place of a list that is empty, matches nothing or failed to load, with what to do next. */
export function StateMessage({ icon, title, children, actions }: { icon: ReactNode; title: string; children: ReactNode; actions: ReactNode }) {
  return (
    <Card className="flex flex-col items-center px-6 py-14 text-center">
      <span className="mb-4 flex size-12 items-center justify-center rounded-full bg-muted text-muted-foreground [&_svg]:size-6">{icon}</span>
      <h2 className="text-lg font-semibold">{title}</h2>
      <p className="mt-1 max-w-md text-sm text-muted-foreground">{children}</p>
      <div className="mt-6 flex flex-wrap justify-center gap-2">{actions}</div>
    </Card>
  );
}

export function LoadFailed({ title, onRetry }: { title: string; onRetry: () => void }) {
  return (
    <StateMessage
      icon={<TriangleAlert aria-hidden="true" />}
      title={title}
      actions={
        <Button variant="outline" onClick={onRetry}>
          Try again
        </Button>
      }
    >
      Something went wrong while loading your products. Please try again.
    </StateMessage>
  );
}
