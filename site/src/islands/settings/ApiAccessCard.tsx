import { useId, useState } from 'react';
import { useStore } from '@nanostores/react';
import { Copy, Eye, EyeOff, KeyRound, RefreshCw, Trash2 } from 'lucide-react';
import { api, isUnauthorizedError, type ApiKeyStatus } from '../../lib/api';
import { errorMessage } from '../../lib/billing';
import { formatDateTime } from '../../lib/format';
import { apiKeyFieldText } from '../../lib/plan-limits';
import { loadable, readStore } from '../../stores/query';
import { toast } from '../../stores/toast';
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from '../ui/AlertDialog';
import { Button } from '../ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../ui/Card';
import { Input } from '../ui/Input';
import { Label } from '../ui/Label';
import { Skeleton } from '../ui/Skeleton';
import { Spinner } from '../ui/Spinner';

type KeyAction = 'create' | 'rotate' | 'revoke';

/** The key's status, read once; a failed read says so in a toast and in the field's note. */
const $apiKeyStatus = readStore('settings/api-key', {
  onError: (error) => {
    if (!isUnauthorizedError(error)) toast({ title: 'Failed to load your API key', variant: 'destructive' });
  },
});
const $apiKey = loadable($apiKeyStatus);

/**
 * The user's API key, masked, with show/hide for the full key, which exists on screen only right
 * after it was created (the server keeps a hash); without a key the field says so rather than
 * showing a mask. Pro users create, rotate and revoke it; anyone else sees why they cannot and
 * where to upgrade.
 */
export function ApiAccessCard() {
  const { data, error } = useStore($apiKey);
  const status = data ?? null;
  const failed = !!error;
  const setStatus = (next: ApiKeyStatus) => $apiKeyStatus.mutate(next);
  const [fullKey, setFullKey] = useState<string | null>(null);
  const [visible, setVisible] = useState(false);
  const [busy, setBusy] = useState<KeyAction | null>(null);
  const [confirming, setConfirming] = useState<'rotate' | 'revoke' | null>(null);
  const id = useId();

  async function run(action: KeyAction) {
    setConfirming(null);
    setBusy(action);
    try {
      if (action === 'revoke') {
        setStatus(await api.apiKey.revoke());
        setFullKey(null);
        setVisible(false);
        toast({ title: 'API key revoked', description: 'Requests with it are refused from now on.' });
      } else {
        const { key, ...next } = await api.apiKey.create();
        setStatus(next);
        setFullKey(key);
        setVisible(true);
        toast({ title: action === 'rotate' ? 'API key rotated' : 'API key created', description: 'Copy it now: it is shown only once.' });
      }
    } catch (error) {
      if (!isUnauthorizedError(error)) toast({ title: 'API key not changed', description: errorMessage(error), variant: 'destructive' });
    } finally {
      setBusy(null);
    }
  }

  async function copy() {
    if (!fullKey) return;
    try {
      await navigator.clipboard.writeText(fullKey);
      toast({ title: 'API key copied' });
    } catch {
      toast({ title: 'Could not copy', description: 'Select the key and copy it by hand.', variant: 'destructive' });
    }
  }

  const toggleLabel = visible ? 'Hide API key' : 'Show API key';
  const shown = fullKey && visible ? fullKey : apiKeyFieldText(status, failed);
  const isKey = !!fullKey || !!status?.hasKey;
  const noteId = `${id}-note`;

  return (
    <Card>
      <CardHeader>
        <CardTitle>API Access</CardTitle>
        <CardDescription>
          Read your products, prices, alerts and events from your own tools.{' '}
          <a href="/api/docs" className="font-medium text-foreground underline underline-offset-4">
            API documentation
          </a>
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-3">
        <Label htmlFor={id}>API Key</Label>
        <div className="flex gap-2">
          {status || failed ? (
            <Input
              id={id}
              readOnly
              value={shown}
              aria-describedby={noteId}
              className={isKey ? 'font-mono' : undefined}
              onFocus={(e) => e.currentTarget.select()}
            />
          ) : (
            <Skeleton className="h-9 w-full" />
          )}
          <Button
            variant="outline"
            size="icon"
            aria-label={toggleLabel}
            aria-pressed={visible}
            title={fullKey ? toggleLabel : 'The full key is shown only right after it is created'}
            disabled={!fullKey}
            onClick={() => setVisible((v) => !v)}
          >
            {visible ? <EyeOff aria-hidden="true" /> : <Eye aria-hidden="true" />}
          </Button>
          {fullKey && (
            <Button variant="outline" size="icon" aria-label="Copy API key" onClick={copy}>
              <Copy aria-hidden="true" />
            </Button>
          )}
        </div>
        <p id={noteId} className="text-sm text-muted-foreground">
          <KeyNote status={status} failed={failed} fresh={!!fullKey} />
        </p>
        {status && (
          <div className="flex flex-wrap gap-2">
            {status.apiAccess && !status.hasKey && (
              <Button onClick={() => run('create')} disabled={busy !== null}>
                {busy === 'create' ? <Spinner className="size-4 text-current" label="Creating" /> : <KeyRound aria-hidden="true" />}
                Create API Key
              </Button>
            )}
            {status.apiAccess && status.hasKey && (
              <Button variant="outline" onClick={() => setConfirming('rotate')} disabled={busy !== null}>
                {busy === 'rotate' ? <Spinner className="size-4 text-current" label="Rotating" /> : <RefreshCw aria-hidden="true" />}
                Rotate Key
              </Button>
            )}
            {status.hasKey && (
              <Button variant="outline" onClick={() => setConfirming('revoke')} disabled={busy !== null}>
                {busy === 'revoke' ? <Spinner className="size-4 text-current" label="Revoking" /> : <Trash2 aria-hidden="true" />}
                Revoke Key
              </Button>
            )}
          </div>
        )}
      </CardContent>
      <ConfirmKeyDialog confirming={confirming} onCancel={() => setConfirming(null)} onConfirm={run} />
    </Card>
  );
}

