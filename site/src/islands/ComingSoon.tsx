import { Construction } from 'lucide-react';
import { AppShell } from './AppShell';
import { Card, CardDescription, CardHeader, CardTitle } from './ui/Card';

type ComingSoonProps = { title: string; subtitle?: string };

/** The honest body of a signed-in page whose screen is not built yet: no made-up figures. */
export default function ComingSoon({ title, subtitle }: ComingSoonProps) {
  return (
    <AppShell title={title} subtitle={subtitle}>
      <Card className="mx-auto max-w-2xl">
        <CardHeader className="items-center py-12 text-center">
          <span className="mb-2 flex size-12 items-center justify-center rounded-full bg-muted">
            <Construction aria-hidden="true" className="size-6 text-muted-foreground" />
          </span>
          <CardTitle>This screen is being built</CardTitle>
          <CardDescription className="max-w-md">
            {title} will appear here soon. Your account and settings already work.
          </CardDescription>
        </CardHeader>
      </Card>
    </AppShell>
  );
}
