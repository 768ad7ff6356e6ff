import { useId, useRef, useState, type DragEvent } from 'react';
import { Download, FileUp, TriangleAlert } from 'lucide-react';
import { api, type ImportResult } from '../../lib/api';
import { describeError, importToast, looksLikeCsv, MAX_IMPORT_BYTES, previewSummary, TEMPLATE_FILENAME, TEMPLATE_HREF } from '../../lib/catalogue';
import { cn } from '../../lib/utils';
import { toast } from '../../stores/toast';
import { Button } from '../ui/Button';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '../ui/Dialog';
import { Spinner } from '../ui/Spinner';

type ImportCsvDialogProps = {
  onClose: () => void;
  onImported: () => void;
  onCloseAutoFocus: (event: Event) => void;
};

type Stage =
  | { kind: 'empty'; problem: string | null }
  | { kind: 'checking'; file: File }
  | { kind: 'checked'; file: File; result: ImportResult }
  | { kind: 'importing'; file: File; result: ImportResult };

/**
 * Import CSV: a file chosen or dropped is checked at once by a dry run, which shows its first
 * rows, what will be added and skipped, and every error; only a clean file can be imported.
 */
export function ImportCsvDialog({ onClose, onImported, onCloseAutoFocus }: ImportCsvDialogProps) {
  const [stage, setStage] = useState<Stage>({ kind: 'empty', problem: null });
  const [dragging, setDragging] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const inputId = useId();
  const pending = stage.kind === 'importing';

  async function choose(file: File | undefined) {
    if (!file) return;
    if (!looksLikeCsv(file)) return setStage({ kind: 'empty', problem: `${file.name} is not a CSV file. Choose a file ending in .csv.` });
    if (file.size > MAX_IMPORT_BYTES) return setStage({ kind: 'empty', problem: `${file.name} is larger than 2 MB. Split it into smaller files.` });
    setStage({ kind: 'checking', file });
    try {
      setStage({ kind: 'checked', file, result: await api.products.importCsv(file, { dryRun: true }) });
    } catch {
      setStage({ kind: 'empty', problem: 'The file could not be checked. Please try again.' });
    }
  }

  async function importFile() {
    if (stage.kind !== 'checked') return;
    setStage({ ...stage, kind: 'importing' });
    try {
      const result = await api.products.importCsv(stage.file, { dryRun: false });
      if (result.ok) {
        toast(importToast(result.answer));
        onImported();
        return;
      }
      // Something changed since the preview (another import, the plan): show why.
      setStage({ kind: 'checked', file: stage.file, result });
    } catch {
      setStage({ kind: 'checked', file: stage.file, result: stage.result });
      toast({ title: 'Import failed', description: 'Please try again.', variant: 'destructive' });
    }
  }

  function drop(event: DragEvent) {
    event.preventDefault();
    setDragging(false);
    if (!pending) void choose(event.dataTransfer.files[0]);
  }

  const result = stage.kind === 'checked' || stage.kind === 'importing' ? stage.result : null;
  const canImport = stage.kind === 'checked' && result?.ok === true && result.answer.created > 0;
  const created = result?.ok ? result.answer.created : 0;

  return (
    <Dialog open onOpenChange={(open) => !open && !pending && onClose()}>
      <DialogContent showClose={!pending} onCloseAutoFocus={onCloseAutoFocus} className="sm:max-w-2xl">
        <DialogHeader>
          <DialogTitle>Import CSV</DialogTitle>
          <DialogDescription>
            Add many products at once from a CSV file with the columns name, url, selector and threshold (none, any or a drop such as -10). Other columns are
            ignored.
          </DialogDescription>
        </DialogHeader>

        <div
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={drop}
          data-testid="csv-drop-zone"
          className={cn(
            'flex flex-col items-center gap-3 rounded-lg border-2 border-dashed p-6 text-center transition-colors',
            dragging ? 'border-primary bg-accent' : 'border-input',
          )}
        >
          <FileUp aria-hidden="true" className="size-8 text-muted-foreground" />
          <p className="text-sm text-muted-foreground">Drag a CSV file here, or</p>
          <label htmlFor={inputId} className="sr-only">
            CSV file
          </label>
          <input
            ref={inputRef}
            id={inputId}
            type="file"
            accept=".csv,text/csv"
            className="sr-only"
            disabled={pending}
            onChange={(e) => {
              void choose(e.target.files?.[0]);
              e.target.value = '';
            }}
          />
          <Button variant="outline" onClick={() => inputRef.current?.click()} disabled={pending}>
            Choose file
          </Button>
          {stage.kind !== 'empty' && <p className="break-all text-sm font-medium">{stage.file.name}</p>}
        </div>

        <a
          href={TEMPLATE_HREF}
          download={TEMPLATE_FILENAME}
          className="inline-flex w-fit items-center gap-1.5 text-sm font-medium text-primary underline-offset-4 hover:underline"
        >
          <Download aria-hidden="true" className="size-4" />
          Download template
        </a>

        <div aria-live="polite" className="grid gap-3">
          {stage.kind === 'empty' && stage.problem && <Problem message={stage.problem} />}
          {stage.kind === 'checking' && (
            <p className="flex items-center gap-2 text-sm text-muted-foreground">
              <Spinner className="size-4" label="Checking the file" /> Checking the file...
            </p>
          )}
          {result && <Preview result={result} />}
        </div>

        <DialogFooter>
          <Button variant="outline" onClick={onClose} disabled={pending}>
            Cancel
          </Button>
          <Button onClick={importFile} disabled={!canImport}>
            {pending && <Spinner className="size-4 text-current" label="Importing..." />}
            {pending ? 'Importing...' : created > 0 ? `Import ${created.toLocaleString('en-GB')} product${created === 1 ? '' : 's'}` : 'Import'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

function Problem({ message }: { message: string }) {
  return (
    <p role="alert" className="flex gap-2 rounded-md border border-destructive/50 bg-destructive/10 p-3 text-sm text-foreground">
      <TriangleAlert aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-destructive" />
      <span>{message}</span>
    </p>
  );
}

/** The file's first rows, then what the import will do, or every error that stops it. */
function Preview({ result }: { result: ImportResult }) {
  const rows = result.ok ? ('preview' in result.answer ? result.answer.preview : []) : result.preview;
  const duplicates = result.ok ? result.answer.duplicates : [];
  return (
    <>
      {rows.length > 0 && (
        // Scrolls sideways on a phone: focusable, so a keyboard can scroll it too.
        <div className="overflow-x-auto rounded-md border" tabIndex={0} role="region" aria-label="First rows of the file">
          <table className="w-full text-left text-sm">
            <thead className="bg-muted/60 text-xs text-muted-foreground">
              <tr>
                <th scope="col" className="px-3 py-2 font-medium">
                  Line
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Name
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  URL
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Threshold
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.line} className="border-t">
                  <td className="px-3 py-2 tabular-nums">{row.line}</td>
                  <td className="max-w-48 truncate px-3 py-2" title={row.name}>
                    {row.name}
                  </td>
                  <td className="max-w-56 truncate px-3 py-2" title={row.url}>
                    {row.url}
                  </td>
                  <td className="px-3 py-2">{row.threshold || 'none'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {result.ok ? (
        <div className="grid gap-1 text-sm">
          <p className="font-medium">{previewSummary(result.answer)}</p>
          {duplicates.length > 0 && (
            <ul className="max-h-32 list-disc overflow-y-auto pl-5 text-muted-foreground" aria-label="Rows to skip">
              {duplicates.map((d) => (
                <li key={d.line} className="break-all">
                  Line {d.line}: {d.url} ({d.reason === 'tracked' ? 'already tracked' : 'repeated in the file'})
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : (
        <div className="grid gap-2">
          <Problem message={result.message} />
          {result.errors.length > 0 && (
            <ul className="max-h-48 list-disc overflow-y-auto pl-5 text-sm" aria-label="Errors in the file">
              {result.errors.map((e, i) => (
                <li key={i} className="break-words">
                  {describeError(e)}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </>
  );
}
