import { useId, useRef, useState, type DragEvent, type ReactNode } from 'react';
import { Download, FileUp, TriangleAlert } from 'lucide-react';
import type { CsvImportResult } from '../../lib/api';
import { describeError, looksLikeCsv, MAX_IMPORT_BYTES } from '../../lib/catalogue';
import { cn } from '../../lib/utils';
import { toast, type ToastMessage } from '../../stores/toast';
import { Button } from './Button';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from './Dialog';
import { Spinner } from './Spinner';

type LineError = { line: number; column: string | null; message: string };
type Result<Answer, Row> = CsvImportResult<Answer, Row, LineError>;
/** Every import answers with counts; a dry run's answer also has the first rows. */
type Answered<Row> = { created: number; preview?: readonly Row[] };

type Stage<Answer, Row> =
  | { kind: 'empty'; problem: string | null }
  | { kind: 'checking'; file: File }
  | { kind: 'checked'; file: File; result: Result<Answer, Row> }
  | { kind: 'importing'; file: File; result: Result<Answer, Row> };

/** What a screen gives an import dialog. */
export type ImportDialogProps = { onClose: () => void; onImported: () => void; onCloseAutoFocus: (event: Event) => void };

export type CsvImportDialogProps<Answer, Row> = ImportDialogProps & {
  /** What the file holds: its columns and what an import does with them. */
  description: ReactNode;
  /** The import's endpoint: a dry run for the preview, then the import itself. */
  send: (file: File, opts: { dryRun: boolean }) => Promise<Result<Answer, Row>>;
  template: { href: string; filename: string };
  /** How many products the import would add or change; none leaves the button disabled. */
  count: (answer: Answer) => number;
  importedToast: (answer: Answer) => ToastMessage;
  /** The preview table's headers after Line, and a row's cells under them. */
  columns: readonly string[];
  cells: (row: Row) => ReactNode;
  /** What the dry run found, under the preview. */
  summary: (answer: Answer) => ReactNode;
  /** A refusal by the plan (403) links to the plans. */
  offerPlans?: boolean;
  dropZoneTestId?: string;
};

/**
 * Import CSV: a file chosen or dropped is checked at once by a dry run, which shows its first
 * rows, what the import will do, and every error by line; only a clean file can be imported.
 */
export function CsvImportDialog<Answer extends Answered<Row>, Row extends { line: number }>(props: CsvImportDialogProps<Answer, Row>) {
  const { onClose, onImported, onCloseAutoFocus, send, template, count: countOf } = props;
  const [stage, setStage] = useState<Stage<Answer, Row>>({ kind: 'empty', problem: null });
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
      setStage({ kind: 'checked', file, result: await send(file, { dryRun: true }) });
    } catch {
      setStage({ kind: 'empty', problem: 'The file could not be checked. Please try again.' });
    }
  }

  async function importFile() {
    if (stage.kind !== 'checked') return;
    setStage({ ...stage, kind: 'importing' });
    try {
      const result = await send(stage.file, { dryRun: false });
      if (result.ok) {
        toast(props.importedToast(result.answer));
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
  const count = result?.ok ? countOf(result.answer) : 0;
  const canImport = stage.kind === 'checked' && count > 0;

  return (
    <Dialog open onOpenChange={(open) => !open && !pending && onClose()}>
      <DialogContent showClose={!pending} onCloseAutoFocus={onCloseAutoFocus} className="sm:max-w-2xl">
        <DialogHeader>
          <DialogTitle>Import CSV</DialogTitle>
          <DialogDescription>{props.description}</DialogDescription>
        </DialogHeader>

        <div
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={drop}
          data-testid={props.dropZoneTestId}
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
          href={template.href}
          download={template.filename}
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
          {result && <Preview result={result} columns={props.columns} cells={props.cells} summary={props.summary} offerPlans={props.offerPlans} />}
        </div>

        <DialogFooter>
          <Button variant="outline" onClick={onClose} disabled={pending}>
            Cancel
          </Button>
          <Button onClick={importFile} disabled={!canImport}>
            {pending && <Spinner className="size-4 text-current" label="Importing..." />}
            {pending ? 'Importing...' : count > 0 ? `Import ${count.toLocaleString('en-GB')} product${count === 1 ? '' : 's'}` : 'Import'}
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

type PreviewProps<Answer, Row> = Pick<CsvImportDialogProps<Answer, Row>, 'columns' | 'cells' | 'summary' | 'offerPlans'> & { result: Result<Answer, Row> };

/** The file's first rows, then what the import will do, or every error that stops it. */
function Preview<Answer extends Answered<Row>, Row extends { line: number }>({ result, columns, cells, summary, offerPlans }: PreviewProps<Answer, Row>) {
  // Only a dry run's answer has the rows; the import's own has just the counts.
  const rows = result.ok ? (result.answer.preview ?? []) : result.preview;
  return (
    <>
      {rows.length > 0 && (
        // Scrolls sideways on a phone: focusable, so a keyboard can scroll it too.
        <div className="overflow-x-auto rounded-md border" tabIndex={0} role="region" aria-label="First rows of the file">
          <table className="w-full text-left text-sm">
            <thead className="bg-muted/60 text-xs text-muted-foreground">
              <tr>
                {['Line', ...columns].map((h) => (
                  <th key={h} scope="col" className="px-3 py-2 font-medium">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.line} className="border-t">
                  <td className="px-3 py-2 tabular-nums">{row.line}</td>
                  {cells(row)}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {result.ok ? (
        summary(result.answer)
      ) : (
        <div className="grid gap-2">
          <Problem message={result.message} />
          {offerPlans && result.status === 403 && (
            <a href="/billing" className="w-fit text-sm font-medium underline underline-offset-4">
              See plans
            </a>
          )}
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