/** Under the key: what can be done with it, or why nothing can. */
function KeyNote({ status, failed, fresh }: { status: ApiKeyStatus | null; failed: boolean; fresh: boolean }) {
  if (failed) return <>{'Your API key could not be loaded.'}</>;
  if (!status) return <>{'Loading…'}</>;
  if (fresh) return <>{'Copy this key now and keep it secret: it is not shown again. Send it as "Authorization: Bearer <key>".'}</>;
  if (status.apiAccess) {
    return status.hasKey
      ? `Created ${formatDateTime(status.createdAt)}. For security the full key is shown only once; rotate it if it is lost.`
      : 'Create a key to read your data from your own tools.';
  }
  return (
    <>
      {status.reason}{' '}
      <a href="/billing" className="font-medium text-foreground underline underline-offset-4">
        See plans
      </a>
    </>
  );
}

type ConfirmKeyDialogProps = { confirming: 'rotate' | 'revoke' | null; onCancel: () => void; onConfirm: (action: 'rotate' | 'revoke') => void };

/** Asks before rotating or revoking the key: either stops the current one working at once. */
function ConfirmKeyDialog({ confirming, onCancel, onConfirm }: ConfirmKeyDialogProps) {
  return (
    <AlertDialog open={confirming !== null} onOpenChange={(open) => !open && onCancel()}>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>{confirming === 'rotate' ? 'Rotate your API key?' : 'Revoke your API key?'}</AlertDialogTitle>
          <AlertDialogDescription>
            {confirming === 'rotate'
              ? 'A new key replaces the current one, which stops working at once. Tools using it need the new key.'
              : 'The key stops working at once. Tools using it lose access until you generate a new one.'}
          </AlertDialogDescription>
        </AlertDialogHeader>
        <AlertDialogFooter>
          <AlertDialogCancel>Cancel</AlertDialogCancel>
          <AlertDialogAction variant={confirming === 'revoke' ? 'destructive' : 'default'} onClick={() => confirming && onConfirm(confirming)}>
            {confirming === 'rotate' ? 'Rotate Key' : 'Revoke Key'}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
