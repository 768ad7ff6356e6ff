import { useState } from 'react';
import { BellRing, CircleCheck, CircleX } from 'lucide-react';
import { api, isUnauthorizedError, type TestDelivery } from '../../../lib/api';
import { errorMessage } from '../../../lib/billing';
import { testOutcome } from '../../../lib/channels';
import { cn } from '../../../lib/utils';
import { toast } from '../../../stores/toast';
import { Button } from '../../ui/Button';
import { Spinner } from '../../ui/Spinner';

/**
 * A test delivery to a channel: whether one is being sent, the last one's outcome, and a version
 * that counts the tests sent, for the deliveries table to read itself again.
 */
export function useChannelTest(channelId: string, onDelivered: () => void) {
  const [testing, setTesting] = useState(false);
  const [tested, setTested] = useState<TestDelivery | null>(null);
  const [version, setVersion] = useState(0);

  async function send() {
    setTesting(true);
    setTested(null);
    try {
      setTested(await api.channels.test(channelId));
      setVersion((v) => v + 1);
      onDelivered();
    } catch (error) {
      if (!isUnauthorizedError(error)) toast({ title: 'Test not sent', description: errorMessage(error), variant: 'destructive' });
    } finally {
      setTesting(false);
    }
  }

  return { testing, tested, version, send };
}

export function SendTestButton({ testing, onClick }: { testing: boolean; onClick: () => void }) {
  return (
    <Button variant="outline" size="sm" onClick={onClick} disabled={testing}>
      {testing ? <Spinner className="size-4 text-current" label="Sending test" /> : <BellRing aria-hidden="true" />}
      Send test
    </Button>
  );
}

/** The last test's outcome, announced as it arrives. */
export function TestOutcome({ tested }: { tested: TestDelivery | null }) {
  return (
    <p role="status" className={cn('text-sm', tested && (tested.delivered ? 'text-success' : 'text-destructive'))}>
      {tested && (
        <span className="inline-flex items-start gap-1.5">
          {tested.delivered ? (
            <CircleCheck aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
          ) : (
            <CircleX aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
          )}
          {testOutcome(tested)}
        </span>
      )}
    </p>
  );
}
